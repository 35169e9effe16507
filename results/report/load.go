package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/herdbench/herdbench/results"
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
}

// Cohort is one cohort's saved data.
type Cohort struct {
	Name     string
	Timeline results.Timeline // as saved in timeline.csv (10 ms)
	// Attempt and Request are the latency histograms (microseconds) merged
	// from every interval of the cohort's .hlog; nil without a log.
	Attempt, Request *hdrhistogram.Histogram
	// Seconds holds each second's latency figures from the .hlog, indexed
	// by interval.
	Seconds []Second
}

// Second is one interval of a cohort's histogram log.
type Second struct {
	Attempts, Requests                 int64   // values in the interval
	AttemptP99, RequestP50, RequestP99 float64 // milliseconds
}

// Load reads the results folder dir.
func Load(dir string) (*Run, error) {
	read := func(name string) ([]byte, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			if _, serr := os.Stat(filepath.Join(dir, "sweep.csv")); serr == nil {
				return nil, fmt.Errorf("%s is a sweep's folder (--clients with several counts): its figures are in sweep.csv and summary-clients-N.json; a report is drawn for one run (run the scenario with one --clients count)", dir)
			}
			return nil, fmt.Errorf("%s: no %s here; is it a herdbench results folder? (run 'herdbench scenario NAME' to make one)", dir, name)
		}
		return b, err
	}
	raw, err := read("summary.json")
	if err != nil {
		return nil, err
	}
	r := &Run{Dir: dir, Label: filepath.Base(filepath.Clean(dir))}
	if r.Summary, err = results.DecodeSummary(raw); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "summary.json"), err)
	}
	if r.Doc, err = parseDocument(raw); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "summary.json"), err)
	}
	csv, err := read("timeline.csv")
	if err != nil {
		return nil, err
	}
	names, timelines, err := results.DecodeTimeline(csv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "timeline.csv"), err)
	}
	byName := map[string]results.Timeline{}
	for i, n := range names {
		byName[n] = timelines[i]
	}
	strategies := make([]string, len(r.Summary.Runs))
	for i, s := range r.Summary.Runs {
		strategies[i] = s.Strategy
	}
	for i, name := range results.HlogNames(strategies) {
		t, ok := byName[strategies[i]]
		if !ok {
			return nil, fmt.Errorf("%s: no rows for cohort %q of summary.json", filepath.Join(dir, "timeline.csv"), strategies[i])
		}
		c := Cohort{Name: strategies[i], Timeline: t}
		if err := c.readLog(filepath.Join(dir, name), r.Summary); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			r.Notes = append(r.Notes, fmt.Sprintf("%s has no histogram log (%s): its latency curves are left out.", c.Name, name))
		}
		r.Cohorts = append(r.Cohorts, c)
	}
	if r.Scenario, err = os.ReadFile(filepath.Join(dir, "scenario.yaml")); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		r.Notes = append(r.Notes, "The folder has no scenario.yaml.")
	}
	return r, nil
}

// readLog merges the intervals of a cohort's histogram log and keeps each
// second's figures.
func (c *Cohort) readLog(path string, s *results.Summary) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	c.Attempt = results.NewHistogram()
	c.Request = results.NewHistogram()
	err = results.ScanHistogramLog(f, s.Started, func(li results.LoggedInterval) error {
		for len(c.Seconds) <= li.Index {
			c.Seconds = append(c.Seconds, Second{})
		}
		sec := &c.Seconds[li.Index]
		ms := func(q float64) float64 { return float64(li.Hist.ValueAtQuantile(q)) / 1000 }
		switch li.Tag {
		case results.TagAttempt:
			c.Attempt.Merge(li.Hist)
			sec.Attempts = li.Hist.TotalCount()
			sec.AttemptP99 = ms(99)
		case results.TagRequest:
			c.Request.Merge(li.Hist)
			sec.Requests = li.Hist.TotalCount()
			sec.RequestP50, sec.RequestP99 = ms(50), ms(99)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
