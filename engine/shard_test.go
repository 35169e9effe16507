package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
	"github.com/herdbench/herdbench/seeds"
	"github.com/herdbench/herdbench/target"
)

// Clients that do not interact (a target with room for all of them, no
// draws of its own) and faults that act on each request alone.
const shardable = `
name: shardable
duration: 4s
seed: 9
target:
  concurrency: 100000
  queue: 0
  service_time: 4ms
chaos:
  - {name: stall, kind: blip, mode: blackhole, at: 1s, for: 400ms}
  - {name: down, kind: outage, mode: "503", at: 1600ms, for: 600ms}
workload: %s
strategies:
  - {name: no-jitter, backoff: exponential, base: 100ms, cap: 1s, max_attempts: 5, timeout: 300ms}
  - {name: full-jitter, backoff: full, base: 100ms, cap: 1s, max_attempts: 5, timeout: 300ms}
`

// shardedRun runs p in real time over an in-memory network inside a
// synctest bubble, as n shards started for one T0 against one standalone
// target (its plan starting at T0), and returns each shard's output.
func shardedRun(t *testing.T, p *scenarios.Plan, n int) []folder.Output {
	t.Helper()
	outs := make([]folder.Output, n)
	synctest.Test(t, func(t *testing.T) {
		net := &memnet.Network{}
		t0 := time.Now().Add(2 * time.Second)
		srv, err := target.Listen(target.Options{Config: p.Target, Plan: p.Chaos, RNG: seeds.Stream(p.Seed, seeds.Target), Origin: t0, Listen: net.Listen})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		q := *p
		q.TargetURL = "http://" + srv.Addr() + "/"
		var wg sync.WaitGroup
		for k := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := Start(context.Background(), &q, Options{Version: "test", Network: Network{Listen: net.Listen, Dial: net.Dial}, Shard: Shard{Part: clients.Part{Index: k, Of: n}, StartAt: t0}})
				if err != nil {
					t.Error(err)
					return
				}
				if !r.Origin.Equal(t0) {
					t.Errorf("shard %d: t = 0 at %s, want T0 %s", k, r.Origin, t0)
				}
				outs[k] = r.Wait()
			}()
		}
		wg.Wait()
	})
	return outs
}

// TestShardsAddUpToTheWholeRun: the real engine, in virtual time, split
// into 3 shards started for one T0 against one target: the shards'
// timelines added up are the single process's, bucket for bucket, and
// their latency intervals too, for closed and open workloads.
func TestShardsAddUpToTheWholeRun(t *testing.T) {
	for _, w := range []string{"{kind: closed, clients: 31, think: exponential(100ms)}", "{kind: open, rate: 150}"} {
		p := scenariotest.Plan(t, fmt.Sprintf(shardable, w), scenarios.Overrides{})
		whole := shardedRun(t, p, 1)[0]
		shards := shardedRun(t, p, 3)
		for i, c := range whole.Cohorts {
			want := c.Rec.Timeline(results.Bucket)
			var merged results.Timeline
			for k, s := range shards {
				if s.Summary.Shard == nil || s.Summary.Shard.Index != k || s.Summary.Shard.Of != 3 {
					t.Fatalf("shard %d is marked %+v", k, s.Summary.Shard)
				}
				got := s.Cohorts[i].Rec.Timeline(results.Bucket)
				if sum(got.Attempts()) >= sum(want.Attempts()) {
					t.Fatalf("%s: shard %d sent %d attempts, the whole run %d", w, k, sum(got.Attempts()), sum(want.Attempts()))
				}
				for len(merged.Rows) < len(got.Rows) {
					merged.Rows = append(merged.Rows, [results.NumSeries]int64{})
				}
				for b, row := range got.Rows {
					for s, v := range row {
						merged.Rows[b][s] += v
					}
				}
			}
			if len(merged.Rows) != len(want.Rows) {
				t.Fatalf("%s %s: %d rows merged, %d whole", w, c.Strategy, len(merged.Rows), len(want.Rows))
			}
			diffs := 0
			for b := range want.Rows {
				if merged.Rows[b] != want.Rows[b] && diffs < 5 {
					diffs++
					t.Errorf("%s %s at %s: shards %v, whole %v", w, c.Strategy, time.Duration(b)*results.Bucket, merged.Rows[b], want.Rows[b])
				}
			}
			if sum(want.Column(results.SeriesRetry1)) == 0 {
				t.Errorf("%s %s: no retries; the faults did nothing", w, c.Strategy)
			}
			ah, rh := c.Rec.Histograms()
			ma, mr := results.NewHistogram(), results.NewHistogram()
			for _, s := range shards {
				a, r := s.Cohorts[i].Rec.Histograms()
				ma.Merge(a)
				mr.Merge(r)
			}
			if !ma.Equals(ah) || !mr.Equals(rh) {
				t.Errorf("%s %s: the shards' latencies (%d attempts, %d requests) are not the whole run's (%d, %d)", w, c.Strategy, ma.TotalCount(), mr.TotalCount(), ah.TotalCount(), rh.TotalCount())
			}
		}
	}
}

// TestLateStartSendsNothing: a run whose agreed start is past, or too
// close to be ready by, is refused with a *LateError before it opens a
// connection; one with time enough starts exactly at T0.
func TestLateStartSendsNothing(t *testing.T) {
	p := scenariotest.Plan(t, fmt.Sprintf(shardable, "{kind: closed, clients: 40, think: exponential(100ms)}"), scenarios.Overrides{})
	p.Duration = time.Second
	synctest.Test(t, func(t *testing.T) {
		mem := &memnet.Network{}
		srv, err := target.Listen(target.Options{Config: p.Target, Listen: mem.Listen})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		var dials atomic.Int64
		dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return mem.Dial(ctx, network, addr)
		}
		q := *p
		q.TargetURL = "http://" + srv.Addr() + "/"
		need := leadFor(&q, clients.Part{Index: 1, Of: 2})
		for _, at := range []time.Time{time.Now().Add(-3 * time.Second), time.Now(), time.Now().Add(need - time.Millisecond)} {
			r, err := Start(context.Background(), &q, Options{Network: Network{Listen: mem.Listen, Dial: dial}, Shard: Shard{Part: clients.Part{Index: 1, Of: 2}, StartAt: at}})
			var late *LateError
			if r != nil || !errors.As(err, &late) || !errors.Is(err, ErrLate) || late.Need != need {
				t.Fatalf("start at %s: %v, %v; want a *LateError needing %s", time.Until(at), r, err, need)
			}
			if !strings.Contains(err.Error(), "nothing was sent") {
				t.Errorf("the refusal does not say nothing was sent: %v", err)
			}
		}
		if n := dials.Load(); n != 0 {
			t.Fatalf("a late shard opened %d connections", n)
		}
		t0 := time.Now().Add(need)
		r, err := Start(context.Background(), &q, Options{Network: Network{Listen: mem.Listen, Dial: dial}, Shard: Shard{Part: clients.Part{Index: 1, Of: 2}, StartAt: t0}})
		if err != nil {
			t.Fatal(err)
		}
		out := r.Wait()
		if dials.Load() != 2*20 {
			t.Errorf("shard 1/2 of 40 clients in each of 2 cohorts opened %d connections, want 40", dials.Load())
		}
		sh := out.Summary.Shard
		if !out.Summary.Started.Equal(t0.UTC().Truncate(time.Millisecond)) || sh == nil || sh.Clients != 20 || sh.FirstSendMS == nil || *sh.FirstSendMS < 0 {
			t.Errorf("started %s (T0 %s), shard %+v", out.Summary.Started, t0, sh)
		}
	})
}
