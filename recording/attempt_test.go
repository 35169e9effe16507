package recording

import (
	"net/http"
	"testing"
)

// TestAttemptHeader: each header's format, read strictly; anything odd
// is unknown, never guessed.
func TestAttemptHeader(t *testing.T) {
	cases := []struct {
		header string
		values []string // nil: the header is absent
		n, max int
		ok     bool
	}{
		{"grpc-previous-rpc-attempts", nil, 1, 0, true}, // absent on a first attempt
		{"grpc-previous-rpc-attempts", []string{"0"}, 1, 0, true},
		{"grpc-previous-rpc-attempts", []string{"3"}, 4, 0, true},
		{"grpc-previous-rpc-attempts", []string{" 2 "}, 3, 0, true},
		{"grpc-previous-rpc-attempts", []string{"-1"}, 0, 0, false},
		{"grpc-previous-rpc-attempts", []string{"1e3"}, 0, 0, false},
		{"grpc-previous-rpc-attempts", []string{"99999"}, 0, 0, false},
		{"grpc-previous-rpc-attempts", []string{"1", "2"}, 0, 0, false},
		{"amz-sdk-request", []string{"attempt=1; max=3"}, 1, 3, true},
		{"amz-sdk-request", []string{"attempt=3;max=3"}, 3, 3, true},
		{"amz-sdk-request", []string{"max=5; attempt=2"}, 2, 5, true},
		{"amz-sdk-request", []string{"ttl=20260101T000000Z; attempt=2; max=3"}, 2, 3, true},
		{"amz-sdk-request", []string{"attempt=2"}, 2, 0, true},
		{"amz-sdk-request", []string{"attempt=4; max=3"}, 0, 0, false},
		{"amz-sdk-request", []string{"attempt=0; max=3"}, 0, 0, false},
		{"amz-sdk-request", []string{"attempt=1; attempt=2"}, 0, 0, false},
		{"amz-sdk-request", []string{"attempt=x"}, 0, 0, false},
		{"amz-sdk-request", []string{"max=3"}, 0, 0, false},
		{"amz-sdk-request", []string{"attempt 1"}, 0, 0, false},
		{"amz-sdk-request", nil, 0, 0, false},
		{"X-Retry-Attempt", []string{"1"}, 1, 0, true},
		{"X-Retry-Attempt", []string{"2"}, 2, 0, true},
		{"X-Retry-Attempt", []string{"0"}, 0, 0, false},
		{"X-Retry-Attempt", []string{"+2"}, 0, 0, false},
		{"X-Retry-Attempt", []string{""}, 0, 0, false},
		{"X-Retry-Attempt", nil, 0, 0, false},
		{"", []string{"2"}, 0, 0, false},
	}
	for _, c := range cases {
		h, err := ParseAttemptHeader(c.header)
		if err != nil {
			t.Fatalf("%s: %v", c.header, err)
		}
		hdr := http.Header{}
		for _, v := range c.values {
			hdr.Add(c.header, v)
		}
		n, max, ok := h.Number(hdr)
		if n != c.n || max != c.max || ok != c.ok {
			t.Errorf("%s: %q: got %d, max %d, ok %v; want %d, %d, %v", c.header, c.values, n, max, ok, c.n, c.max, c.ok)
		}
	}
	for _, bad := range []string{"x y", "a:b", "é"} {
		if _, err := ParseAttemptHeader(bad); err == nil {
			t.Errorf("ParseAttemptHeader(%q) accepted it", bad)
		}
	}
}

// FuzzAttemptHeader: any value reads as unknown or as a number in range,
// never panics.
func FuzzAttemptHeader(f *testing.F) {
	for _, s := range []string{"0", "3", "attempt=1; max=3", "attempt=9999; max=9999", ";;", "attempt=", "max=1;attempt=1"} {
		f.Add(s)
	}
	hs := []AttemptHeader{}
	for _, name := range []string{GRPCHeader, AWSHeader, "X-Retry-Attempt"} {
		h, _ := ParseAttemptHeader(name)
		hs = append(hs, h)
	}
	f.Fuzz(func(t *testing.T, v string) {
		for _, h := range hs {
			n, max, ok := h.Number(http.Header{h.Name: {v}})
			if ok && (n < 1 || n > maxAttemptNumber+1 || max < 0 || max > maxAttemptNumber || (max > 0 && n > max)) {
				t.Errorf("%s: %q read as %d of %d", h.Name, v, n, max)
			}
			if !ok && (n != 0 || max != 0) {
				t.Errorf("%s: %q unknown but %d of %d", h.Name, v, n, max)
			}
		}
	})
}
