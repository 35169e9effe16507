package grpcraw

import (
	"strings"
	"testing"

	"google.golang.org/grpc/metadata"

	"github.com/herdbench/herdbench/grpcwire"
)

// TestCheckServiceConfig: grpc-go's own parser decides, with its message.
func TestCheckServiceConfig(t *testing.T) {
	good := `{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 5, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}], "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}}`
	if err := CheckServiceConfig(good); err != nil {
		t.Errorf("a good service config: %v", err)
	}
	for _, bad := range []string{
		`{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 1, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}`,
		`{"methodConfig": [{"name": [{}]}], "retryThrottling": {"maxTokens": 10, "tokenRatio": -1}}`,
		`{"methodConfig": [`,
		` `,
	} {
		err := CheckServiceConfig(bad)
		if err == nil {
			t.Errorf("CheckServiceConfig(%s) = nil; want grpc-go's refusal", bad)
		} else if strings.TrimSpace(bad) != "" && !strings.Contains(err.Error(), "grpc") {
			t.Errorf("CheckServiceConfig(%s) = %v; want grpc-go's own message", bad, err)
		}
	}
}

func TestAttempt(t *testing.T) {
	if n, ok := Attempt(metadata.MD{}); n != 1 || !ok {
		t.Errorf("no header: %d, %v", n, ok)
	}
	if n, ok := Attempt(metadata.Pairs(grpcwire.PreviousAttempts, "2")); n != 3 || !ok {
		t.Errorf("2 previous: %d, %v", n, ok)
	}
	if _, ok := Attempt(metadata.Pairs(grpcwire.PreviousAttempts, "x")); ok {
		t.Error("a bad value read as a number")
	}
}

func TestCodec(t *testing.T) {
	var c Codec
	b, err := c.Marshal([]byte("hi"))
	var out []byte
	if err != nil || c.Unmarshal(b, &out) != nil || string(out) != "hi" {
		t.Errorf("round trip: %q, %v", out, err)
	}
	if _, err := c.Marshal(3); err == nil {
		t.Error("an int was marshalled")
	}
}
