package httpwire

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/results"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{"2", 2 * time.Second, true},
		{" 120 ", 2 * time.Minute, true},
		{"0", 0, true},
		{"Sun, 01 Mar 2026 12:00:05 GMT", 5 * time.Second, true},
		{"Sunday, 01-Mar-26 12:00:05 GMT", 5 * time.Second, true}, // RFC 850
		{"Sun Mar  1 12:00:05 2026", 5 * time.Second, true},       // asctime
		{"Sun, 01 Mar 2026 11:59:00 GMT", 0, true},                // already past
		{"", 0, false},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
		{"99999999999999999999", 0, false},
		{"172800", 0, false}, // two days: not meant
	}
	for _, tt := range tests {
		got, ok := ParseRetryAfter(tt.v, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseRetryAfter(%q) = %s, %v; want %s, %v", tt.v, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"2", "Sun, 01 Mar 2026 12:00:05 GMT", "", "-1", "9999999999"} {
		f.Add(s)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := ParseRetryAfter(v, now)
		if d < 0 || (!ok && d != 0) {
			t.Fatalf("ParseRetryAfter(%q) = %s, %v", v, d, ok)
		}
	})
}

// The swarm passes the server's Retry-After on to the client.
func TestSwarmReadsRetryAfter(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	s := &Attempts{Timeout: 5 * time.Second, Origin: time.Now()}
	ep, err := NewEndpoint(srv.URL, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := NewLink(ep)
	defer l.close()
	_, _, o, status, ra, _ := s.Send(context.Background(), l, nil)
	if o != results.HTTP429 || status != http.StatusTooManyRequests || ra != 3*time.Second {
		t.Fatalf("attempt = %s, status %d, %s; want http_429, 429, 3s", o, status, ra)
	}
}

// TestRetryAfterRoundTrip: what a fault asks (chaos's Retry-After rule:
// whole seconds, 1s to a day) is what the real client reads from the
// header, and so what the simulator, which hands the client the fault's
// value itself, waits too.
func TestRetryAfterRoundTrip(t *testing.T) {
	for _, d := range []time.Duration{time.Second, 2 * time.Second, 90 * time.Second, time.Hour, 24 * time.Hour} {
		if got, ok := ParseRetryAfter(chaos.RetryAfterHeader(d), time.Now()); !ok || got != d {
			t.Errorf("a fault's retry_after %s reads back as %s, %v", d, got, ok)
		}
	}
}
