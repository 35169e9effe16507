package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/herdbench/herdbench/engine"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"
)

// isTerminal reports whether w is an interactive terminal with a known
// width (bars need one).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return false
	}
	width, _, err := term.GetSize(int(f.Fd()))
	return err == nil && width > 0
}

// rates turns successive snapshots into per-cohort attempts per second.
type rates struct {
	prev  engine.Snapshot
	perS  []float64
	ratio []float64
}

func (r *rates) update(s engine.Snapshot) {
	if len(r.perS) != len(s.Cohorts) {
		r.perS = make([]float64, len(s.Cohorts))
		r.ratio = make([]float64, len(s.Cohorts))
	}
	dt := (s.Elapsed - r.prev.Elapsed).Seconds()
	for i, c := range s.Cohorts {
		var p int64
		var pOK int64
		if i < len(r.prev.Cohorts) {
			p, pOK = r.prev.Cohorts[i].Attempts, r.prev.Cohorts[i].OK
		}
		if dt > 0 {
			r.perS[i] = float64(c.Attempts-p) / dt
		}
		if n := c.Attempts - p; n > 0 {
			r.ratio[i] = float64(c.OK-pOK) / float64(n)
		}
	}
	r.prev = s
}

// showProgress draws progress until the run ends: one mpb bar per cohort
// on a terminal, a plain line every few seconds otherwise.
func showProgress(ctx context.Context, r *engine.Run, w io.Writer) {
	if isTerminal(w) {
		showBars(r, w)
		return
	}
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	var rt rates
	for {
		select {
		case <-r.Done():
			return
		case <-tick.C:
			s := r.Snapshot()
			rt.update(s)
			var b strings.Builder
			fmt.Fprintf(&b, "t=%5.1fs", s.Elapsed.Seconds())
			if s.Faults != "" {
				fmt.Fprintf(&b, " [%s]", s.Faults)
			}
			for i, c := range s.Cohorts {
				fmt.Fprintf(&b, "  %s: %.0f attempts/s, %.0f%% ok", c.Strategy, rt.perS[i], 100*rt.ratio[i])
			}
			fmt.Fprintln(w, b.String())
		}
	}
}

func showBars(r *engine.Run, w io.Writer) {
	total := r.Plan.Duration.Milliseconds()
	p := mpb.New(mpb.WithOutput(w), mpb.WithWidth(30), mpb.WithRefreshRate(200*time.Millisecond))
	var rt rates
	snap := r.Snapshot()
	rt.update(snap)
	bars := make([]*mpb.Bar, len(snap.Cohorts))
	for i, c := range snap.Cohorts {
		i := i
		bars[i] = p.AddBar(total,
			mpb.PrependDecorators(
				decor.Name(c.Strategy, decor.WCSyncSpaceR),
				decor.Any(func(decor.Statistics) string {
					return fmt.Sprintf("%5.1fs", rt.prev.Elapsed.Seconds())
				}),
			),
			mpb.AppendDecorators(
				decor.Any(func(decor.Statistics) string {
					return fmt.Sprintf("%6.0f attempts/s %5.1f%% ok", rt.perS[i], 100*rt.ratio[i])
				}, decor.WCSyncSpace),
				decor.Any(func(decor.Statistics) string {
					if rt.prev.Faults == "" {
						return ""
					}
					return "  fault: " + rt.prev.Faults
				}),
			),
		)
	}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-r.Done():
			done = true
		case <-tick.C:
		}
		s := r.Snapshot()
		rt.update(s)
		for _, b := range bars {
			b.SetCurrent(s.Elapsed.Milliseconds())
		}
	}
	for _, b := range bars {
		b.SetTotal(-1, true)
	}
	p.Wait()
}

// countBar shows how far a batch of runs has gone (a sweep's simulated
// cohort runs): an mpb bar with the time left on a terminal, a line every
// few seconds otherwise. set may be called from several goroutines.
type countBar struct {
	w     io.Writer
	what  string
	tty   bool
	mu    sync.Mutex
	p     *mpb.Progress
	bar   *mpb.Bar
	done  atomic.Int64
	total atomic.Int64
	quit  chan struct{}
	ended sync.WaitGroup
}

func newCountBar(w io.Writer, what string) *countBar {
	b := &countBar{w: w, what: what, tty: isTerminal(w), quit: make(chan struct{})}
	if b.tty {
		return b
	}
	b.ended.Add(1)
	go func() {
		defer b.ended.Done()
		tick := time.NewTicker(5 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-b.quit:
				return
			case <-tick.C:
				if t := b.total.Load(); t > 0 {
					fmt.Fprintf(w, "%s: %d of %d\n", what, b.done.Load(), t)
				}
			}
		}
	}()
	return b
}

// set records that done of total runs have ended.
func (b *countBar) set(done, total int) {
	b.total.Store(int64(total))
	if int64(done) > b.done.Load() {
		b.done.Store(int64(done))
	}
	if !b.tty {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar == nil {
		b.p = mpb.New(mpb.WithOutput(b.w), mpb.WithWidth(30), mpb.WithRefreshRate(200*time.Millisecond))
		b.bar = b.p.AddBar(int64(total),
			mpb.PrependDecorators(decor.Name(b.what, decor.WCSyncSpaceR), decor.CountersNoUnit("%d / %d", decor.WCSyncSpace)),
			mpb.AppendDecorators(decor.OnComplete(decor.AverageETA(decor.ET_STYLE_GO), "done")),
		)
	}
	b.bar.SetCurrent(b.done.Load())
}

// stop ends the display: the bar is completed (or abandoned, if the runs
// were interrupted) and the line printer stopped.
func (b *countBar) stop() {
	close(b.quit)
	b.ended.Wait()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar != nil {
		if !b.bar.Completed() {
			b.bar.Abort(false)
		}
		b.p.Wait()
	}
}
