package grpcwire

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"
)

func TestCheckMethod(t *testing.T) {
	for m, ok := range map[string]bool{
		Method: true, "/helloworld.Greeter/SayHello": true, "/a.b.c.Svc/M": true,
		"": false, "SayHello": false, "/Greeter/SayHello": false, "helloworld.Greeter/SayHello": false,
		"/helloworld.Greeter/": false, "/helloworld.Greeter/Say/Hello": false, "/.Greeter/Say": false, "/helloworld./Say": false,
	} {
		if err := CheckMethod(m); (err == nil) != ok {
			t.Errorf("CheckMethod(%q) = %v; want ok %v", m, err, ok)
		}
	}
}

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

func TestPushback(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0", time.Microsecond: "1", 1500 * time.Millisecond: "1500", -1: "-1"} {
		if got := PushbackValue(d); got != want {
			t.Errorf("PushbackValue(%v) = %q; want %q", d, got, want)
		}
	}
	for v, want := range map[string]struct {
		wait time.Duration
		stop bool
	}{"1500": {1500 * time.Millisecond, false}, "0": {0, false}, "-1": {0, true}, "soon": {0, true}, "": {0, true}} {
		if w, s := ParsePushback(v); w != want.wait || s != want.stop {
			t.Errorf("ParsePushback(%q) = %v, %v; want %v, %v", v, w, s, want.wait, want.stop)
		}
	}
}

func TestAttempt(t *testing.T) {
	if n, ok := Attempt(metadata.MD{}); n != 1 || !ok {
		t.Errorf("no header: %d, %v", n, ok)
	}
	if n, ok := Attempt(metadata.Pairs(PreviousAttempts, "2")); n != 3 || !ok {
		t.Errorf("2 previous: %d, %v", n, ok)
	}
	if _, ok := Attempt(metadata.Pairs(PreviousAttempts, "x")); ok {
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
