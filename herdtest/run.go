package herdtest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/grpcwire"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/results/report"
	"github.com/herdbench/herdbench/results/terminal"
	"github.com/herdbench/herdbench/target/model"
)

// Run runs the cohorts against the scenario's target and chaos plan and
// returns the run's figures. It fails t (Errorf) when a threshold fails,
// when a cohort's code panicked or did not return, and, with
// Options.FailUntrustworthy, when a real-time run's verdict is not
// trustworthy (every real-time run logs its verdict); when it fails, the
// results folder and its report are written and their path logged. It
// stops t at once (Fatalf) when the run cannot start: a bad scenario, one
// herdtest cannot run (an external target, a chain of tiers, a sweep),
// cohorts without names or code.
//
// In virtual time, Run must be called from the test's own goroutine,
// outside any synctest bubble: it makes its own.
func Run(t *testing.T, o Options, cohorts ...Cohort) *results.Summary {
	t.Helper()
	s, err := Measure(t, o, cohorts...)
	if err != nil {
		t.Fatal(err)
	}
	if results.ThresholdsFailed(s.Thresholds) > 0 {
		// RenderThresholds' first line says how many failed: said once.
		var b bytes.Buffer
		_ = terminal.RenderThresholds(&b, s.Thresholds)
		t.Error("herdtest: " + strings.TrimSuffix(b.String(), "\n"))
	}
	return s
}

// Measure is Run without the verdict on the thresholds: it runs the
// cohorts and returns the figures with every threshold checked (in
// Summary.Thresholds, pass or not), for a test that asserts on them
// itself. A panic in a cohort's code, or a request that did not return,
// still fails t, and so does a real-time run's verdict that is not
// trustworthy with Options.FailUntrustworthy. When a threshold failed or
// t did, the results folder and report are written and their path
// logged.
func Measure(t *testing.T, o Options, cohorts ...Cohort) (*results.Summary, error) {
	t.Helper()
	p, err := plan(o, cohorts)
	if err != nil {
		return nil, err
	}
	d := &driver{cohorts: cohorts, grace: o.Grace, probs: &problems{}, virtual: o.Mode != Real,
		grpc: p.Target.Protocol == model.GRPC, method: p.Method}
	if d.grpc && d.method == "" {
		d.method = grpcwire.Method
	}
	if d.grace <= 0 {
		d.grace = 10 * time.Second
	}
	eo := engine.Options{Version: "herdtest", Drive: d.drive}
	var out folder.Output
	switch o.Mode {
	case Real:
		r, err := engine.Start(t.Context(), p, eo)
		if err != nil {
			return nil, err
		}
		out = r.Wait()
	default:
		d.progress = &atomic.Int64{}
		stall := o.Stall
		if stall <= 0 {
			stall = 30 * time.Second
		}
		finished := make(chan struct{})
		go watch(d.progress, finished, stall, p.Duration)
		wall := time.Now() // the bubble's clock starts at 2000-01-01
		var startErr error
		leftover := inBubble(t, func(t *testing.T) {
			n := &memnet.Network{}
			eo.Listen, eo.Dial = n.Listen, n.Dial
			r, err := engine.Start(context.Background(), p, eo)
			if err != nil {
				startErr = err
				return
			}
			out = r.Wait()
		})
		close(finished)
		if startErr != nil {
			return nil, startErr
		}
		if leftover != "" && out.Summary == nil {
			return nil, errors.New("herdtest: the run never ended, its cohorts' code blocked for good: " + leftover)
		}
		if leftover != "" {
			t.Error("herdtest: " + leftover)
		}
		out.Summary.Started = wall.UTC().Truncate(time.Millisecond)
		for i := range out.Cohorts {
			out.Cohorts[i].Started = time.Time{}
		}
	}
	s := out.Summary
	var table bytes.Buffer
	if terminal.RenderTable(&table, s) == nil {
		t.Logf("herdtest: %s, %s, seed %d:\n%s", s.Scenario, o.Mode, s.Seed, table.String())
	}
	// s.Thresholds: engine's Wait checked them (as every run's summary).
	for _, msg := range d.probs.list() {
		t.Error("herdtest: " + msg)
	}
	judge(t, o, s)
	if results.ThresholdsFailed(s.Thresholds) > 0 || t.Failed() {
		dir, err := write(t, o, out)
		if err != nil {
			t.Errorf("herdtest: writing the results folder: %v", err)
		}
		if dir != "" {
			t.Logf("herdtest: the results folder is %s (open report.html in it)", dir)
		}
	}
	return s, nil
}

// judge logs a real-time run's verdict, with the self-check's line and
// warnings when it is not trustworthy, and fails t then with
// Options.FailUntrustworthy. A run in virtual time is never late: nothing
// to say.
func judge(t testing.TB, o Options, s *results.Summary) {
	t.Helper()
	v := s.Verdict
	if o.Mode != Real || v == nil {
		return
	}
	t.Logf("herdtest: verdict: %s", v.Sentence)
	if v.Trusted() {
		return
	}
	t.Logf("herdtest: %s", results.SelfCheckLine(s))
	for _, w := range s.Harness.Warnings {
		t.Logf("herdtest:   - %s", w)
	}
	if o.FailUntrustworthy {
		t.Errorf("herdtest: %s (Options.FailUntrustworthy)", v.Sentence)
	}
}

// write writes a run's results folder and its report into o.Out (or the
// test's artifact folder) and returns its path.
func write(t *testing.T, o Options, out folder.Output) (string, error) {
	base := o.Out
	if base == "" {
		base = defaultOut(t)
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", err
	}
	dir, err := folder.FolderIn(base, out.Summary.Scenario, out.Summary.Started, "")
	if err != nil {
		return "", err
	}
	if err := folder.Write(dir, out); err != nil {
		return "", err
	}
	if err := report.RenderDir(dir, report.Options{Version: "herdtest", NoPNG: true}); err != nil {
		return dir, err
	}
	return dir, nil
}

// defaultOut is where a failing run's folder goes without Options.Out:
// the test's artifact folder with go test -artifacts (kept under
// -outputdir), else a folder under the system's temporary folder, named
// by the test, which outlives the test (t.TempDir and an artifact folder
// without -artifacts are removed when it ends).
func defaultOut(t *testing.T) string {
	if f := flag.Lookup("test.artifacts"); f != nil && f.Value.String() == "true" {
		return t.ArtifactDir()
	}
	name := strings.NewReplacer("/", "_", "\\", "_", ":", "_").Replace(t.Name())
	return filepath.Join(os.TempDir(), "herdtest", name)
}

// watch stops the test process when a virtual-time run's clock stands
// still for stall of wall time before the run's end: something in the
// bubble waits on what the bubble cannot see (a real socket, a timer or
// lock made outside it), so virtual time would never move again.
func watch(progress *atomic.Int64, finished <-chan struct{}, stall, duration time.Duration) {
	tick := time.NewTicker(stall / 10)
	defer tick.Stop()
	last, since := progress.Load(), time.Now()
	for {
		select {
		case <-finished:
			return
		case <-tick.C:
		}
		if now := progress.Load(); now != last {
			last, since = now, time.Now()
			continue
		}
		if time.Since(since) >= stall {
			panic(fmt.Sprintf("herdtest: virtual time has stood still at %s of the run's %s for %s of wall time: "+
				"some code in the test waits on something outside its synctest bubble (a real socket such as http.DefaultClient's, "+
				"a DNS lookup, a timer, channel or lock made outside the test), which virtual time cannot run. "+
				"Over gRPC: a grpc.ClientConn made outside the test, or not by c.DialGRPC (a dns:/// target resolves on the host's network; "+
				"a call that waits for ready on such a channel never ends). "+
				"Use the *http.Client, Transport or Dial herdtest hands each client (over gRPC, c.GRPC or c.DialGRPC), or run it with Mode: herdtest.Real",
				time.Duration(last).Round(time.Millisecond), duration, stall))
		}
	}
}
