package engine

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
)

// selfCheck is what a real-time run measured of the harness itself: how
// late each cohort's attempts were sent (its recorder keeps that), how late
// each embedded target ended the waits its model set, and the CPU the
// process used. Repetitions add up (merge); apply puts the result into a
// summary and judges it (results.Judge).
type selfCheck struct {
	limit time.Duration
	lag   []*hdrhistogram.Histogram // per cohort, microseconds
	drift []*hdrhistogram.Histogram // per cohort; nil for an external target

	userS, sysS, wallS float64
	cores              int
	load               *float64 // the load average when the first run started

	began time.Time
	ru    syscall.Rusage
}

// beginCheck starts measuring a run of p.
func beginCheck(p *scenarios.Plan) *selfCheck {
	c := &selfCheck{limit: lagLimit(p), cores: runtime.GOMAXPROCS(0), load: loadAverage()}
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
}

// apply writes the self-check into s (its runs in cohort order) and
// judges it.
func (c *selfCheck) apply(s *results.Summary) {
	h := &results.Harness{
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
	hasDrift := false
	for i := range min(len(c.lag), len(s.Runs)) {
		s.Runs[i].SendLagMS = results.LagOf(c.lag[i])
		allLag.Merge(c.lag[i])
		if d := c.drift[i]; d != nil {
			s.Runs[i].TargetDriftMS = results.LagOf(d)
			allDrift.Merge(d)
			hasDrift = true
		}
	}
	h.SendLagMS = results.LagOf(allLag)
	if hasDrift {
		h.TargetDriftMS = results.LagOf(allDrift)
	}
	results.Judge(h, s.Runs)
	s.Harness = h
}

// lagLimit is the lateness p's figures tolerate (results.LagLimit): a
// tenth of its strategies' smallest backoff base, at most 10 ms.
func lagLimit(p *scenarios.Plan) time.Duration {
	bases := make([]time.Duration, len(p.Strategies))
	for i, st := range p.Strategies {
		bases[i] = st.Backoff.Base
	}
	return results.LagLimit(bases)
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
