package engine

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/spoken"
	"github.com/herdbench/herdbench/scenarios"
)

// ErrTooMuchMemory is wrapped by the error of a run whose estimated memory
// is above the limit: it is refused before anything starts.
var ErrTooMuchMemory = errors.New("this run needs more memory than allowed")

// What the parts of a run cost, measured on this code (docs/limits.md has
// the commands): a whole CLI process's peak resident memory, fitted over
// runs of 1 to 4 cohorts, 3 s to 50 min and 100 to a million clients.
const (
	// memBase is the process itself: the runtime, the libraries, the
	// report's fonts.
	memBase = 60 << 20
	// memPerWrittenSecond is one second of one cohort whose timeline is
	// written: its 10 ms timeline (23 series × 100 buckets × 8 bytes),
	// its latency intervals, and the copies that writing timeline.csv
	// and drawing report.html make.
	memPerWrittenSecond = 100 << 10
	// memPerRecorderSecond is one second of a recorder that is only
	// summarized (repetitions and sweeps): its timeline (18.4 KB), the
	// attempts and successes it keeps per bucket as it records (1.6 KB)
	// and its intervals.
	memPerRecorderSecond = 20 << 10
	// memPerRealCohort is a real-time cohort's fixed part: its recorder's
	// shards, each with two dense latency histograms.
	memPerRealCohort = 4 << 20
	// memPerRealClient is a real-time client: its goroutine, its
	// connection's buffers, and the embedded target's side of it.
	// Measured (cmd/herdbench's TestMemoryEstimateIsHonest, 2 cohorts of
	// 1,500 clients for 2 s): peaks of 187 to 205 MiB in eight runs,
	// 41 to 47 KB a client above the rest of the estimate.
	memPerRealClient = 42 << 10
	// memPerGRPCCaller is a real-time client of a gRPC target beside its
	// channel: its goroutine and its calls' state, and the embedded
	// target's side of its calls. Measured (docs/limits.md): a cohort of
	// 500 and of 1,500 clients on one channel, 34 KB a client between
	// the two peaks.
	memPerGRPCCaller = 34 << 10
	// memPerGRPCChannel is a grpc-go channel (a ClientConn connected to
	// the embedded target: its goroutines, its HTTP/2 transport's
	// buffers) and the target's side of its connection. Measured: the
	// same cohorts with a channel per client, 149 KB a client, less the
	// caller's.
	memPerGRPCChannel = 115 << 10
	// memPerSimClient is a simulated client: its slot in the slab, its
	// random stream, its policies' state and its events in the queue.
	// Measured (2026-12-03, the queue's buckets doubling): the outage at
	// 1M clients a cohort peaks at 1,019 to 1,093 MiB, at 300,000 at 301
	// to 307 MiB (two cohorts at once on 2 cores), 10M in one cohort at
	// 3.6 GiB.
	memPerSimClient = 512
	// memPerSimChannel is a simulated grpc-go channel's state.
	memPerSimChannel = 64
	// memPerCohortRun is the figures of one cohort run kept until the
	// end, for repetitions and sweeps.
	memPerCohortRun = 2 << 10
	// memRequestHead is what a filled request takes beside its body: the
	// request line, headers and Content-Length, with room to spare.
	memRequestHead = 4 << 10
)

// bodyGrowth is how much more than its bytes a client's buffer of a filled
// request holds at most: the buffer grows by appending the request's runs
// and placeholders, and Go grows a large slice by a quarter at a time.
const bodyGrowth = 1.25

// MemoryEstimate is the memory a run of plans will take at its peak, by
// part, in bytes. It is an estimate from the run's shape, not a bound:
// TestMemoryEstimateIsHonest in cmd/herdbench holds a whole process's
// measured peak within 0.5 to 1.25 of it (0.66 to 1.02 when last
// measured), except for open workloads, whose clients in flight are
// counted as if none ever got an answer before its strategy gave up.
type MemoryEstimate struct {
	Total     uint64
	Timelines uint64 // 10 ms timelines and latency intervals, and writing them
	Clients   uint64 // the clients of the cohorts that run at once
	Bodies    uint64 // of Clients, the request bodies they fill and send (real time over HTTP)
	Runs      uint64 // the figures of every cohort run, kept for the summary
}

// EstimateMemory estimates what Execute(plans, o) will take.
func EstimateMemory(plans []*scenarios.Plan, o Options) MemoryEstimate {
	reps := uint64(max(1, o.Runs))
	var e MemoryEstimate
	var cohortRuns uint64
	for _, p := range plans {
		cohortRuns += uint64(len(p.Strategies)) * reps
	}
	e.Runs = sat(cohortRuns, memPerCohortRun)
	if o.Sim {
		workers := uint64(o.Workers)
		if workers == 0 {
			workers = uint64(runtime.GOMAXPROCS(0))
		}
		workers = max(1, min(workers, cohortRuns))
		var scratch, slab, kept uint64
		for _, p := range plans {
			secs := sat(seconds(p.Duration), tiersOf(p)) // a recorder per tier
			scratch = max(scratch, sat(secs, memPerRecorderSecond))
			slab = max(slab, add(sat(add(inFlight(p), tierCalls(p)), memPerSimClient), sat(mostChannels(p), memPerSimChannel)))
			if o.Timelines {
				kept = add(kept, sat(sat(secs, uint64(len(p.Strategies))), memPerWrittenSecond))
			}
		}
		// Each worker runs one cohort at a time, with its own slab and
		// scratch recorder; the first repetitions' recorders are kept.
		e.Timelines = add(kept, sat(workers, scratch))
		e.Clients = sat(workers, slab)
	} else {
		// Points and repetitions run one after another, every cohort of
		// one at once; the first repetition's recorders are kept.
		var peakClients, peakTimelines uint64
		for _, p := range plans {
			cohorts := uint64(len(p.Strategies))
			secs := sat(seconds(p.Duration), tiersOf(p))
			perSecond := uint64(memPerRecorderSecond)
			if o.Timelines {
				perSecond = memPerWrittenSecond
			}
			peakTimelines = max(peakTimelines, add(sat(cohorts, memPerRealCohort), sat(sat(cohorts, secs), perSecond)))
			if c := realClients(p); c > peakClients {
				peakClients = c
				e.Bodies = 0
				if !p.GRPC {
					e.Bodies = realBodies(p)
				}
			}
		}
		e.Timelines, e.Clients = peakTimelines, peakClients
	}
	e.Total = add(add(add(memBase, e.Timelines), e.Clients), e.Runs)
	return e
}

// CheckMemory refuses a run whose estimate is above limit (0: no limit).
// what names the limit for the message, e.g. "--max-memory 12 GiB (half of
// this machine's memory)".
func CheckMemory(plans []*scenarios.Plan, o Options, limit uint64, what string) error {
	e := EstimateMemory(plans, o)
	if limit == 0 || e.Total <= limit {
		return nil
	}
	p := plans[0]
	clientsText := fmt.Sprintf("%d clients", p.Workload.Clients)
	if p.Workload.Kind == clients.Open {
		clientsText = fmt.Sprintf("up to %d arrivals in flight", inFlight(p))
	}
	if p.GRPC {
		var chans uint64
		for i := range p.Strategies {
			chans = add(chans, grpcChannels(p, &p.Strategies[i]))
		}
		clientsText += fmt.Sprintf(" on %s (connections: {shared: K} puts K clients on one)", spoken.Count(chans, "grpc-go channel", "grpc-go channels"))
	}
	smaller := ""
	if e.Bodies > 0 {
		clientsText += fmt.Sprintf(", of which %s their request bodies (each client fills a request with a placeholder into its own buffer)", size(e.Bodies))
		smaller = ", smaller request bodies (or bodies without placeholders, prepared once for a cohort)"
	}
	return fmt.Errorf("%w: about %s (the process itself %s; timelines %s for %s over %s at %s resolution; clients %s for %s; kept figures %s), above %s. "+
		"Shorten it (--duration), run fewer cohorts (--strategies), clients (--clients), repetitions (--runs) or sweep points%s, "+
		"or raise --max-memory if this machine has the memory to spare",
		ErrTooMuchMemory, size(e.Total), size(memBase), size(e.Timelines), spoken.Count(len(p.Strategies), "cohort", "cohorts"), p.Duration, "10ms", size(e.Clients), clientsText, size(e.Runs), what, smaller)
}

// inFlight is how many clients of one cohort of p exist at once: all of
// them for closed and oneshot workloads; for an open one, the arrivals of
// the longest time one can last (every attempt timing out, every wait at
// the cap), up to the whole run.
func inFlight(p *scenarios.Plan) uint64 {
	if p.Workload.Kind != clients.Open {
		return uint64(max(0, p.Workload.Clients))
	}
	run := p.Duration.Seconds()
	life := 0.0 // in seconds, where up to a million attempts cannot overflow
	for _, s := range p.Strategies {
		if s.MaxAttempts == 0 || s.Timeout == 0 {
			life = run
			break
		}
		n := float64(s.MaxAttempts)
		life = max(life, n*s.Timeout.Seconds()+(n-1)*s.Backoff.Cap.Seconds())
	}
	life = min(life, run)
	n := p.Workload.PeakRate()*life + 1
	if !(n < 1<<53) {
		return 1 << 53
	}
	return uint64(n)
}

// realClients is what the clients of every cohort of p take at once in
// real time: over HTTP, a connection per client and the requests it fills
// (requestBytes); over gRPC, a caller per client and the channels they
// share (grpcChannels).
func realClients(p *scenarios.Plan) uint64 {
	cohorts := uint64(len(p.Strategies))
	if !p.GRPC {
		return add(sat(sat(cohorts, add(inFlight(p), tierCalls(p))), memPerRealClient), realBodies(p))
	}
	n := sat(sat(cohorts, inFlight(p)), memPerGRPCCaller)
	for i := range p.Strategies {
		n = add(n, sat(grpcChannels(p, &p.Strategies[i]), memPerGRPCChannel))
	}
	return n
}

// realBodies is what the requests of every cohort of p take at once in
// real time over HTTP (requestBytes): a part of realClients.
func realBodies(p *scenarios.Plan) uint64 {
	var n uint64
	for i := range p.Strategies {
		perClient, perCohort := requestBytes(p.Strategies[i].Requests)
		n = add(n, add(sat(inFlight(p), perClient), perCohort))
	}
	return n
}

// requestBytes is what the requests of a cohort's mix take in its
// clients' memory (clients.Swarm): a request with no placeholder is
// prepared once for the cohort, body included (perCohort); one with a
// placeholder in its path, headers or body is filled, body included, into
// each client's own buffer, which keeps the largest (perClient). A mix of
// large bodies with placeholders is what makes a real run's memory grow
// with its clients beyond their connections: 300 clients of a 6 MiB body
// with a {uuid} hold 1.8 GiB.
func requestBytes(m *clients.Mix) (perClient, perCohort uint64) {
	if m == nil {
		return 0, 0
	}
	for _, r := range m.Requests {
		size := uint64(len(r.Body)) + memRequestHead
		if !r.Templated() {
			perCohort = add(perCohort, size)
			continue
		}
		perClient = max(perClient, uint64(float64(size)*bodyGrowth))
	}
	return perClient, perCohort
}

// grpcChannels is how many grpc-go channels the cohort of strategy s of p
// opens, as the swarm's gRPC transport opens them: one per connections.shared
// clients (one per client by default), one for the whole cohort when a
// grpc-go cohort's throttler is the cohort's (channel: cohort), one for
// an open workload's arrivals; none over HTTP.
func grpcChannels(p *scenarios.Plan, s *clients.Strategy) uint64 {
	if !p.GRPC {
		return 0
	}
	if p.Workload.Kind == clients.Open {
		return 1
	}
	n := max(0, p.Workload.Clients)
	per := max(1, p.Shared)
	if s.GRPC != nil && s.Budget != nil && s.Budget.Scope.Shared() {
		per = max(1, n)
	}
	return uint64(max(1, (n+per-1)/per))
}

// mostChannels is the most grpc-go channels one cohort of p opens.
func mostChannels(p *scenarios.Plan) uint64 {
	var most uint64
	for i := range p.Strategies {
		most = max(most, grpcChannels(p, &p.Strategies[i]))
	}
	return most
}

// tiersOf is how many tiers each cohort of p has: 1 for a single target.
func tiersOf(p *scenarios.Plan) uint64 { return uint64(max(1, len(p.Tiers))) }

// tierCalls is how many calls the middle tiers of one cohort of p have
// in flight at most: one per slot of each tier that calls another.
func tierCalls(p *scenarios.Plan) uint64 {
	var n uint64
	for k := 0; k+1 < len(p.Tiers); k++ {
		n = add(n, uint64(max(0, p.Tiers[k].Target.Concurrency)))
	}
	return n
}

// seconds is d in whole seconds, rounded up.
func seconds(d time.Duration) uint64 {
	return uint64((max(d, 0) + time.Second - 1) / time.Second)
}

// sat multiplies without overflow, saturating at the largest uint64.
func sat(a, b uint64) uint64 {
	if a != 0 && b > ^uint64(0)/a {
		return ^uint64(0)
	}
	return a * b
}

// add adds without overflow.
func add(a, b uint64) uint64 {
	if a > ^uint64(0)-b {
		return ^uint64(0)
	}
	return a + b
}

// size writes a byte count for people: "63 GiB".
func size(b uint64) string { return humanize.IBytes(b) }
