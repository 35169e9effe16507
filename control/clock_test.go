package control

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"
)

// TestEstimateClock: the offset is the server's clock minus ours, taken
// from the round trip with the least delay; a round trip during which a
// clock moved back is skipped.
func TestEstimateClock(t *testing.T) {
	ms := int64(time.Millisecond)
	for _, c := range []struct {
		name              string
		samples           []ClockSample
		offset, uncertain time.Duration
	}{
		// The server is 40 ms ahead; 2 ms each way; 1 ms to answer.
		{"ahead", []ClockSample{{0, 42 * ms, 43 * ms, 5 * ms}}, 40 * time.Millisecond, 2 * time.Millisecond},
		// The server is 7 ms behind.
		{"behind", []ClockSample{{100 * ms, 94 * ms, 95 * ms, 103 * ms}}, -7 * time.Millisecond, time.Millisecond},
		// A slow way back skews the first sample; the second, least
		// delayed, wins.
		{"least delay", []ClockSample{{0, 11 * ms, 11 * ms, 31 * ms}, {50 * ms, 61 * ms, 61 * ms, 52 * ms}}, 10 * time.Millisecond, time.Millisecond},
		{"stepped clock skipped", []ClockSample{{10 * ms, 5 * ms, 5 * ms, 4 * ms}, {0, ms, ms, 2 * ms}}, 0, time.Millisecond},
	} {
		got, err := EstimateClock(c.samples)
		if err != nil || got.Offset != c.offset || got.Uncertainty != c.uncertain || got.RoundTrips != len(c.samples) {
			t.Errorf("%s: %+v, %v; want offset %s ± %s", c.name, got, err, c.offset, c.uncertain)
		}
	}
	if _, err := EstimateClock([]ClockSample{{10, 5, 5, 4}}); !errors.Is(err, ErrClock) {
		t.Errorf("no usable sample: %v", err)
	}
}

// TestClientClock measures this machine's clock against a control API on
// loopback: one clock, so the true offset (0) lies within the reading's
// uncertainty, whatever the machine's load. The endpoint is behind the
// guard: without the token it is refused.
func TestClientClock(t *testing.T) {
	ctx := context.Background()
	url := serveAPI(t, "s3cret")
	r, err := newClient(t, url, "s3cret").Clock(ctx, 8)
	if err != nil {
		t.Fatal(err)
	}
	if r.RoundTrips != 8 || r.Uncertainty <= 0 || r.Offset > r.Uncertainty || r.Offset < -r.Uncertainty {
		t.Errorf("reading %+v: 0 is not within offset ± uncertainty", r)
	}
	_, err = newClient(t, url, "").Clock(ctx, 2)
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized || !errors.Is(err, ErrClock) {
		t.Errorf("without the token: %v", err)
	}
}
