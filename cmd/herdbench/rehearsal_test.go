package main

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/target"
	"github.com/herdbench/herdbench/target/model"
)

// rehearsalScenario is the game-day rehearsal of docs/game-day.md, which
// holds it word for word (TestRehearsalIsDocumented).
const rehearsalScenario = `name: rehearsal
description: |
  Real clients through the chaos proxy: the service stalls (requests hang), then
  crashes (every held request reset, new connections refused) and comes back.
  Do our clients stampede when it returns?
duration: 12s
chaos:
  - name: stall
    kind: blip
    mode: blackhole
    at: 3s
    for: 1.5s
  - name: crash
    kind: outage
    mode: refuse
    at: 4.5s
    for: 2.3s
thresholds:
  - herd_factor < 2
`

// backoff is a retry library's wait before retry attemptNum (0 for the
// first retry), from lo (its minimum wait) to hi (its cap).
type backoff func(lo, hi time.Duration, attemptNum int, rng *rand.Rand) time.Duration

// retryablehttpDefault is hashicorp/go-retryablehttp's DefaultBackoff
// without a Retry-After header (the rehearsal sends none): lo·2^attemptNum,
// capped at hi; no jitter.
func retryablehttpDefault(lo, hi time.Duration, attemptNum int, _ *rand.Rand) time.Duration {
	return min(hi, lo<<attemptNum)
}

// fullJitter is AWS's "full jitter": a uniform draw in [0, lo·2^attemptNum],
// capped at hi.
func fullJitter(lo, hi time.Duration, attemptNum int, rng *rand.Rand) time.Duration {
	return time.Duration(rng.Int64N(int64(min(hi, lo<<attemptNum)) + 1))
}

// retryingClient is a tiny client with go-retryablehttp's defaults (1 s to
// 30 s waits, 4 retries, a retry on a transport error or a 5xx but 501,
// no timeout of its own) and a backoff of its own: one unit of work after
// another, a uniform 0-2 s apart, each attempt marked with its number in
// X-Retry-Attempt as the documented program does in its RequestLogHook.
func retryingClient(c *http.Client, url, userAgent string, wait backoff, rng *rand.Rand, until time.Time) {
	for {
		time.Sleep(time.Duration(rng.Int64N(int64(2 * time.Second))))
		if time.Now().After(until) {
			return
		}
		for attempt := 0; attempt <= 4; attempt++ {
			req, _ := http.NewRequest(http.MethodPost, url, nil)
			req.Header.Set("User-Agent", userAgent)
			req.Header.Set("X-Retry-Attempt", strconv.Itoa(attempt+1))
			resp, err := c.Do(req)
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode < 500 || resp.StatusCode == http.StatusNotImplemented {
					break
				}
			}
			if attempt < 4 {
				time.Sleep(wait(time.Second, 30*time.Second, attempt, rng))
			}
		}
	}
}

// TestRehearsalProxyRecordsTheStampede runs the rehearsal of
// docs/game-day.md in a synctest bubble, over an in-memory network: a
// healthy service, herdbench proxy in front of it with the rehearsal
// scenario (a stall, then a crash), recording by User-Agent, and two
// fleets of 100 real-style clients through it, one with
// go-retryablehttp's default backoff and one with full jitter. The
// proxy's own summary.json shows the stampede: the plain exponential
// cohort's herd factor is at least 5 times the jittered one's, and the
// scenario's threshold gates it (exit code 3).
func TestRehearsalProxyRecordsTheStampede(t *testing.T) {
	out := t.TempDir()
	scenario := writeScenario(t, rehearsalScenario)
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		done, stdout, stderr := proxyInBubble(t, n, "--scenario", scenario, "--cohort-by", "user-agent", "--attempt-header", "X-Retry-Attempt",
			"--exit-after", "12s", "--out", out, "--no-png", "-q")
		time.Sleep(time.Millisecond) // the proxy listens; its plan's t = 0 is now
		until := time.Now().Add(11 * time.Second)
		var wg sync.WaitGroup
		for _, fleet := range []struct {
			ua   string
			wait backoff
		}{{"go-retryablehttp", retryablehttpDefault}, {"full-jitter", fullJitter}} {
			tr := &http.Transport{DialContext: n.Dial, MaxIdleConnsPerHost: 100}
			defer tr.CloseIdleConnections()
			c := &http.Client{Transport: tr}
			for i := range 100 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					retryingClient(c, "http://127.0.0.1:8090/work", fleet.ua, fleet.wait, rand.New(rand.NewPCG(uint64(i), uint64(len(fleet.ua)))), until)
				}()
			}
		}
		wg.Wait()
		if code := <-done; code != exitThresholds {
			t.Errorf("exit code %d, want %d (herd_factor < 2 fails for the plain exponential cohort)\nstdout:\n%s\nstderr:\n%s", code, exitThresholds, stdout.String(), stderr.String())
		}
	})
	s := readSummary(t, out)
	herd := map[string]float64{}
	for _, r := range s.Runs {
		herd[r.Strategy] = r.HerdFactor
		t.Logf("%s: herd factor %.2f, attempts %d, amplification %.2f, failed after fault %d", r.Strategy, r.HerdFactor, r.Attempts, r.Amplification, r.FailedAfterFault)
	}
	exp, jit := herd["go-retryablehttp"], herd["full-jitter"]
	if len(s.Runs) != 2 || jit <= 0 || exp < 5*jit {
		t.Errorf("herd factors %v: want go-retryablehttp's at least 5 times full-jitter's", herd)
	}
	if s.Recorded == nil || s.Recorded.By != "proxy" || len(s.Faults) != 2 {
		t.Errorf("recorded %+v, faults %+v", s.Recorded, s.Faults)
	}
}

// proxyInBubble starts, inside a synctest bubble over n, a healthy
// service at 127.0.0.1:9000 (5 ms a request, room for 1,000) and
// herdbench proxy in front of it (listening on 127.0.0.1:8090, control
// on 8091) with the further arguments args; the proxy's exit code
// arrives on done. The service and the upstream's connections close when
// the bubble's test ends.
func proxyInBubble(t *testing.T, n *memnet.Network, args ...string) (done chan int, stdout, stderr *bytes.Buffer) {
	t.Helper()
	up, err := target.Listen(target.Options{Addr: "127.0.0.1:9000", Listen: n.Listen,
		Config: model.Config{Concurrency: 1000, Queue: 1000, QueueTimeout: 5 * time.Second, ServiceTime: dist.Const(5 * time.Millisecond)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Close() })
	upstream := &http.Transport{DialContext: n.Dial}
	t.Cleanup(upstream.CloseIdleConnections)
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	done = make(chan int)
	go func() {
		done <- runProxyOn(context.Background(), &serveNet{listen: n.Listen, upstream: upstream},
			append([]string{"--listen", "127.0.0.1:8090", "--control-addr", "127.0.0.1:8091", "--upstream", "http://127.0.0.1:9000"}, args...), stdout, stderr)
	}()
	return done, stdout, stderr
}

// TestRehearsalIsDocumented: docs/game-day.md runs the rehearsal with the
// scenario this test runs.
func TestRehearsalIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/game-day.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), rehearsalScenario) {
		t.Errorf("docs/game-day.md does not hold the rehearsal scenario of TestRehearsalProxyRecordsTheStampede word for word:\n%s", rehearsalScenario)
	}
}
