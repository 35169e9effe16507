package recording

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/spoken"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/target"
)

// KeepOptions are a Keeper's: the recording's, the thresholds its folders
// are checked against, and how a folder is written and the server logs.
type KeepOptions struct {
	// Recording is the recording's; its Faults and Done are the Keeper's.
	Recording Options
	// Thresholds are the scenario's, checked in every folder written.
	Thresholds []results.Threshold
	// Save writes one results folder (the scenario command's end of a
	// run: data, report, published whole) and returns where.
	Save func(folder.Output) (dir string, err error)
	// Logf is the server's log; Warnf says what went wrong (stderr).
	Logf, Warnf func(format string, args ...any)
}

// Keeper is a standalone target's or proxy's recording from its start to
// the server's end: it gives the server the observer, writes every window
// that ends and the recording so far on demand, and counts what failed
// for the exit code.
type Keeper struct {
	rec     *Recording
	o       KeepOptions
	srv     atomic.Pointer[target.Server] // set once listening
	mu      sync.Mutex                    // one folder written at a time
	failed  int                           // threshold checks failed in the folders of ended windows
	written int
	werr    error
}

// Keep starts a server's recording.
func Keep(o KeepOptions) *Keeper {
	k := &Keeper{o: o}
	ro := o.Recording
	ro.Faults = func(from, to time.Time) []chaos.Timed {
		if srv := k.srv.Load(); srv != nil {
			return srv.FaultsBetween(from, to)
		}
		return nil
	}
	ro.Done = k.windowDone
	k.rec = New(ro)
	return k
}

// Recording is the recording kept; nil for a nil Keeper (no recording).
func (k *Keeper) Recording() *Recording {
	if k == nil {
		return nil
	}
	return k.rec
}

// SetRun sets the run's length for the recording (Recording.SetRun); a
// nil Keeper (no recording) ignores it.
func (k *Keeper) SetRun(d time.Duration) {
	if k != nil {
		k.rec.SetRun(d)
	}
}

// Observer is what the server tells of its traffic: nil without a
// recording.
func (k *Keeper) Observer() target.Observer {
	if k == nil {
		return nil
	}
	return k.rec
}

// Listening gives the recording its server, once it listens.
func (k *Keeper) Listening(srv *target.Server) {
	if k != nil {
		k.srv.Store(srv)
	}
}

// Snapshot writes the recording so far (POST /control/results) and returns
// the folder and its summary; ErrNothingRecorded when nothing was.
func (k *Keeper) Snapshot() (string, *results.Summary, error) {
	seg, err := k.rec.Snapshot()
	if err != nil {
		return "", nil, err
	}
	return k.write(seg)
}

// windowDone writes a window that ended (full, or the plan restarted):
// its thresholds count for the exit code.
func (k *Keeper) windowDone(seg Segment) {
	dir, sum, err := k.write(seg)
	k.mu.Lock()
	defer k.mu.Unlock()
	if err != nil {
		k.werr = err
		k.o.Warnf("writing the results of a recording window: %v", err)
		return
	}
	k.written++
	k.failed += results.ThresholdsFailed(sum.Thresholds)
	k.o.Logf("recording window %d ended: results %s%s", sum.Recorded.Segment, dir, ThresholdsText(sum))
}

// ThresholdsText says how many of a folder's thresholds failed, for the
// log: "" without thresholds.
func ThresholdsText(s *results.Summary) string {
	if len(s.Thresholds) == 0 {
		return ""
	}
	return fmt.Sprintf(" (thresholds: %d of %d failed)", results.ThresholdsFailed(s.Thresholds), len(s.Thresholds))
}

// write ends one results folder as the scenario command ends a run:
// thresholds checked, then Save.
func (k *Keeper) write(seg Segment) (string, *results.Summary, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if srv := k.srv.Load(); srv != nil {
		seg.Output.Summary.Recorded.Address = srv.Addr()
	}
	sum := seg.Output.Summary // a recording's, not a run's: its thresholds are checked here
	sum.Thresholds = results.CheckThresholds(sum, k.o.Thresholds, nil)
	dir, err := k.o.Save(seg.Output)
	return dir, sum, err
}

// Ending is how a recording ended, for the exit code.
type Ending int

const (
	// Kept: every folder written, no threshold failed.
	Kept Ending = iota
	// ThresholdsFailed: a threshold failed in a folder, or the scenario
	// had thresholds and nothing was recorded to check them on.
	ThresholdsFailed
	// WriteFailed: a folder could not be written.
	WriteFailed
)

// Last is the recording's last folder, written when the server stops,
// and what failed over the whole recording.
type Last struct {
	Dir     string // "" when nothing was written
	Summary *results.Summary
	Output  folder.Output
	// Failed counts the threshold checks that failed in every folder
	// written; Unchecked the scenario's thresholds when nothing was
	// recorded to check them on (ThresholdsFailed either way).
	Failed, Unchecked int
}

// Finish writes the recording's last results when the server stops and
// says how the whole recording ended: ThresholdsFailed if a threshold
// failed in it or in an ended window (or nothing was recorded to check
// the scenario's thresholds on), WriteFailed if a folder could not be
// written. A nil Keeper (no recording) ends Kept.
func (k *Keeper) Finish() (Last, Ending) {
	if k == nil {
		return Last{}, Kept
	}
	k.rec.Wait() // the windows that ended are written
	if n := k.rec.Late(); n > 0 {
		k.o.Warnf("%s ended after the results of the window they arrived in were written: they are in no results", spoken.Count(n, "answer", "answers"))
	}
	seg, err := k.rec.End()
	if errors.Is(err, ErrNothingRecorded) {
		// k.mu is held only to read written: ending takes it again.
		k.mu.Lock()
		written := k.written
		k.mu.Unlock()
		// A gate that checked nothing fails, but for thresholds that name
		// cohorts (a built-in's claims about its swarm's cohorts): a
		// recording that did not see a cohort does not check them.
		if n := gates(k.o.Thresholds); written == 0 && n > 0 {
			k.o.Warnf("nothing was recorded (no attempt arrived%s), so the scenario's %s checked nothing", k.unstartedText(), spoken.Count(n, "threshold", "thresholds"))
			return Last{Unchecked: n}, ThresholdsFailed
		}
		k.o.Warnf("nothing recorded since the plan's clock last started%s; no results written", k.unstartedText())
		return k.ending(Last{})
	}
	dir, sum, err := k.write(seg)
	last := Last{Dir: dir, Summary: sum, Output: seg.Output}
	if err != nil {
		k.o.Warnf("writing the results: %v", err)
		return last, WriteFailed
	}
	k.mu.Lock()
	k.failed += results.ThresholdsFailed(sum.Thresholds)
	k.mu.Unlock()
	return k.ending(last)
}

func (k *Keeper) unstartedText() string {
	if n := k.rec.Unstarted(); n > 0 {
		return fmt.Sprintf("; %d arrived before the plan's clock started, which --hold keeps until POST /control/start", n)
	}
	return ""
}

// ending is how the recording's results so far end, with last.
func (k *Keeper) ending(last Last) (Last, Ending) {
	k.mu.Lock()
	defer k.mu.Unlock()
	last.Failed = k.failed
	switch {
	case k.werr != nil:
		return last, WriteFailed
	case k.failed > 0:
		return last, ThresholdsFailed
	}
	return last, Kept
}

// gates counts the thresholds a recording checks whatever cohorts it
// sees: those that name no cohort.
func gates(ths []results.Threshold) int {
	n := 0
	for i := range ths {
		if ths[i].Cohort == "" && len(ths[i].Cohorts()) == 0 {
			n++
		}
	}
	return n
}
