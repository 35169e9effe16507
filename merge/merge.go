package merge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/herdbench/herdbench/internal/spoken"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
)

// The most Folders reads of each file of a shard's folder.
const (
	maxSummaryBytes  = 16 << 20
	maxTimelineBytes = 1 << 30
	maxScenarioBytes = 1 << 20
	maxHlogBytes     = 256 << 20
)

// maxListed is the most missing shards a refusal names one by one.
const maxListed = 100

// ErrRefused is wrapped by the error of folders that are not one run's
// shards, each once; a *RefusedError lists every reason.
var ErrRefused = errors.New("merge refused")

// RefusedError is why a set of folders cannot be merged: every problem
// found, each naming the shard or folder concerned.
type RefusedError struct{ Problems []string }

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%v: %s:\n  - %s", ErrRefused, spoken.Count(len(e.Problems), "problem", "problems"), strings.Join(e.Problems, "\n  - "))
}

func (e *RefusedError) Unwrap() error { return ErrRefused }

// Shard is one shard's results folder, read back.
type Shard struct {
	Dir      string
	Summary  *results.Summary
	Scenario []byte // scenario.yaml; nil if the folder has none
}

// Info is the shard's marking.
func (s *Shard) Info() *results.ShardInfo { return s.Summary.Shard }

// Merged is a run merged from its shards.
type Merged struct {
	// Output is the merged run, to write as any run's results folder: its
	// summary (marked Merged, the deferred thresholds checked), its
	// cohorts' restored recorders and the scenario as run.
	Output folder.Output
	// Thresholds are the thresholds the shards deferred, checked against
	// Output's summary (its Thresholds).
	Thresholds []results.Threshold
	Shards     []*Shard // in index order
}

// Expand turns the command's arguments into shard folders: a folder with
// a summary.json is one; a folder without is searched one level down for
// the shards' folders in it (those whose summary.json marks a shard), so
// that the folder every shard wrote into can be named whole.
func Expand(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		if _, err := os.Stat(filepath.Join(a, "summary.json")); err == nil {
			out = append(out, a)
			continue
		}
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a, err)
		}
		found := 0
		for _, e := range entries {
			if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			dir := filepath.Join(a, e.Name())
			raw, err := folder.ReadRegular(filepath.Join(dir, "summary.json"), maxSummaryBytes)
			if err != nil {
				continue
			}
			if s, err := folder.DecodeSummary(raw); err == nil && s.Shard != nil {
				out = append(out, dir)
				found++
			}
		}
		if found == 0 {
			return nil, fmt.Errorf("%s holds no shard's results folder (a folder whose summary.json has \"shard\"); name the shards' folders, or the folder they were written into (herdbench scenario --shard K/N --out DIR)", a)
		}
	}
	return out, nil
}

// Read reads each folder's summary.json and scenario.yaml.
func Read(dirs []string) ([]*Shard, error) {
	var out []*Shard
	for _, dir := range dirs {
		raw, err := folder.ReadRegular(filepath.Join(dir, "summary.json"), maxSummaryBytes)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%s: no summary.json here; is it a herdbench results folder?", dir)
			}
			return nil, err
		}
		s, err := folder.DecodeSummary(raw)
		if err == nil {
			// Its duration bounds every file read after it.
			err = results.CheckSummary(s)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "summary.json"), err)
		}
		sc, err := folder.ReadRegular(filepath.Join(dir, "scenario.yaml"), maxScenarioBytes)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		out = append(out, &Shard{Dir: dir, Summary: s, Scenario: sc})
	}
	return out, nil
}

// Check refuses shards that are not one run's, each once, and returns
// them sorted by index, with the warnings worth saying beside the merged
// figures.
func Check(shards []*Shard) (sorted []*Shard, warnings []string, err error) {
	var problems []string
	refuse := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	var marked []*Shard
	for _, s := range shards {
		if s.Info() == nil {
			refuse("%s is not a shard's results folder (its summary.json has no \"shard\"): herdbench merge combines the folders that the shards of one run wrote (herdbench scenario --shard K/N)", s.Dir)
			continue
		}
		if msg := folder.NameProblem(s.Summary.Scenario); msg != "" {
			// The name starts the merged results folder's name.
			refuse("%s: its summary.json's scenario name is %s", s.Dir, msg)
			continue
		}
		marked = append(marked, s)
	}
	if len(marked) == 0 {
		return nil, nil, &RefusedError{problems}
	}
	sort.SliceStable(marked, func(i, j int) bool { return marked[i].Info().Index < marked[j].Info().Index })
	first := marked[0]
	f := first.Summary
	name := func(s *Shard) string { return fmt.Sprintf("shard %d/%d (%s)", s.Info().Index, s.Info().Of, s.Dir) }
	for _, s := range marked[1:] {
		o := s.Summary
		switch {
		case o.Scenario != f.Scenario:
			refuse("%s ran scenario %q, %s ran %q: merge the shards of one run", name(s), o.Scenario, name(first), f.Scenario)
		case s.Scenario != nil && first.Scenario != nil && !bytes.Equal(s.Scenario, first.Scenario):
			refuse("%s ran another version of scenario %q than %s (their scenario.yaml differ): every shard must run the same file", name(s), o.Scenario, name(first))
		}
		if o.Seed != f.Seed {
			refuse("%s ran with seed %d, %s with seed %d: the shards of one run share its seed", name(s), o.Seed, name(first), f.Seed)
		}
		if !o.Shard.StartAt.Equal(f.Shard.StartAt) {
			refuse("%s started at %s, %s at %s: the shards of one run start at one T0 (--start-at)", name(s), stamp(o.Shard.StartAt), name(first), stamp(f.Shard.StartAt))
		}
		if o.Shard.Of != f.Shard.Of {
			refuse("%s is one of %d shards, %s one of %d: the shards of one run split it the same way (--shard K/N)", name(s), o.Shard.Of, name(first), f.Shard.Of)
		}
		if o.DurationS != f.DurationS || o.Workload != f.Workload || o.Clients != f.Clients || !slices.Equal(strategies(o), strategies(f)) {
			refuse("%s ran %g s of %s, %d clients, cohorts %s; %s ran %g s of %s, %d clients, cohorts %s: the same run has the same duration, workload and cohorts",
				name(s), o.DurationS, o.Workload, o.Clients, strings.Join(strategies(o), ","), name(first), f.DurationS, f.Workload, f.Clients, strings.Join(strategies(f), ","))
		}
		if o.Mode != f.Mode {
			refuse("%s ran in %s time, %s in %s time: merge the shards of one run", name(s), o.Mode, name(first), f.Mode)
		}
		if o.Version != f.Version {
			warnings = append(warnings, fmt.Sprintf("%s ran herdbench %s, %s herdbench %s", name(s), o.Version, name(first), f.Version))
		}
	}
	n := f.Shard.Of
	seen := map[int]*Shard{}
	for _, s := range marked {
		k := s.Info().Index
		if k < 0 || k >= s.Info().Of {
			refuse("%s: index %d is not from 0 to %d", name(s), k, s.Info().Of-1)
			continue
		}
		if prev, dup := seen[k]; dup {
			refuse("shard %d/%d is there twice: %s and %s; name each shard's folder once", k, n, prev.Dir, s.Dir)
			continue
		}
		seen[k] = s
	}
	var missing []string
	if n-len(seen) > maxListed {
		// Not one line per missing shard: n is read from a file.
		refuse("%d shard(s) of %d missing: a merge needs every shard (0 to %d); without one, the figures would be of another run", n-len(seen), n, n-1)
		n = 0
	}
	for k := 0; k < n; k++ {
		if seen[k] == nil {
			missing = append(missing, fmt.Sprint(k))
		}
	}
	if len(missing) > 0 {
		refuse("shard(s) %s of %d missing: a merge needs every shard (0 to %d); without one, the figures would be of another run", strings.Join(missing, ", "), n, n-1)
	}
	for _, s := range marked {
		c := s.Info().Clock
		switch {
		case c == nil:
			warnings = append(warnings, fmt.Sprintf("%s did not measure its clock (it had no --chaos-control): its start is trusted to its own clock", name(s)))
		case math.Abs(c.OffsetMS) > ms(results.MaxClockRefuse):
			refuse("%s: its clock was %s off the target's (± %s); more than %s, so it did not run on the others' schedule: fix the machines' clocks (NTP, chrony) and run again",
				name(s), msText(c.OffsetMS), msText(c.UncertaintyMS), results.MaxClockRefuse)
		case math.Abs(c.OffsetMS) > ms(results.MaxClockWarn):
			warnings = append(warnings, fmt.Sprintf("%s: its clock was %s off the target's (± %s), more than %s: its waves are that far from the others'",
				name(s), msText(c.OffsetMS), msText(c.UncertaintyMS), results.MaxClockWarn))
		}
	}
	if len(problems) > 0 {
		return nil, warnings, &RefusedError{problems}
	}
	return marked, warnings, nil
}

func strategies(s *results.Summary) []string {
	out := make([]string, len(s.Runs))
	for i, r := range s.Runs {
		out[i] = r.Strategy
	}
	return out
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func msText(v float64) string { return fmt.Sprintf("%.3g ms", v) }

// Folders reads, checks and merges the shards' folders dirs (see Expand
// for what a folder may be).
func Folders(dirs []string) (*Merged, []string, error) {
	return FoldersContext(context.Background(), dirs)
}

// FoldersContext is Folders, stopping with ctx's error soon after ctx ends
// (between two buffers of the file it reads).
func FoldersContext(ctx context.Context, dirs []string) (*Merged, []string, error) {
	shards, err := Read(dirs)
	if err != nil {
		return nil, nil, err
	}
	shards, warnings, err := Check(shards)
	if err != nil {
		return nil, warnings, err
	}
	m, err := combine(ctx, shards)
	if err != nil {
		return nil, warnings, err
	}
	m.Output.Summary.Merged.Warnings = warnings
	return m, warnings, nil
}

func combine(ctx context.Context, shards []*Shard) (*Merged, error) {
	f := shards[0].Summary
	duration := time.Duration(math.Round(f.DurationS * float64(time.Second)))
	start := f.Shard.StartAt
	names := strategies(f)
	// A shard that was interrupted ends the merged figures where it
	// stopped: after it, its clients are missing from the sums.
	rows := math.MaxInt
	var ended *float64
	for _, s := range shards {
		if e := s.Summary.EndedS; s.Summary.Partial && e != nil {
			rows = min(rows, int(*e*float64(time.Second)/float64(results.Bucket))+1)
			if ended == nil || *e < *ended {
				v := *e
				ended = &v
			}
		}
	}
	timelines := make([]results.Timeline, len(names))
	intervals := make([][]results.Interval, len(names))
	lags := make([]*hdrhistogram.Histogram, len(names))
	for i := range names {
		lags[i] = results.NewLagHistogram()
	}
	splits := make([][][2]*hdrhistogram.Histogram, len(names)) // per cohort, per shard with a split
	for _, s := range shards {
		if err := addTimelines(ctx, s, names, timelines); err != nil {
			return nil, err
		}
		for i, log := range folder.HlogNames(names) {
			var err error
			if intervals[i], err = addLog(ctx, s, filepath.Join(s.Dir, log), start, intervals[i]); err != nil {
				return nil, err
			}
		}
		if err := addLags(ctx, s, names, start, lags); err != nil {
			return nil, err
		}
		if err := addSplits(ctx, s, names, start, splits); err != nil {
			return nil, err
		}
	}
	sum := *f
	sum.Shard, sum.Thresholds, sum.Runs = nil, nil, nil
	sum.Partial, sum.EndedS = ended != nil, ended
	sum.Started = start.UTC()
	sum.Harness = mergeHarness(shards, lags)
	out := folder.Output{Summary: &sum, Scenario: shards[0].Scenario}
	w := window(f)
	for i, name := range names {
		t := timelines[i]
		if len(t.Rows) > rows {
			t.Rows = t.Rows[:rows]
		}
		rec, err := results.Restore(duration, t, intervals[i])
		if err != nil {
			return nil, fmt.Errorf("cohort %s: %w", name, err)
		}
		if len(splits[i]) > 0 {
			rec.SplitAt(w.LastEnd)
			for _, sp := range splits[i] {
				rec.RestoreAfter(sp[0], sp[1])
			}
		}
		parts := make([]results.Run, len(shards))
		for k, s := range shards {
			parts[k] = s.Summary.Runs[i]
		}
		c := results.Cohort{Strategy: name, Rec: rec, OCC: parts[0].Calls != nil, OneShot: f.Workload == "oneshot"}
		run, err := results.MergeRun(c, w, parts, lags[i])
		if err != nil {
			return nil, err
		}
		if sum.Partial {
			run.CompletionS = nil // the work of the interrupted shard did not end
		}
		sum.Runs = append(sum.Runs, run)
		out.Cohorts = append(out.Cohorts, c)
	}
	judgeHarness(&sum, shards)
	sum.Verdict = mergeVerdict(&sum, shards)
	sum.Merged = mergedInfo(shards)
	m := &Merged{Output: out, Shards: shards}
	for _, d := range f.Shard.Thresholds {
		th, err := results.ParseThreshold(d.Expression)
		if err != nil {
			return nil, fmt.Errorf("%s: a deferred threshold: %w", filepath.Join(shards[0].Dir, "summary.json"), err)
		}
		th.Cohort = d.Cohort
		m.Thresholds = append(m.Thresholds, th)
	}
	sum.Thresholds = results.CheckThresholds(&sum, m.Thresholds, nil) // over every shard's figures
	return m, nil
}

// judgeHarness judges the merged run's harness by its own figures, and
// untrustworthy where a shard's was, with that shard's warnings.
func judgeHarness(sum *results.Summary, shards []*Shard) {
	if sum.Harness == nil {
		return
	}
	results.Judge(sum.Harness, sum.Runs)
	for _, s := range shards {
		if h := s.Summary.Harness; h != nil && !h.Trustworthy {
			sum.Harness.Trustworthy = false
			for _, w := range h.Warnings {
				sum.Harness.Warnings = append(sum.Harness.Warnings, fmt.Sprintf("shard %d: %s", s.Info().Index, w))
			}
		}
	}
}

// window is the span of the run's faults that the figures measure from.
func window(s *results.Summary) results.Window {
	var w results.Window
	for i, f := range s.Faults {
		at, end := secs(f.AtS), secs(f.AtS+f.ForS)
		if i == 0 || at < w.FirstStart {
			w.FirstStart = at
		}
		w.LastEnd = max(w.LastEnd, end)
	}
	return w
}

func secs(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }

// addTimelines adds shard s's 10 ms timelines into sums, cohort by cohort.
// The file is read as a stream, each row checked against the shard's
// summary (its cohorts, the buckets of its duration) as it comes.
func addTimelines(ctx context.Context, s *Shard, names []string, sums []results.Timeline) error {
	path := filepath.Join(s.Dir, "timeline.csv")
	f, err := folder.OpenBounded(ctx, path, maxTimelineBytes)
	if err != nil {
		return err
	}
	defer f.Close()
	d := s.Summary.DurationS
	got, timelines, err := folder.ReadTimeline(f, folder.TimelineBounds{Keys: len(names), Rows: folder.TimelineBuckets(d), DurationS: d})
	if err != nil {
		return wrapRead(ctx, path, err)
	}
	for i, name := range names {
		k := slices.Index(got, name)
		if k < 0 {
			return fmt.Errorf("%s: no rows for cohort %q of its summary.json", path, name)
		}
		t := timelines[k]
		if len(t.Rows) > 1 && t.Resolution != results.Bucket {
			return fmt.Errorf("%s: cohort %s: rows %s apart; a shard's timeline.csv has one row per %s", path, name, t.Resolution, results.Bucket)
		}
		sum := &sums[i]
		sum.Resolution = results.Bucket
		for len(sum.Rows) < len(t.Rows) {
			sum.Rows = append(sum.Rows, [results.NumSeries]int64{})
		}
		for b, row := range t.Rows {
			for c, v := range row {
				sum.Rows[b][c] += v
			}
		}
	}
	return nil
}

// addLog adds a cohort's histogram log, interval by interval.
func addLog(ctx context.Context, s *Shard, path string, start time.Time, into []results.Interval) ([]results.Interval, error) {
	last := results.LastInterval(s.Summary.DurationS)
	err := scanLog(ctx, path, false, start, func(li folder.LoggedInterval) error {
		var err error
		into, err = folder.AddInterval(into, li.Index, last, li.Tag, li.Hist)
		return err
	})
	return into, err
}

// addLags adds a shard's send lags (folder.SendLagLog) into lags; a
// folder without the file adds nothing.
func addLags(ctx context.Context, s *Shard, names []string, start time.Time, lags []*hdrhistogram.Histogram) error {
	tags := folder.HlogNames(names)
	return scanLog(ctx, filepath.Join(s.Dir, folder.SendLagLog), true, start, func(li folder.LoggedInterval) error {
		i := slices.Index(tags, li.Tag+".hlog")
		if i < 0 {
			return fmt.Errorf("%w: an interval whose tag is no cohort's", folder.ErrHistogramLog)
		}
		lags[i].Merge(li.Hist)
		return nil
	})
}

// addSplits adds a shard's latencies after its recorders' split
// (folder.SplitLog) to splits, per cohort: attempt and request. A shard
// without the file had no split.
func addSplits(ctx context.Context, s *Shard, names []string, start time.Time, splits [][][2]*hdrhistogram.Histogram) error {
	tags := folder.HlogNames(names)
	got := make([][2]*hdrhistogram.Histogram, len(names))
	err := scanLog(ctx, filepath.Join(s.Dir, folder.SplitLog), true, start, func(li folder.LoggedInterval) error {
		for i, tag := range tags {
			base := strings.TrimSuffix(tag, ".hlog")
			for k, suffix := range []string{folder.SplitAttempt, folder.SplitRequest} {
				if li.Tag == base+suffix {
					got[i][k] = li.Hist
					return nil
				}
			}
		}
		return fmt.Errorf("%w: an interval whose tag is no cohort's", folder.ErrHistogramLog)
	})
	if err != nil {
		return err
	}
	for i, sp := range got {
		if sp[0] != nil && sp[1] != nil {
			splits[i] = append(splits[i], sp)
		}
	}
	return nil
}

// scanLog reads the histogram log at path (at most maxHlogBytes), handing
// fn each interval, its times from start; a missing file is read as an
// empty one when optional, else it is an error, as is a bad interval
// (its file named).
func scanLog(ctx context.Context, path string, optional bool, start time.Time, fn func(folder.LoggedInterval) error) error {
	f, err := folder.OpenBounded(ctx, path, maxHlogBytes)
	if optional && errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := folder.ScanHistogramLog(f, start, fn); err != nil {
		return wrapRead(ctx, path, err)
	}
	return nil
}

// wrapRead names the file path in err, unless err is ctx's own (an
// interrupt is no problem of the file).
func wrapRead(ctx context.Context, path string, err error) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// mergeHarness adds up the shards' self-checks: their CPU (cores and
// seconds summed, wall time the longest), the limit (the same for one
// scenario) and the send lag of every attempt. nil if no shard has one.
func mergeHarness(shards []*Shard, lags []*hdrhistogram.Histogram) *results.Harness {
	var h *results.Harness
	all := results.NewLagHistogram()
	for _, l := range lags {
		all.Merge(l)
	}
	for _, s := range shards {
		o := s.Summary.Harness
		if o == nil {
			continue
		}
		if h == nil {
			h = &results.Harness{LimitMS: o.LimitMS}
		}
		h.CPU.UserS += o.CPU.UserS
		h.CPU.SysS += o.CPU.SysS
		h.CPU.WallS = max(h.CPU.WallS, o.CPU.WallS)
		h.CPU.Cores += o.CPU.Cores
	}
	if h == nil {
		return nil
	}
	if h.CPU.WallS > 0 && h.CPU.Cores > 0 {
		h.CPU.Utilization = math.Round(1000*(h.CPU.UserS+h.CPU.SysS)/(float64(h.CPU.Cores)*h.CPU.WallS)) / 1000
	}
	h.SendLagMS = results.LagOf(all)
	return h
}

// mergedInfo lists the shards in the merged summary, with the spread of
// their first sends.
func mergedInfo(shards []*Shard) *results.Merged {
	f := shards[0].Info()
	m := &results.Merged{Of: f.Of, StartAt: f.StartAt.UTC()}
	lo, hi, all := math.Inf(1), math.Inf(-1), true
	for _, s := range shards {
		info := *s.Info()
		info.Thresholds = nil
		info.Folder = filepath.Base(filepath.Clean(s.Dir))
		m.Shards = append(m.Shards, info)
		if v := info.FirstSendMS; v != nil {
			lo, hi = min(lo, *v), max(hi, *v)
		} else {
			all = false
		}
	}
	if all {
		spread := math.Round(1000*(hi-lo)) / 1000
		m.StartSpreadMS = &spread
	}
	return m
}

// mergeVerdict returns a merged run's verdict: the worst of its shards'
// (results.MergeVerdicts), or, when a shard has none, the self-check's
// limits on the merged figures (results.Decide without a model).
func mergeVerdict(sum *results.Summary, shards []*Shard) *results.Verdict {
	if sum.Harness == nil {
		return nil
	}
	vs := make([]*results.Verdict, len(shards))
	index := make([]int, len(shards))
	for i, s := range shards {
		vs[i], index[i] = s.Summary.Verdict, s.Info().Index
	}
	v := results.MergeVerdicts(vs, index)
	if v == nil {
		v = results.Decide(sum, nil, results.Remedy{})
	}
	sum.Harness.Trustworthy = v.Trusted()
	return v
}
