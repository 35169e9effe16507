package recording

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/target"
)

// keeping is a Keeper's test double: the folders it saved and what it
// logged and warned.
type keeping struct {
	mu     sync.Mutex
	saved  []*results.Summary
	fail   error // Save's error
	logs   []string
	warned []string
}

func (k *keeping) options(ths ...string) KeepOptions {
	var thresholds []results.Threshold
	for _, e := range ths {
		th, err := results.ParseThreshold(e)
		if err != nil {
			panic(err)
		}
		thresholds = append(thresholds, th)
	}
	return KeepOptions{
		Recording:  Options{Window: 10 * time.Second},
		Thresholds: thresholds,
		Save: func(out folder.Output) (string, error) {
			k.mu.Lock()
			defer k.mu.Unlock()
			if k.fail != nil {
				return "", k.fail
			}
			k.saved = append(k.saved, out.Summary)
			return fmt.Sprintf("runs/%d", len(k.saved)), nil
		},
		Logf: func(f string, a ...any) { k.mu.Lock(); k.logs = append(k.logs, fmt.Sprintf(f, a...)); k.mu.Unlock() },
		Warnf: func(f string, a ...any) {
			k.mu.Lock()
			k.warned = append(k.warned, fmt.Sprintf(f, a...))
			k.mu.Unlock()
		},
	}
}

// TestKeeperEndings: how a server's recording ends, for its exit code:
// every folder written and every threshold held; a threshold failed in an
// ended window or in the last folder; thresholds and nothing recorded to
// check them on; a folder that could not be written. And no recording
// (a nil Keeper) ends kept.
func TestKeeperEndings(t *testing.T) {
	if last, end := (*Keeper)(nil).Finish(); end != Kept || last.Dir != "" {
		t.Errorf("no recording: %v %q, want Kept and no folder", end, last.Dir)
	}
	for _, c := range []struct {
		name      string
		until     time.Duration // traffic from 0 to this (0: none)
		threshold string
		fail      error
		want      Ending
		saved     int
		failed    int // threshold checks failed over the recording
		unchecked int
		warn      string
	}{
		{name: "held", until: 5 * time.Second, threshold: "attempts >= 1", want: Kept, saved: 1},
		{name: "failed in the last folder", until: 5 * time.Second, threshold: "attempts < 1", want: ThresholdsFailed, saved: 1, failed: 1},
		{name: "failed in an ended window", until: 15 * time.Second, threshold: "attempts < 60", want: ThresholdsFailed, saved: 2, failed: 1},
		{name: "nothing to check", threshold: "attempts >= 1", want: ThresholdsFailed, unchecked: 1, warn: "checked nothing"},
		{name: "nothing recorded, claims about cohorts it never saw (a built-in's)", threshold: "herd_factor[no-jitter] >= 5 * herd_factor[full-jitter]", want: Kept, warn: "no results written"},
		{name: "nothing, no thresholds", want: Kept, warn: "no results written"},
		{name: "write failed", until: 5 * time.Second, fail: errors.New("disk full"), want: WriteFailed, warn: "disk full"},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				kk := &keeping{fail: c.fail}
				var ths []string
				if c.threshold != "" {
					ths = append(ths, c.threshold)
				}
				k := Keep(kk.options(ths...))
				t0 := time.Now()
				k.Recording().PlanStarted(t0)
				for at := time.Duration(0); at < c.until; at += 100 * time.Millisecond {
					time.Sleep(time.Until(t0.Add(at)))
					k.Observer().Observe(obs(t0, at, time.Millisecond, "x", target.AnswerOK))
				}
				last, end := k.Finish()
				if end != c.want || last.Failed != c.failed || last.Unchecked != c.unchecked {
					t.Errorf("ended %v with %d failed and %d unchecked, want %v, %d, %d", end, last.Failed, last.Unchecked, c.want, c.failed, c.unchecked)
				}
				if len(kk.saved) != c.saved || (c.saved > 0) != (last.Dir != "") {
					t.Errorf("saved %d folders, the last %q; want %d", len(kk.saved), last.Dir, c.saved)
				}
				if c.warn != "" && !strings.Contains(strings.Join(kk.warned, "\n"), c.warn) {
					t.Errorf("warned %q, want %q in it", kk.warned, c.warn)
				}
				if c.warn == "" && len(kk.warned) > 0 {
					t.Errorf("warned %q, want nothing", kk.warned)
				}
			})
		})
	}
}
