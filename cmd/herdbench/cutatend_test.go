package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/scenarios"
)

// throughProxy is a short game day: a swarm through herdbench proxy in
// front of a healthy service, a 503 outage from 1 s to 2 s, then 4 s of a
// healthy service until the run's end, which cuts the requests in flight.
const throughProxy = `name: through-proxy
duration: 6s
seed: 3
chaos:
  - {name: down, kind: outage, mode: "503", at: 1s, for: 1s}
workload:
  kind: closed
  clients: 50
  think: exponential(50ms)
strategies:
  - name: full-jitter
    backoff: full
    base: 50ms
    cap: 1s
    max_attempts: 6
    timeout: 2s
`

// TestProxyRecordingAgreesWithTheSwarm runs one swarm through herdbench
// proxy (--hold, its plan started at the swarm's t = 0 as --chaos-control
// does), in a synctest bubble over an in-memory network, and compares the
// proxy's recording with the swarm's own summary. The swarm closes its
// connections when its duration ends; the requests that cuts short are
// not the service's failures: the proxy counts them in cut_at_end and
// leaves them out, as the swarm does, so the two agree on the attempts,
// the failures after the fault and recovery (which was 4 s at the proxy
// against 0 s in the swarm when they counted as timeouts).
//
// The second time the swarm runs 4 s (--duration) of the proxy's 6 s
// scenario, and says so in its start ({"duration": "4s"}, as
// --chaos-control sends it): the proxy's end is the swarm's.
func TestProxyRecordingAgreesWithTheSwarm(t *testing.T) {
	for _, shorter := range []time.Duration{0, 4 * time.Second} {
		t.Run(fmt.Sprintf("duration=%s", shorter), func(t *testing.T) { agreesWithTheSwarm(t, shorter) })
	}
}

// agreesWithTheSwarm is TestProxyRecordingAgreesWithTheSwarm with the
// swarm's run cut to duration (0: the scenario's).
func agreesWithTheSwarm(t *testing.T, duration time.Duration) {
	out := t.TempDir()
	file := writeScenario(t, throughProxy)
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		done, _, stderr := proxyInBubble(t, n, "--scenario", file, "--hold", "--exit-after", "15s", "--out", out, "--no-png", "-q")
		time.Sleep(time.Millisecond) // the proxy listens

		op, err := scenarios.Open(file, scenarios.Overrides{Target: "http://127.0.0.1:8090/", Duration: duration})
		if err != nil {
			t.Fatal(err)
		}
		r, err := engine.Start(context.Background(), op.Plans[0], engine.Options{Version: "test", Mode: engine.Mode{NoSimReference: true}, Network: engine.Network{Listen: n.Listen, Dial: n.Dial}})
		if err != nil {
			t.Fatal(err)
		}
		control := &http.Transport{DialContext: n.Dial}
		defer control.CloseIdleConnections()
		body := fmt.Sprintf(`{"at": %q}`, r.Origin.UTC().Format(time.RFC3339Nano))
		if duration > 0 {
			body = fmt.Sprintf(`{"at": %q, "duration": %q}`, r.Origin.UTC().Format(time.RFC3339Nano), duration)
		}
		resp, err := (&http.Client{Transport: control}).Post("http://127.0.0.1:8091/control/start", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST /control/start: %s", resp.Status)
		}
		swarm := r.Wait().Summary
		if code := <-done; code != exitOK {
			t.Fatalf("proxy exit code %d\nstderr:\n%s", code, stderr.String())
		}
		s := readSummary(t, out)
		if len(swarm.Runs) != 1 || len(s.Runs) != 1 {
			t.Fatalf("runs: swarm %d, proxy %d", len(swarm.Runs), len(s.Runs))
		}
		sw, px := swarm.Runs[0], s.Runs[0]
		t.Logf("swarm: attempts %d, failed after fault %d, recovery %s, outcomes %v", sw.Attempts, sw.FailedAfterFault, seconds(sw.RecoveryS), sw.Outcomes)
		t.Logf("proxy: attempts %d, failed after fault %d, recovery %s, outcomes %v, cut at end %d", px.Attempts, px.FailedAfterFault, seconds(px.RecoveryS), px.Outcomes, s.Recorded.CutAtEnd)
		if s.Recorded.CutAtEnd == 0 {
			t.Fatal("no request was in flight at the run's end: the test shows nothing")
		}
		if seconds(px.RecoveryS) != seconds(sw.RecoveryS) || px.FailedAfterFault != sw.FailedAfterFault {
			t.Errorf("the proxy's recovery %s and failed after fault %d; the swarm's %s and %d: they should agree",
				seconds(px.RecoveryS), px.FailedAfterFault, seconds(sw.RecoveryS), sw.FailedAfterFault)
		}
		if px.Attempts != sw.Attempts || px.Outcomes["timeout"] != sw.Outcomes["timeout"] {
			t.Errorf("attempts %d at the proxy, %d in the swarm; timeouts %d and %d: the attempts the run's end cut are in neither",
				px.Attempts, sw.Attempts, px.Outcomes["timeout"], sw.Outcomes["timeout"])
		}
	})
}

// seconds writes a recovery for a message: "never" for nil.
func seconds(p *float64) string {
	if p == nil {
		return "never"
	}
	return fmt.Sprintf("%.2fs", *p)
}
