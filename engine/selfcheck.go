package engine

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
)

// selfCheck is what a real-time run measured of the harness itself: how
// late each cohort's attempts were sent (its recorder keeps that), how late
// each embedded target ended the waits its model set, and the CPU the
// process used. Repetitions add up (merge); apply puts the result into a
// summary and judges it (results.Judge).
type selfCheck struct {
	limit   time.Duration
	figures results.Figures
	lag     []*hdrhistogram.Histogram // per cohort, microseconds
	drift   []*hdrhistogram.Histogram // per cohort; nil for an external target
	spread  [][]results.EdgeSpread    // per cohort, per crash of the plan

	userS, sysS, wallS float64
	cores              int
	load               *float64 // the load average when the first run started

	began time.Time
	ru    syscall.Rusage
}

// beginCheck starts measuring a run of p.
func beginCheck(p *scenarios.Plan) *selfCheck {
	ts := timescales(p)
	c := &selfCheck{limit: results.Limit(ts), figures: ts.Figures, cores: runtime.GOMAXPROCS(0), load: loadAverage()}
	c.began = time.Now()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &c.ru)
	return c
}

// end takes the run's figures, once every cohort has stopped and every
// target has closed.
func (c *selfCheck) end(cohorts []*cohort) {
	c.wallS = time.Since(c.began).Seconds()
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		c.userS = timevalS(ru.Utime) - timevalS(c.ru.Utime)
		c.sysS = timevalS(ru.Stime) - timevalS(c.ru.Stime)
	}
	for _, k := range cohorts {
		c.lag = append(c.lag, k.rec.SendLag())
		c.spread = append(c.spread, k.rec.Spread())
		var d *hdrhistogram.Histogram
		if k.target != nil {
			d = k.target.Drift()
		}
		if k.chain != nil { // every tier's lateness counts
			for _, srv := range k.chain.servers[:len(k.chain.servers)-1] {
				d.Merge(srv.Drift())
			}
		}
		c.drift = append(c.drift, d)
	}
}

func timevalS(t syscall.Timeval) float64 {
	return float64(t.Sec) + float64(t.Usec)/1e6
}

// merge adds another repetition's figures to c.
func (c *selfCheck) merge(o *selfCheck) {
	c.userS += o.userS
	c.sysS += o.sysS
	c.wallS += o.wallS
	for i := range min(len(c.lag), len(o.lag)) {
		c.lag[i].Merge(o.lag[i])
		if c.drift[i] != nil && o.drift[i] != nil {
			c.drift[i].Merge(o.drift[i])
		}
		for e := range min(len(c.spread[i]), len(o.spread[i])) {
			c.spread[i][e].H.Merge(o.spread[i][e].H)
		}
	}
}

// join adds the figures of a run of the next cohorts (cohorts run apart)
// to c.
func (c *selfCheck) join(o *selfCheck) {
	c.userS += o.userS
	c.sysS += o.sysS
	c.wallS += o.wallS
	c.lag = append(c.lag, o.lag...)
	c.drift = append(c.drift, o.drift...)
	c.spread = append(c.spread, o.spread...)
}

// apply writes the self-check into s (its runs in cohort order) and
// judges it.
func (c *selfCheck) apply(s *results.Summary) {
	h := &results.Harness{
		Figures: c.figures,
		LimitMS: float64(c.limit) / float64(time.Millisecond),
		CPU: results.CPU{
			UserS: round3(c.userS), SysS: round3(c.sysS), WallS: round3(c.wallS),
			Cores: c.cores, LoadAvg1m: c.load,
		},
	}
	if c.wallS > 0 && c.cores > 0 {
		h.CPU.Utilization = round3((c.userS + c.sysS) / (float64(c.cores) * c.wallS))
	}
	allLag, allDrift := results.NewLagHistogram(), results.NewLagHistogram()
	var allSpread []results.EdgeSpread
	hasDrift := false
	for i := range min(len(c.lag), len(s.Runs)) {
		s.Runs[i].SendLagMS = results.LagOf(c.lag[i])
		allLag.Merge(c.lag[i])
		s.Runs[i].SpreadMS, s.Runs[i].SpreadEvents = results.SpreadOf(c.spread[i])
		allSpread = append(allSpread, c.spread[i]...)
		if d := c.drift[i]; d != nil {
			s.Runs[i].TargetDriftMS = results.LagOf(d)
			allDrift.Merge(d)
			hasDrift = true
		}
	}
	h.SendLagMS = results.LagOf(allLag)
	h.SpreadMS, _ = results.SpreadOf(allSpread)
	if hasDrift {
		h.TargetDriftMS = results.LagOf(allDrift)
	}
	results.Judge(h, s.Runs)
	s.Harness = h
}

// timescales are what p's figures depend on (results.Limit): what its
// headline rests on (scenarios.HeadlineFigures; waves for a scenario
// without one, counts for one without faults, which has no waves to
// smear), its strategies' backoff bases, its target's queue timeout and
// its network's mean hop.
func timescales(p *scenarios.Plan) results.Timescales {
	ts := results.Timescales{Figures: scenarios.HeadlineFigures(p.Name), QueueTimeout: p.Target.QueueTimeout}
	if !hasFaults(p) {
		ts.Figures = results.Counts
	}
	for _, st := range p.Strategies {
		ts.Bases = append(ts.Bases, st.Backoff.Base)
	}
	ts.Hop = p.Target.Network.Mean()
	return ts
}

// crashEdges returns the instants at which plan ends every attempt in
// flight at once: where its outage mode turns to one that crashes (a
// reset or refuse outage begins), as the target applies it
// (target.Server's runPlan). A blackhole's end releases nothing by itself
// (the requests it holds wait for their client's timeout, or a crash) and
// an outage's end answers nobody (each client finds out at its next
// attempt, on its own schedule, which the send lag measures).
func crashEdges(plan *chaos.Plan) []time.Duration {
	var edges []time.Duration
	prev := chaos.NoOutage
	for _, seg := range plan.Segments() {
		if o := seg.Effect.Outage; o != prev {
			if o.Crashes() && seg.Start > 0 {
				edges = append(edges, seg.Start)
			}
			prev = o
		}
	}
	return edges
}

// loadAverage returns the machine's one-minute load average, or nil where
// /proc/loadavg does not say (not Linux).
func loadAverage() *float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil
	}
	f, _, _ := bytes.Cut(b, []byte(" "))
	v, err := strconv.ParseFloat(string(f), 64)
	if err != nil {
		return nil
	}
	return &v
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }
