package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// The clock endpoint (GET /control/clock) lets the shards of a run measure
// their clocks against the target's or proxy's before their agreed start,
// as NTP does: the answer carries the instants the server received the
// request and sent its answer, on its wall clock. It is read-only and
// behind the same guard as every control call.

// ClockAnswer is the JSON answer of GET /control/clock: Unix times in
// nanoseconds on the server's wall clock.
type ClockAnswer struct {
	ReceivedUnixNS int64 `json:"received_unix_ns"`
	RepliedUnixNS  int64 `json:"replied_unix_ns"`
}

func (a *api) clock(w http.ResponseWriter, r *http.Request) {
	received := time.Now()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	b, _ := json.Marshal(ClockAnswer{ReceivedUnixNS: received.UnixNano(), RepliedUnixNS: time.Now().UnixNano()})
	_, _ = w.Write(append(b, '\n'))
}

// ClockSample is one round trip of a clock measurement: t0 when the
// request left and t3 when the answer came back, on this clock; t1 when
// the server received it and t2 when it answered, on the server's. Unix
// nanoseconds.
type ClockSample struct{ T0, T1, T2, T3 int64 }

// Offset returns the sample's estimate of the server's clock minus this
// one, and its delay: the round trip less the server's time to answer.
func (s ClockSample) Offset() (offset, delay time.Duration) {
	offset = time.Duration(((s.T1 - s.T0) + (s.T2 - s.T3)) / 2)
	delay = time.Duration((s.T3 - s.T0) - (s.T2 - s.T1))
	return offset, delay
}

// ClockReading is a clock's offset from a server's.
type ClockReading struct {
	// Offset is the server's clock minus this one: positive when this
	// clock is behind.
	Offset time.Duration
	// Uncertainty bounds Offset's error: half the delay of the round trip
	// it came from (the true offset lies within Offset ± Uncertainty
	// whatever the split of the delay between the two ways).
	Uncertainty time.Duration
	RoundTrips  int
}

// ErrClock is wrapped by EstimateClock's error.
var ErrClock = errors.New("control: clock")

// EstimateClock returns the offset of the sample with the least delay,
// as NTP's clock filter does: queueing and scheduling only ever add delay,
// and the least delayed round trip is the one they disturbed least.
func EstimateClock(samples []ClockSample) (ClockReading, error) {
	best := -1
	var bestOffset, bestDelay time.Duration
	for i, s := range samples {
		off, d := s.Offset()
		if d < 0 || s.T3 < s.T0 || s.T2 < s.T1 {
			continue // a clock stepped during the round trip
		}
		if best < 0 || d < bestDelay {
			best, bestOffset, bestDelay = i, off, d
		}
	}
	if best < 0 {
		return ClockReading{}, fmt.Errorf("%w: none of %d round trips was usable (a clock moved back during them)", ErrClock, len(samples))
	}
	return ClockReading{Offset: bestOffset, Uncertainty: bestDelay / 2, RoundTrips: len(samples)}, nil
}

// Clock measures this machine's clock against the server's with rounds
// round trips to GET /control/clock on one kept-alive connection (opened
// by one more call first, so no round trip counts a handshake).
func (c *Client) Clock(ctx context.Context, rounds int) (ClockReading, error) {
	u := *c.base
	u.Path += "/control/clock"
	tr := c.http.Transport.(*http.Transport).Clone()
	tr.DisableKeepAlives = false
	tr.MaxConnsPerHost = 1
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: c.http.Timeout, CheckRedirect: c.http.CheckRedirect}
	var samples []ClockSample
	for i := 0; i <= rounds; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return ClockReading{}, err
		}
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		t0 := time.Now()
		resp, err := hc.Do(req)
		if err != nil {
			return ClockReading{}, fmt.Errorf("%w: GET %s: %w", ErrClock, u.Redacted(), err)
		}
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
		t3 := time.Now()
		resp.Body.Close()
		if err != nil {
			return ClockReading{}, fmt.Errorf("%w: GET %s: %w", ErrClock, u.Redacted(), err)
		}
		if resp.StatusCode != http.StatusOK {
			e := &APIError{Method: http.MethodGet, URL: u.Redacted(), Status: resp.StatusCode, StatusText: resp.Status}
			var eb errorBody
			if json.Unmarshal(b, &eb) == nil {
				e.Message, e.Problems = eb.Error, eb.Problems
			}
			return ClockReading{}, fmt.Errorf("%w: %w", ErrClock, e)
		}
		var a ClockAnswer
		if err := json.Unmarshal(b, &a); err != nil || a.ReceivedUnixNS == 0 {
			return ClockReading{}, fmt.Errorf("%w: GET %s: not a clock's answer (a herdbench target or proxy of this version serves /control/clock)", ErrClock, u.Redacted())
		}
		if i > 0 { // the first call opened the connection
			samples = append(samples, ClockSample{T0: t0.UnixNano(), T1: a.ReceivedUnixNS, T2: a.RepliedUnixNS, T3: t3.UnixNano()})
		}
	}
	return EstimateClock(samples)
}
