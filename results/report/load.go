package report

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
)

// Run is one results folder read back from disk: everything its report
// shows.
type Run struct {
	Dir     string
	Label   string // tells runs apart in an overlay, e.g. "before"; set by the caller
	Summary *results.Summary
	Doc     Document // summary.json as an ordered document, for the generic tables
	Cohorts []Cohort // in the order of summary.json's runs
	// Scenario is scenario.yaml, the scenario as run (nil if the folder
	// has none).
	Scenario []byte
	// Notes are problems that did not stop the report, e.g. a missing
	// histogram log; the report shows them.
	Notes []string
	// bin is the step the timelines are read at (timelineBin).
	bin time.Duration
}

// rowBudget is the most rows of every cohort's timeline (and of every
// tier's) a report keeps, about 184 MiB: a run longer than that many 10 ms
// buckets over its cohorts is read at a coarser step (timelineBin), its
// rows summed as they are read, so a day-long or many-cohort timeline of
// hundreds of megabytes is never held whole.
const rowBudget = 1 << 20

// bins are the steps a report may read a timeline at: 10 ms, or steps that
// divide a second, so that its 1 s charts are of 1 s bins.
var bins = []time.Duration{results.Bucket, 20 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond,
	200 * time.Millisecond, 500 * time.Millisecond, time.Second}

// timelineBin is the step a report reads the timelines of a run of
// durationS seconds at, keys of them (cohorts, or cohort and tier pairs):
// the finest of bins that keeps at most rowBudget rows of them all.
func timelineBin(durationS float64, keys int) time.Duration {
	rows := folder.TimelineBuckets(durationS) * max(1, keys)
	for _, b := range bins {
		if rows/int(b/results.Bucket) <= rowBudget {
			return b
		}
	}
	return bins[len(bins)-1]
}

// Cohort is one cohort's saved data.
type Cohort struct {
	Name     string
	Timeline results.Timeline // as saved in timeline.csv (10 ms)
	// Attempt and Request are the latency histograms (microseconds) merged
	// from every interval of the cohort's .hlog; nil without a log.
	Attempt, Request *hdrhistogram.Histogram
	// Upstream is, in a chaos proxy's recording, the time its upstream
	// took, merged likewise; nil otherwise.
	Upstream *hdrhistogram.Histogram
	// Seconds holds each second's latency figures from the .hlog, indexed
	// by interval.
	Seconds []Second
	// Tiers are, for a chain of tiers, each tier's attempts, in order
	// (tiers.go); nil for a single target.
	Tiers []Tier
}

// Second is one interval of a cohort's histogram log.
type Second struct {
	Attempts, Requests                 int64   // values in the interval
	AttemptP99, RequestP50, RequestP99 float64 // milliseconds
}

// The most Load reads of each file of a results folder: well above what a
// run herdbench accepts writes (a day at most; --max-memory bounds the
// rest), far below what would exhaust the memory.
const (
	maxSummaryBytes  = 16 << 20
	maxTimelineBytes = 1 << 30
	maxHlogBytes     = 256 << 20
	maxScenarioBytes = 1 << 20
)

// ErrNotResults is wrapped by Load's errors for a folder that is not a
// run's results folder at all (missing, a file, a folder without
// summary.json or timeline.csv, a sweep's among runs): the user named the
// wrong thing, which the command reports as bad input.
var ErrNotResults = errors.New("not a run's results folder")

// notResults is an error saying msg, which Is ErrNotResults.
type notResults string

func (e notResults) Error() string { return string(e) }
func (e notResults) Unwrap() error { return ErrNotResults }

// notAFolder says what dir is when it is not a results folder a user may
// have meant to name: nothing at all, a file of one (report.html), or the
// --out folder that holds them; "" otherwise.
func notAFolder(dir string) string {
	const which = "name a results folder: the one 'herdbench scenario' printed after \"results:\""
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("%s: no such folder; %s", dir, which)
	case err != nil:
		return ""
	case !fi.IsDir():
		return fmt.Sprintf("%s is a file, not a folder; %s (here %s)", dir, which, filepath.Dir(dir))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "summary.json")); err == nil && e.IsDir() {
			return fmt.Sprintf("%s holds results folders rather than being one; name one of them, e.g. %s", dir, filepath.Join(dir, e.Name()))
		}
	}
	return ""
}

// Load reads the results folder dir. It reads only regular files (never
// blocking on a FIFO or reading a device, also through a link), each up to
// its bound, and refuses figures no run can have (a time past the run's
// end, a duration beyond a day), with a message naming the file.
func Load(dir string) (*Run, error) { return LoadContext(context.Background(), dir) }

// LoadContext is Load, stopping with ctx's error soon after ctx ends
// (between two buffers of the file it reads). The timelines are read as a
// stream, each row checked against the run's summary as it comes, so a
// file with more than its run has is refused before it fills memory.
func LoadContext(ctx context.Context, dir string) (*Run, error) {
	notFound := func(name string) error {
		if msg := notAFolder(dir); msg != "" {
			return notResults(msg)
		}
		if _, serr := os.Stat(filepath.Join(dir, "sweep.csv")); serr == nil {
			return notResults(fmt.Sprintf("%s is a sweep's folder: its figures are in sweep.csv and its report draws them against the swept fields ('herdbench report %s', alone); it cannot be overlaid with runs", dir, dir))
		}
		return notResults(fmt.Sprintf("%s: no %s here; is it a herdbench results folder? (run 'herdbench scenario NAME' to make one)", dir, name))
	}
	read := func(name string, max int64) ([]byte, error) {
		b, err := folder.ReadRegular(filepath.Join(dir, name), max)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, notFound(name)
		}
		return b, err
	}
	raw, err := read("summary.json", maxSummaryBytes)
	if err != nil {
		return nil, err
	}
	r := &Run{Dir: dir, Label: folder.PublishedName(dir)} // a run draws its report in its staging folder
	if r.Summary, err = folder.DecodeSummary(raw); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "summary.json"), err)
	}
	if err := results.CheckSummary(r.Summary); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "summary.json"), err)
	}
	if r.Doc, err = parseDocument(raw); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "summary.json"), err)
	}
	r.bin = timelineBin(r.Summary.DurationS, max(len(r.Summary.Runs), tierKeys(r.Summary)))
	bounds := folder.TimelineBounds{Keys: len(r.Summary.Runs), Rows: folder.TimelineBuckets(r.Summary.DurationS), DurationS: r.Summary.DurationS, Bin: r.bin}
	path := filepath.Join(dir, "timeline.csv")
	csv, err := folder.OpenBounded(ctx, path, maxTimelineBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, notFound("timeline.csv")
	}
	if err != nil {
		return nil, err
	}
	names, timelines, err := folder.ReadTimeline(csv, bounds)
	csv.Close()
	if err == nil {
		err = checkTimelines(names, timelines, r.Summary, r.bin)
	}
	if err != nil {
		return nil, wrapRead(ctx, path, err)
	}
	byName := map[string]results.Timeline{}
	for i, n := range names {
		byName[n] = timelines[i]
	}
	strategies := make([]string, len(r.Summary.Runs))
	for i, s := range r.Summary.Runs {
		strategies[i] = s.Strategy
	}
	for i, name := range folder.HlogNames(strategies) {
		t, ok := byName[strategies[i]]
		if !ok {
			return nil, fmt.Errorf("%s: no rows for cohort %q of summary.json", filepath.Join(dir, "timeline.csv"), strategies[i])
		}
		c := Cohort{Name: strategies[i], Timeline: t}
		start := r.Summary.Started
		if st := r.Summary.Runs[i].Started; st != nil {
			start = *st // a cohort run apart: its log counts from its own t = 0
		}
		if err := c.readLog(ctx, filepath.Join(dir, name), start, r.Summary.DurationS); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			r.Notes = append(r.Notes, fmt.Sprintf("%s has no histogram log (%s): its latency curves are left out.", c.Name, name))
		}
		r.Cohorts = append(r.Cohorts, c)
	}
	if err := r.readTiers(ctx); err != nil {
		return nil, err
	}
	if r.Scenario, err = folder.ReadRegular(filepath.Join(dir, "scenario.yaml"), maxScenarioBytes); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		r.Notes = append(r.Notes, "The folder has no scenario.yaml.")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return r, nil
}

// wrapRead names the file path in err, unless err is ctx's own (an
// interrupt is no problem of the file).
func wrapRead(ctx context.Context, path string, err error) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// readLog merges the intervals of a cohort's histogram log, whose intervals
// count from start, and keeps each second's figures.
func (c *Cohort) readLog(ctx context.Context, path string, start time.Time, durationS float64) error {
	f, err := folder.OpenBounded(ctx, path, maxHlogBytes)
	if err != nil {
		return err
	}
	defer f.Close()
	last := results.LastInterval(durationS)
	c.Attempt = results.NewHistogram()
	c.Request = results.NewHistogram()
	err = folder.ScanHistogramLog(f, start, func(li folder.LoggedInterval) error {
		if li.Index > last {
			return fmt.Errorf("%w: an interval at %d s, after the run's end at %g s", folder.ErrHistogramLog, li.Index, durationS)
		}
		for len(c.Seconds) <= li.Index {
			c.Seconds = append(c.Seconds, Second{})
		}
		sec := &c.Seconds[li.Index]
		ms := func(q float64) float64 { return float64(li.Hist.ValueAtQuantile(q)) / 1000 }
		switch li.Tag {
		case folder.TagAttempt:
			c.Attempt.Merge(li.Hist)
			sec.Attempts = li.Hist.TotalCount()
			sec.AttemptP99 = ms(99)
		case folder.TagRequest:
			c.Request.Merge(li.Hist)
			sec.Requests = li.Hist.TotalCount()
			sec.RequestP50, sec.RequestP99 = ms(50), ms(99)
		case folder.TagUpstream:
			if c.Upstream == nil {
				c.Upstream = results.NewHistogram()
			}
			c.Upstream.Merge(li.Hist)
		}
		return nil
	})
	if err != nil {
		return wrapRead(ctx, path, err)
	}
	return nil
}

// checkTimelines refuses timelines that are not the run's 10 ms ones, read
// at bin: rows apart by another step, or more rows than the run has
// buckets.
func checkTimelines(names []string, timelines []results.Timeline, s *results.Summary, bin time.Duration) error {
	per := int(bin / results.Bucket)
	buckets := folder.TimelineBuckets(s.DurationS)
	for i, t := range timelines {
		if t.Resolution != bin {
			return fmt.Errorf("%w: cohort %s: rows %s apart; timeline.csv has one row per %s", folder.ErrTimeline, names[i], t.Resolution/time.Duration(per), results.Bucket)
		}
		if len(t.Rows) > (buckets+per-1)/per {
			return fmt.Errorf("%w: cohort %s: %d rows, more than the %d of a %g s run", folder.ErrTimeline, names[i], len(t.Rows)*per, buckets, s.DurationS)
		}
	}
	return nil
}

// tierKeys is how many cohort and tier pairs a run's tiers timeline has.
func tierKeys(s *results.Summary) int {
	n := 0
	for _, run := range s.Runs {
		n += len(run.Tiers)
	}
	return n
}
