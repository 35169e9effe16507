package clients

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/herdbench/herdbench/results"
)

// Stream ids reserved for processes that are not clients.
const (
	StreamArrivals uint64 = 1 << 62 // the open workload's arrival process
	StreamTarget   uint64 = 1 << 63 // the embedded target
)

// Swarm is one cohort's clients in real time.
type Swarm struct {
	URL      string // the target, e.g. http://127.0.0.1:8080/
	Strategy *Strategy
	Workload *Workload
	Seed     uint64
	Origin   time.Time     // the run's t = 0 on the wall clock
	Duration time.Duration // the run's length: the swarm stops by itself then
	Rec      *results.Recorder
	// Dial opens connections; nil means the host's TCP stack. Tests pass
	// an in-memory network's.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// OCC makes each attempt a read then a write of the target's OCC row
	// (see attemptOCC) instead of one plain request.
	OCC bool
}

// Run drives the swarm until the run's end or until ctx is done, and waits
// for every client goroutine. Attempts cut short by the end are not
// recorded.
func (s *Swarm) Run(ctx context.Context) {
	ctx, cancel := context.WithDeadline(ctx, s.Origin.Add(s.Duration))
	defer cancel()
	var wg sync.WaitGroup
	k := NewCohort(s.Strategy)
	switch s.Workload.Kind {
	case Open:
		s.runOpen(ctx, k, &wg)
	default:
		for id := 0; id < s.Workload.Clients; id++ {
			c := k.NewClient(id, s.Workload, s.Duration, Stream(s.Seed, uint64(id)), s.Rec.Shard(id))
			wg.Add(1)
			go func() {
				defer wg.Done()
				tr := s.newTransport(1)
				defer tr.CloseIdleConnections()
				s.drive(ctx, c, c.Begin(), &http.Client{Transport: tr})
			}()
		}
	}
	wg.Wait()
}

// runOpen starts one client per Poisson arrival, all sharing a pool of
// connections.
func (s *Swarm) runOpen(ctx context.Context, k *Cohort, wg *sync.WaitGroup) {
	tr := s.newTransport(4096)
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	rng := Stream(s.Seed, StreamArrivals)
	var at time.Duration
	for id := 0; ; id++ {
		at += time.Duration(rng.ExpFloat64() / s.Workload.Rate * float64(time.Second))
		if at >= s.Duration || !sleepUntil(ctx, s.Origin.Add(at)) {
			return
		}
		c := k.NewClient(id, s.Workload, s.Duration, Stream(s.Seed, uint64(id)), s.Rec.Shard(id))
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.drive(ctx, c, c.BeginAt(at), hc)
		}()
	}
}

func (s *Swarm) newTransport(conns int) *http.Transport {
	dial := s.Dial
	if dial == nil {
		dial = (&net.Dialer{Timeout: 5 * time.Second}).DialContext
	}
	return &http.Transport{
		Proxy:               nil,
		DialContext:         dial,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
	}
}

// drive runs one client's step function on the wall clock.
func (s *Swarm) drive(ctx context.Context, c *Client, a Action, hc *http.Client) {
	sh := s.Rec.Shard(c.ID)
	for a.Op == Send {
		if !sleepUntil(ctx, s.Origin.Add(a.At)) {
			return
		}
		sent := time.Since(s.Origin)
		sh.InFlight(1)
		o, retryAfter := s.attempt(ctx, hc)
		sh.InFlight(-1)
		if ctx.Err() != nil {
			return // the run ended mid-attempt: not an outcome of the target
		}
		a = c.Result(Reply{Sent: sent, Latency: time.Since(s.Origin) - sent, Outcome: o, RetryAfter: retryAfter})
	}
}

// attempt sends one request and returns its outcome and the server's
// pushback (Retry-After), if any. POST, because net/http silently retries an
// idempotent request on a reused connection that failed, which would hide a
// reset from the count of attempts.
func (s *Swarm) attempt(ctx context.Context, hc *http.Client) (results.Outcome, time.Duration) {
	if t := s.Strategy.Timeout; t > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t)
		defer cancel()
	}
	if s.OCC {
		return s.attemptOCC(ctx, hc), 0
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, http.NoBody)
	if err != nil {
		return results.Error, 0
	}
	resp, err := hc.Do(req)
	if err != nil {
		return Classify(err), 0
	}
	_, err = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return Classify(err), 0
	}
	var pushback time.Duration
	if v := resp.Header.Get("Retry-After"); v != "" && resp.StatusCode >= 400 {
		pushback, _ = ParseRetryAfter(v, time.Now())
	}
	return results.FromStatus(resp.StatusCode), pushback
}

// sleepUntil waits until t; it reports false if ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}
