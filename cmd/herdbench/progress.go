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
	"github.com/herdbench/herdbench/results"
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

// cohortText is what a cohort's progress says, a function of two of its
// snapshots dt apart (prev the earlier) so that it can be read in a
// table: the attempts completed per second between them and the share
// of those that succeeded ("—" when none completed: a stall shows as
// one, not as the last share seen), and the attempts in flight now (a
// stall's hanging requests). At the end (end true) it says the cohort's
// own figures instead, as the table will: its requests, their success
// ratio (over those that ended) and those unfinished.
func cohortText(prev, cur results.Live, dt time.Duration, end bool) string {
	if end {
		return fmt.Sprintf("done: %d requests, %s success, %d unfinished",
			cur.Requests, ratioText(results.SuccessRatioOf(cur.Succeeded, cur.Failed)), max(0, cur.Requests-cur.Succeeded-cur.Failed))
	}
	n := cur.Attempts - prev.Attempts
	var perS float64
	if dt > 0 {
		perS = float64(n) / dt.Seconds()
	}
	ok := "—"
	if n > 0 {
		ok = fmt.Sprintf("%.1f%%", 100*float64(cur.OK-prev.OK)/float64(n))
	}
	return fmt.Sprintf("%6.0f done/s %6s ok %6d in flight", perS, ok, cur.InFlight)
}

// ratioText writes a success ratio, "—" when it is null.
func ratioText(r *float64) string {
	if r == nil {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", 100**r)
}

// progressTexts turns successive snapshots into each cohort's text
// (cohortText); the bars' decorators read them from mpb's goroutine.
type progressTexts struct {
	prev  engine.Snapshot
	texts []atomic.Pointer[string]
	at    atomic.Pointer[string] // the elapsed time
}

func newProgressTexts(s engine.Snapshot) *progressTexts {
	p := &progressTexts{texts: make([]atomic.Pointer[string], len(s.Cohorts))}
	p.prev = s
	p.update(s, false)
	return p
}

func (p *progressTexts) update(s engine.Snapshot, end bool) {
	dt := s.Elapsed - p.prev.Elapsed
	for i := range p.texts {
		var prev, cur results.Live
		if i < len(p.prev.Cohorts) {
			prev = p.prev.Cohorts[i].Live
		}
		if i < len(s.Cohorts) {
			cur = s.Cohorts[i].Live
		}
		t := cohortText(prev, cur, dt, end)
		p.texts[i].Store(&t)
	}
	at := fmt.Sprintf("%5.1fs", s.Elapsed.Seconds())
	p.at.Store(&at)
	p.prev = s
}

func (p *progressTexts) text(i int) string { return *p.texts[i].Load() }

// showProgress draws progress until the run ends: one mpb bar per cohort
// on a terminal, a plain line every few seconds otherwise. nameW is the
// width of the cohorts' names, the longest of every cohort of the run,
// so that the bars of cohorts run one after the other line up.
func showProgress(ctx context.Context, r *engine.Run, w io.Writer, nameW int) {
	if isTerminal(w) {
		showBars(r, w, nameW)
		return
	}
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	pt := newProgressTexts(r.Snapshot())
	line := func(s engine.Snapshot) string {
		var b strings.Builder
		fmt.Fprintf(&b, "t=%5.1fs", s.Elapsed.Seconds())
		if s.Faults != "" {
			fmt.Fprintf(&b, " [%s]", s.Faults)
		}
		for i, c := range s.Cohorts {
			fmt.Fprintf(&b, "  %s: %s", c.Strategy, strings.TrimSpace(pt.text(i)))
		}
		return b.String()
	}
	for {
		select {
		case <-r.Done():
			s := r.Snapshot()
			pt.update(s, true)
			fmt.Fprintln(w, line(s))
			return
		case <-tick.C:
			s := r.Snapshot()
			pt.update(s, false)
			fmt.Fprintln(w, line(s))
		}
	}
}

func showBars(r *engine.Run, w io.Writer, nameW int) {
	total := r.Plan.Duration.Milliseconds()
	p := mpb.New(mpb.WithOutput(w), mpb.WithWidth(30), mpb.WithRefreshRate(200*time.Millisecond))
	snap := r.Snapshot()
	pt := newProgressTexts(snap)
	var faults atomic.Pointer[string]
	faults.Store(&snap.Faults)
	bars := make([]*mpb.Bar, len(snap.Cohorts))
	for i, c := range snap.Cohorts {
		bars[i] = p.AddBar(total,
			mpb.PrependDecorators(
				decor.Name(c.Strategy, decor.WC{W: max(nameW, len(c.Strategy)) + 1, C: decor.DindentRight}),
				decor.Any(func(decor.Statistics) string { return *pt.at.Load() }),
			),
			mpb.AppendDecorators(
				decor.Any(func(decor.Statistics) string { return " " + pt.text(i) }),
				decor.Any(func(decor.Statistics) string {
					if f := *faults.Load(); f != "" {
						return "  fault: " + f
					}
					return ""
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
		pt.update(s, done)
		faults.Store(&s.Faults)
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
