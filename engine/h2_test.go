package engine

import (
	"context"
	"net"
	"net/url"
	"os"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/internal/wire"
	"github.com/herdbench/herdbench/proxy"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
	"github.com/herdbench/herdbench/target"
	"github.com/herdbench/herdbench/target/model"
)

// countingListener counts the connections a target accepts.
type countingListener struct {
	net.Listener
	n *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// runCounting runs p in a bubble over the in-memory network and returns
// its output and how many connections its targets accepted.
func runCounting(t *testing.T, p *scenarios.Plan) (folder.Output, int64) {
	t.Helper()
	var out folder.Output
	var conns atomic.Int64
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		listen := func(network, addr string) (net.Listener, error) {
			ln, err := n.Listen(network, addr)
			if err != nil {
				return nil, err
			}
			return countingListener{ln, &conns}, nil
		}
		r, err := Start(context.Background(), p, Options{Version: "test", Mode: Mode{NoSimReference: true}, Network: Network{Listen: listen, Dial: n.Dial}})
		if err != nil {
			t.Fatal(err)
		}
		out = r.Wait()
	})
	return out, conns.Load()
}

// attemptsBy returns the attempts of cohort i sent in [from, to), by outcome.
func attemptsBy(out folder.Output, i int, from, to time.Duration) map[results.Outcome]int64 {
	m := map[results.Outcome]int64{}
	tl := out.Cohorts[i].Rec.Timeline(results.Bucket)
	for b, row := range tl.Rows {
		at := time.Duration(b) * results.Bucket
		if at < from || at >= to {
			continue
		}
		for o := results.Outcome(0); o < results.NumOutcomes; o++ {
			if row[o] > 0 {
				m[o] += row[o]
			}
		}
	}
	return m
}

// Over h2c, ten clients share one connection: the target accepts one
// connection for all of them, a crash fails all ten of their requests at
// the same instant, and the next attempts dial once for all of them.
func TestH2CSharedConnectionFailsTogetherOnReset(t *testing.T) {
	p := scenariotest.Plan(t, `
name: shared-reset
duration: 2s
protocol: h2c
connections: {shared: 10}
target: {concurrency: 10, queue: 0, service_time: 1s}
chaos:
  - {kind: outage, mode: reset, at: 500ms, for: 100ms}
workload: {kind: oneshot, clients: 10}
strategies:
  - {name: twice, backoff: constant, base: 200ms, max_attempts: 2}
`, scenarios.Overrides{})
	out, conns := runCounting(t, p)
	r := out.Summary.Runs[0]
	if r.Attempts != 20 || r.Outcomes["reset"] != 10 || r.Outcomes["ok"] != 10 {
		t.Fatalf("%d attempts, outcomes %v; want 20: 10 reset by the crash, 10 retries served", r.Attempts, r.Outcomes)
	}
	// Every first attempt was sent at 0 and failed at the crash: its
	// latency is 500 ms for all ten.
	if h, _ := out.Cohorts[0].Rec.Histograms(); h.Min() < 490_000 || h.Max() > 1_010_000 {
		t.Errorf("latencies from %dµs to %dµs; want 500 ms (the crash) to 1 s (a retry served)", h.Min(), h.Max())
	}
	if conns != 2 {
		t.Errorf("the target accepted %d connections; want 2: one shared before the crash, one after", conns)
	}
}

// A goaway outage over h2c is graceful: the requests in flight when it
// begins finish and are served on their connection, which is then told
// to go away; the attempts during it cannot reconnect (refused); after it
// a new connection serves them. Nothing is lost to a crash.
func TestH2CGoawayLetsInFlightFinish(t *testing.T) {
	p := scenariotest.Plan(t, `
name: shared-goaway
duration: 3s
protocol: h2c
connections: {shared: 10}
target: {concurrency: 10, queue: 0, service_time: 1s}
chaos:
  - {kind: outage, mode: goaway, at: 500ms, for: 1s}
workload: {kind: closed, clients: 10, think: 100ms}
strategies:
  - {name: once, backoff: constant, base: 100ms, max_attempts: 1}
`, scenarios.Overrides{})
	out, conns := runCounting(t, p)
	if got := attemptsBy(out, 0, 0, 500*time.Millisecond); got[results.OK] != 10 || len(got) != 1 {
		t.Errorf("attempts sent before the goaway: %v; want all 10 served", got)
	}
	if got := attemptsBy(out, 0, 500*time.Millisecond, 1500*time.Millisecond); got[results.Refused] == 0 || got[results.OK] != 0 || got[results.Reset] != 0 {
		t.Errorf("attempts sent during the goaway: %v; want every one refused", got)
	}
	if got := attemptsBy(out, 0, 1500*time.Millisecond, 2*time.Second); got[results.OK] != 10 {
		t.Errorf("attempts sent after the goaway: %v; want all 10 served", got)
	}
	if conns != 2 {
		t.Errorf("the target accepted %d connections; want 2: one shared before the goaway, one after", conns)
	}
	if s := out.Summary.Runs[0]; s.Outcomes["reset"] != 0 {
		t.Errorf("outcomes %v: a goaway resets nothing", s.Outcomes)
	}
}

// The built-in outage's headline (no jitter's herd against full jitter's
// trickle) holds over h2c with 10 clients to a connection, in both
// engines.
func TestOutageHeadlineOverH2CShared(t *testing.T) {
	heavy(t, "the real engine on 2,000 clients")
	data, err := os.ReadFile("../scenarios/builtin/outage.yaml")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, "protocol: h2c\nconnections: {shared: 10}\n"...)
	op, err := scenarios.OpenData("outage", data, scenarios.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if p := op.Plans[0]; p.Shared != 10 || p.Protocol.String() != "h2c" {
		t.Fatalf("plan: protocol %v, shared %d", p.Protocol, p.Shared)
	}
	for _, engine := range []string{"simulator", "real"} {
		var pts []Point
		if engine == "simulator" {
			pts = execute(t, op.Plans, Options{Mode: Mode{Sim: true}})
		} else {
			pts = executeInBubble(t, op.Plans, Options{Mode: Mode{NoSimReference: true}})
		}
		claims, _ := scenarios.Headline("outage", pts[0].Output.Summary)
		if len(claims) == 0 {
			t.Fatal("no headline for outage")
		}
		for _, c := range claims {
			t.Logf("%s: %s: %s", engine, c.Text, c.Figure)
			if !c.Holds {
				t.Errorf("%s: %s: %s", engine, c.Text, c.Figure)
			}
		}
	}
}

// Over loopback, protocol h2: the embedded target serves TLS with a
// certificate made at start, the swarm trusts exactly it and negotiates
// HTTP/2 over ALPN, and every request is served.
func TestH2OverTLSOnLoopback(t *testing.T) {
	p := scenariotest.Plan(t, `
name: h2-tls
duration: 1s
protocol: h2
connections: {shared: 4}
target: {concurrency: 16, service_time: 1ms}
workload: {kind: oneshot, clients: 8}
strategies:
  - {name: once, backoff: constant, base: 100ms, max_attempts: 1, timeout: 900ms}
`, scenarios.Overrides{})
	r, err := Start(context.Background(), p, Options{Version: "test", Mode: Mode{NoSimReference: true}})
	if err != nil {
		t.Fatal(err)
	}
	out := r.Wait()
	if s := out.Summary.Runs[0]; s.Attempts != 8 || s.Outcomes["ok"] != 8 {
		t.Fatalf("%d attempts, outcomes %v; want 8 served over h2", s.Attempts, s.Outcomes)
	}
}

// Through the proxy over h2c on loopback: the swarm speaks h2c to the
// proxy, which serves h2c and forwards over h2c to an h2c target; a
// goaway outage at the proxy lets the requests in flight finish.
func TestH2CThroughTheProxy(t *testing.T) {
	up, err := target.Listen(target.Options{Config: model.Config{Concurrency: 16, Queue: 16, QueueTimeout: time.Second, ServiceTime: dist.Const(time.Second)}, Protocol: wire.H2C})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = up.Close() })
	u, _ := url.Parse(up.URL())
	plan, err := chaos.NewPlan([]chaos.Timed{{Name: "drain", Kind: "outage", At: 700 * time.Millisecond, For: 300 * time.Millisecond, Fault: chaos.Outage{Mode: chaos.Goaway}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	px, err := proxy.Start(proxy.Options{Upstream: u, Plan: plan, Protocol: wire.H2C, UpstreamProtocol: wire.H2C})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = px.Close() })
	p := scenariotest.Plan(t, `
name: h2c-proxy
duration: 2s
protocol: h2c
connections: {shared: 8}
target: {url: "`+px.URL()+`/"}
workload: {kind: oneshot, clients: 8}
strategies:
  - {name: once, backoff: constant, base: 100ms, max_attempts: 1, timeout: 1900ms}
`, scenarios.Overrides{})
	r, err := Start(context.Background(), p, Options{Version: "test", Mode: Mode{NoSimReference: true}})
	if err != nil {
		t.Fatal(err)
	}
	out := r.Wait()
	// Sent at 0 (the proxy's 200 ms: the run starts after a lead; up to
	// 500 ms later on a busy machine), in flight when the drain began at
	// 700 ms: all served.
	if s := out.Summary.Runs[0]; s.Attempts != 8 || s.Outcomes["ok"] != 8 {
		t.Fatalf("%d attempts, outcomes %v; want 8 served through the proxy, the drain notwithstanding", s.Attempts, s.Outcomes)
	}
	if n := up.Counters().Answers()[target.AnswerOK]; n != 8 {
		t.Errorf("the upstream served %d; want 8", n)
	}
}
