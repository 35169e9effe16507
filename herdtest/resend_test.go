package herdtest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
)

// loop is the user-style retry loop of retrying, sending method.
func loop(method string) func(c *Client) RequestFunc {
	return func(c *Client) RequestFunc {
		return func(ctx context.Context) error {
			var last error
			for n := range 8 {
				if n > 0 {
					if err := sleep(ctx, fullJitter(n, c.Rand)); err != nil {
						return err
					}
				}
				actx, cancel := context.WithTimeout(ctx, timeout)
				req, _ := http.NewRequestWithContext(actx, method, c.URL+"work", nil)
				resp, err := c.HTTP.Do(req)
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode < 500 {
						cancel()
						return nil
					}
					err = fmt.Errorf("status %d", resp.StatusCode)
				}
				cancel()
				last = err
			}
			return last
		}
	}
}

const timeout = 3 * time.Second // the outage's per-attempt timeout

func resends(t *testing.T, r results.Run) float64 {
	t.Helper()
	m, _ := results.LookupMetric("transport_resends")
	v, ok := m.Value(&r)
	if !ok {
		t.Fatalf("%s: transport_resends is missing", r.Strategy)
	}
	return v
}

// net/http re-sends, by itself, a GET that the crash resets on a reused
// connection, once: herdtest counts each such re-send as an attempt and
// a transport re-send; a POST, which net/http never re-sends after its
// bytes went out, has none. Both cohorts run the same retry loop.
func TestNetHTTPResendsAtTheCrash(t *testing.T) {
	o := Options{Scenario: "outage", Clients: 200}
	if os.Getenv("HERDBENCH_REAL") != "" {
		o.Mode = Real
	}
	s := Run(t, o, Cohort{Name: "get", New: loop(http.MethodGet)}, Cohort{Name: "post", New: loop(http.MethodPost)})
	runs := byName(s)
	get, post := resends(t, runs["get"]), resends(t, runs["post"])
	t.Logf("%s: transport re-sends: GET %v of %d attempts, POST %v of %d", o.Mode, get, runs["get"].Attempts, post, runs["post"].Attempts)
	if post != 0 {
		t.Errorf("POST: %v transport re-sends, want 0", post)
	}
	// At 4.5 s the crash resets every request the 1.5 s stall holds; most
	// of the 200 clients have one in flight, on a connection that has
	// carried an answer.
	if get < 100 || get > 200 {
		t.Errorf("GET: %v transport re-sends, want one per client in flight at the crash (100 to 200 of 200)", get)
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
