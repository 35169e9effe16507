package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/herdbench/herdbench/internal/spoken"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
)

// Sweep is a sweep's results folder read back from disk: what its report
// shows. Its figures are sweep.csv's; a point's summary gives the facts
// every point shares (scenario, mode, seed, version).
type Sweep struct {
	Dir     string
	Summary *results.Summary // one point's summary, for the facts; nil if none reads
	Fields  []string         // the swept fields, in the sweep's order
	Rows    []results.SweepRow
	// Scenario is scenario.yaml (nil if the folder has none).
	Scenario []byte
	// Notes are problems that did not stop the report.
	Notes []string
}

// The most LoadSweep reads of sweep.csv: far above what the largest sweep
// writes (1,000 points of 100 cohorts).
const maxSweepBytes = 256 << 20

// IsSweep reports whether dir is a sweep's results folder (it holds
// sweep.csv).
func IsSweep(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "sweep.csv"))
	return err == nil && st.Mode().IsRegular()
}

// LoadSweep reads the sweep's results folder dir.
func LoadSweep(dir string) (*Sweep, error) {
	sw := &Sweep{Dir: dir}
	data, err := folder.ReadRegular(filepath.Join(dir, "sweep.csv"), maxSweepBytes)
	if err != nil {
		return nil, err
	}
	if sw.Fields, sw.Rows, err = folder.DecodeSweep(data); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "sweep.csv"), err)
	}
	if len(sw.Fields) == 0 {
		// A sweep of client counts written before any field could be
		// swept: its one field is the clients column.
		sw.Fields = []string{"workload.clients"}
		for i := range sw.Rows {
			sw.Rows[i].Point = []results.Setting{{Field: "workload.clients", Value: strconv.Itoa(sw.Rows[i].Clients)}}
		}
	}
	if len(sw.Rows) == 0 {
		return nil, fmt.Errorf("%s: no point finished, so there is nothing to draw; its summaries hold what was recorded", filepath.Join(dir, "sweep.csv"))
	}
	names, _ := filepath.Glob(filepath.Join(dir, "summary-*.json"))
	slices.Sort(names)
	for _, n := range names {
		raw, err := folder.ReadRegular(n, maxSummaryBytes)
		if err != nil {
			continue
		}
		if s, err := folder.DecodeSummary(raw); err == nil {
			sw.Summary = s
			break
		}
	}
	if sw.Summary == nil {
		sw.Notes = append(sw.Notes, "No point's summary (summary-*.json) reads: the scenario's name, mode and seed are unknown.")
	}
	if sw.Scenario, err = folder.ReadRegular(filepath.Join(dir, "scenario.yaml"), maxScenarioBytes); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		sw.Notes = append(sw.Notes, "The folder has no scenario.yaml.")
	}
	return sw, nil
}

// axis is one swept field as the charts place it: its distinct values in
// the sweep's order, and where each goes on an axis: at its number (a
// count, a fraction, a duration in seconds) when every value has one,
// else at its index.
type axis struct {
	field  string
	values []string
	at     []float64
	number bool // the values are numbers: a numeric axis
	log    bool // numbers all above 0 spanning two decades or more
}

func newAxis(field string, values []string) axis {
	a := axis{field: field, values: values, at: make([]float64, len(values)), number: true}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, v := range values {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			d, derr := time.ParseDuration(v)
			if derr != nil {
				a.number = false
				break
			}
			x = d.Seconds()
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			a.number = false
			break
		}
		a.at[i] = x
		lo, hi = min(lo, x), max(hi, x)
	}
	if !a.number {
		for i := range a.at {
			a.at[i] = float64(i)
		}
		return a
	}
	a.log = lo > 0 && hi/lo >= 100
	return a
}

// sweepView is what the sweep's charts share: the swept fields as axes,
// the cohorts, and each row's figures by point and cohort.
type sweepView struct {
	sw         *Sweep
	axes       []axis
	strategies []string
	// cell finds the row of a point (its value index on each axis) and
	// strategy.
	cell map[string]*results.SweepRow
}

func newSweepView(sw *Sweep) *sweepView {
	v := &sweepView{sw: sw, cell: map[string]*results.SweepRow{}}
	values := make([][]string, len(sw.Fields))
	for i := range sw.Rows {
		r := &sw.Rows[i]
		for j, st := range r.Point {
			if !slices.Contains(values[j], st.Value) {
				values[j] = append(values[j], st.Value)
			}
		}
		if !slices.Contains(v.strategies, r.Run.Strategy) {
			v.strategies = append(v.strategies, r.Run.Strategy)
		}
	}
	for j, f := range sw.Fields {
		v.axes = append(v.axes, newAxis(f, values[j]))
	}
	for i := range sw.Rows {
		r := &sw.Rows[i]
		idx := make([]int, len(r.Point))
		for j, st := range r.Point {
			idx[j] = slices.Index(values[j], st.Value)
		}
		v.cell[cellKey(idx, r.Run.Strategy)] = r
	}
	return v
}

func cellKey(idx []int, strategy string) string {
	return fmt.Sprint(idx, strategy)
}

// points is how many points the grid of the axes has.
func (v *sweepView) points() int {
	n := 1
	for _, a := range v.axes {
		n *= len(a.values)
	}
	return n
}

// present returns the metrics of names that some row has.
func (v *sweepView) present(names []string) []string {
	var out []string
	for _, n := range names {
		for _, r := range v.sw.Rows {
			if _, ok := r.Run.Stats[n]; ok {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

func (v *sweepView) charts() []chart {
	var out []chart
	lines := v.present(results.SweepLines())
	if len(lines) > 0 {
		for k := range v.axes {
			if k > 0 && len(v.axes) > 2 {
				break // against each of three fields or more, the lines would be too many to read
			}
			out = append(out, v.againstSpec(k, lines).chart())
		}
	}
	if len(v.axes) == 2 {
		for _, m := range v.present(results.SweepHeats()) {
			out = append(out, v.heatChart(m))
		}
	}
	return out
}

// RenderSweep renders a sweep's report: report.html and one PNG per chart.
func RenderSweep(ctx context.Context, sw *Sweep, o Options) ([]File, error) {
	v := newSweepView(sw)
	charts := v.charts()
	svgs, pngs, err := drawCharts(ctx, charts, &o)
	if err != nil {
		return nil, err
	}
	html, err := renderSweepHTML(v, charts, svgs, o)
	if err != nil {
		return nil, err
	}
	return reportFiles(html, charts, pngs, o), nil
}

// figureText writes a figure of metric name as a person reads it.
func figureText(name string, v float64) string {
	m, _ := results.LookupMetric(name)
	switch m.Unit {
	case results.Ratio:
		return strconv.FormatFloat(100*v, 'f', 1, 64) + "%"
	case results.Seconds:
		return strconv.FormatFloat(v, 'f', 2, 64) + " s"
	case results.Millis:
		return msLabel(v)
	case results.Count:
		if v == math.Trunc(v) || math.Abs(v) >= 100 {
			return strconv.FormatFloat(v, 'f', 0, 64)
		}
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// metricTitle names a metric on a chart, with its unit.
func metricTitle(name string) string {
	m, _ := results.LookupMetric(name)
	switch m.Unit {
	case results.Ratio:
		return name + " (%)"
	case results.Seconds:
		return name + " (s)"
	case results.Millis:
		return name + " (ms)"
	}
	return name
}

// renderSweepHTML is a sweep's report.html: a page of its charts, its
// table of figures (Metrics) and its scenario.
func renderSweepHTML(v *sweepView, charts []chart, svgs [][]byte, o Options) ([]byte, error) {
	sw := v.sw
	p := page{Version: o.Version, Scenarios: []scenarioText{{Dir: sw.Dir, YAML: string(sw.Scenario)}}, Notes: sw.Notes}
	name := "sweep"
	sizes := make([]string, len(v.axes))
	for i, a := range v.axes {
		sizes[i] = fmt.Sprintf("%s (%d values)", a.field, len(a.values))
	}
	reps := 1
	if len(sw.Rows) > 0 {
		for _, st := range sw.Rows[0].Run.Stats {
			reps = st.N
			break
		}
	}
	if s := sw.Summary; s != nil {
		name = s.Scenario
		p.Subtitle = s.Description
		p.Facts = append(p.Facts, fmt.Sprintf("%s mode · seed %d · herdbench %s · started %s · %s s · %s workload",
			s.Mode, s.Seed, s.Version, s.Started.UTC().Format("2006-01-02 15:04:05 UTC"), strconv.FormatFloat(s.DurationS, 'f', -1, 64), s.Workload))
	}
	p.Title = fmt.Sprintf("herdbench: %s: a sweep of %s", name, strings.Join(sw.Fields, " × "))
	p.Facts = append(p.Facts, fmt.Sprintf("%d points, every combination of %s · %s · %s of each", v.points(), strings.Join(sizes, " × "), spoken.Count(len(v.strategies), "cohort", "cohorts"), spoken.Count(reps, "repetition", "repetitions")))
	if got := len(sw.Rows); got < v.points()*len(v.strategies) {
		p.Notes = append(p.Notes, fmt.Sprintf("sweep.csv holds %d of the %d rows of a whole grid: an interrupted sweep keeps the points that finished (the summary of the point it cut is beside it, marked partial). Missing points are blank.", got, v.points()*len(v.strategies)))
	}
	if len(v.axes) > 2 {
		p.Notes = append(p.Notes, fmt.Sprintf("With %d swept fields the figures are drawn against the first only (one line per combination of the others), and without heat maps; sweep.csv holds every figure.", len(v.axes)))
	}
	var err error
	if p.inline, err = newInline(pageData(0, charts)); err != nil {
		return nil, err
	}
	p.Figures, p.Metrics = figures(charts, svgs, o), v.table()
	var buf bytes.Buffer
	if err := sweepTemplate.Execute(&buf, p); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return buf.Bytes(), nil
}

// table is sweep.csv's headline figures: a row per point and cohort, each
// figure as mean ± sd.
func (v *sweepView) table() table {
	t := table{Head: append(append([]string(nil), v.sw.Fields...), "strategy", "runs")}
	metrics := v.present(results.SweepLines())
	t.Head = append(t.Head, metrics...)
	for _, r := range v.sw.Rows {
		var rw row
		for j, st := range r.Point {
			if j == 0 {
				rw.Key = st.Value
				continue
			}
			rw.Cells = append(rw.Cells, cell{Text: st.Value})
		}
		runs := 1
		for _, st := range r.Run.Stats {
			runs = st.N
			break
		}
		strategy := cell{Text: r.Run.Strategy}
		if len(r.Point) == 0 {
			rw.Key, strategy = r.Run.Strategy, cell{}
		}
		if strategy.Text != "" {
			rw.Cells = append(rw.Cells, strategy)
		}
		rw.Cells = append(rw.Cells, cell{Text: strconv.Itoa(runs), Numeric: true})
		for _, m := range metrics {
			st, ok := r.Run.Stats[m]
			switch {
			case !ok && m == "recovery_s":
				rw.Cells = append(rw.Cells, cell{Text: "never", Missing: true})
			case !ok:
				rw.Cells = append(rw.Cells, cell{Text: "–", Missing: true})
			case runs > 1:
				rw.Cells = append(rw.Cells, cell{Text: figureText(m, st.Mean) + " ± " + figureText(m, st.SD), Numeric: true})
			default:
				rw.Cells = append(rw.Cells, cell{Text: figureText(m, st.Mean), Numeric: true})
			}
		}
		t.Rows = append(t.Rows, rw)
	}
	return t
}

var sweepTemplate = template.Must(template.Must(baseTemplate.Clone()).New("sweep").Parse(`{{template "head" .}}<nav aria-label="contents"><ul>
{{range .Figures}}<li><a href="#{{.ID}}">{{.Title}}</a></li>
{{end}}<li><a href="#figures">Every point's figures</a></li>
<li><a href="#scenario">The scenario as run</a></li>
</ul></nav>

{{template "charts" .}}
<section id="figures">
<h2>Every point's figures (mean ± sd over the repetitions; sweep.csv has them all)</h2>
<div class="scroll">{{template "table" .Metrics}}</div>
</section>

{{template "scenario" .}}

<footer>Rendered by herdbench {{.Version}} from sweep.csv, a point's summary and scenario.yaml; re-render with <code>herdbench report DIR</code>. This file needs no network.</footer>
</main>
{{template "scripts" .}}</body>
</html>
`))
