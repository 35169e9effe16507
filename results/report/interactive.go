package report

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/herdbench/herdbench/results"
	"gonum.org/v1/plot/vg"
)

// The report draws its time series in the browser with uPlot: charts.js
// (its API is at its top) reads the page's data, a chartsData as JSON, and
// draws every chartSpec into the element of the same id. The PNGs beside
// the report are still drawn in Go, from the same timelines.

// chartsData is what charts.js's mount reads: the counts, run-length
// encoded (see rle), and the charts that draw them.
type chartsData struct {
	DurationS float64 `json:"duration_s"`
	// Series are counts per bucket, each referenced by its index from a
	// chartSeries' Data.
	Series [][]int64    `json:"series"`
	Charts []*chartSpec `json:"charts"`
}

// chartSpec is one interactive chart: a panel, or one per cohort sharing
// its cursor and zoom. charts.js documents each field.
type chartSpec struct {
	ID         string      `json:"id"`
	Title      string      `json:"title,omitempty"`
	YLabel     string      `json:"ylabel,omitempty"`
	XLabel     string      `json:"xlabel,omitempty"`
	Height     int         `json:"height"`
	ResS       float64     `json:"res_s,omitempty"`
	MaxBinS    float64     `json:"max_bin_s,omitempty"`
	Bins       int         `json:"bins,omitempty"`
	Log        bool        `json:"log,omitempty"`
	X          []float64   `json:"x,omitempty"`
	XRange     []float64   `json:"x_range,omitempty"`
	XLog       bool        `json:"x_log,omitempty"`
	XTicks     []xTick     `json:"x_ticks,omitempty"`
	Points     bool        `json:"points,omitempty"`
	Group      string      `json:"group,omitempty"`
	SyncLegend bool        `json:"sync_legend,omitempty"`
	Columns    int         `json:"columns,omitempty"`
	Panels     []chartPane `json:"panels"`

	caption string // the page's caption, when the PNG's does not fit
}

type xTick struct {
	Value float64 `json:"value"`
	Label string  `json:"label"`
}

type chartPane struct {
	Title      string        `json:"title,omitempty"`
	YLabel     string        `json:"ylabel,omitempty"`
	Stacked    bool          `json:"stacked,omitempty"`
	Faults     []chartFault  `json:"faults,omitempty"`
	FaultNames bool          `json:"fault_names,omitempty"`
	Series     []chartSeries `json:"series"`
}

type chartFault struct {
	Name string  `json:"name"`
	AtS  float64 `json:"at_s"`
	ForS float64 `json:"for_s"`
}

type chartSeries struct {
	Label  string     `json:"label"`
	Color  string     `json:"color"`
	Dash   []float64  `json:"dash,omitempty"`
	Width  float64    `json:"width,omitempty"`
	Fill   string     `json:"fill,omitempty"`
	Data   *int       `json:"data,omitempty"`
	Values []*float64 `json:"values,omitempty"`
	SD     []float64  `json:"sd,omitempty"`
	Ref    *chartRef  `json:"ref,omitempty"`
}

// chartRef is a level drawn across a panel: the simulator's peak beside
// the real run's attempts.
type chartRef struct {
	Label string  `json:"label"`
	Value float64 `json:"value"`
}

// rle run-length encodes counts for charts.js's decode: a count is itself;
// a run of k more equal counts after it is -k.
func rle(counts []int64) []int64 {
	var out []int64
	for i := 0; i < len(counts); {
		j := i + 1
		for j < len(counts) && counts[j] == counts[i] {
			j++
		}
		out = append(out, counts[i])
		if n := j - i - 1; n == 1 {
			out = append(out, counts[i])
		} else if n > 1 {
			out = append(out, -int64(n))
		}
		i = j
	}
	return out
}

func hexColor(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

func rgbaColor(c color.Color, alpha float64) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("rgba(%d,%d,%d,%.2f)", r>>8, g>>8, b>>8, alpha)
}

func dashOf(d []vg.Length) []float64 {
	out := make([]float64, len(d))
	for i, l := range d {
		out[i] = math.Round(l.Points()*1.33*10) / 10 // points to CSS pixels
	}
	return out
}

func faultsOf(fs []results.FaultWindow) []chartFault {
	out := make([]chartFault, len(fs))
	for i, f := range fs {
		out[i] = chartFault{Name: f.Name, AtS: f.AtS, ForS: f.ForS}
	}
	return out
}

// seriesTable collects the counts the charts reference, each once.
type seriesTable struct {
	data  *chartsData
	index map[string]int
}

// add returns the index of the counts named key, made by counts() the
// first time.
func (st *seriesTable) add(key string, counts func() []int64) *int {
	i, ok := st.index[key]
	if !ok {
		i = len(st.data.Series)
		st.data.Series = append(st.data.Series, rle(counts()))
		st.index[key] = i
	}
	return &i
}

func column(t results.Timeline, f func(row *[results.NumSeries]int64) int64) []int64 {
	out := make([]int64, len(t.Rows))
	for i := range t.Rows {
		out[i] = f(&t.Rows[i])
	}
	return out
}

// interactive returns the page's chart data: a spec for each time-series
// chart of charts (by ID), drawn by charts.js instead of the chart's SVG.
// The attempts are embedded at the timelines' own resolution (10 ms), so
// zooming in reaches single buckets; the other time series at the waves'
// resolution.
func (v *view) interactive(charts []chart) *chartsData {
	data := &chartsData{DurationS: v.duration.Seconds()}
	st := &seriesTable{data: data, index: map[string]int{}}
	fine := fineResolution(v.duration, v.base)
	base := max(v.base, results.Bucket)
	timeline := func(e entry, res time.Duration) results.Timeline { return rebin(e.cohort.Timeline, res) }
	attempts := func(e entry) *int {
		return st.add("attempts/"+e.label, func() []int64 { return column(timeline(e, base), attemptsOf) })
	}
	cohortPanels := func(spec *chartSpec, fill func(e entry, i int) chartPane) {
		for i, e := range v.entries {
			p := fill(e, i)
			p.Title = e.label
			p.Faults = faultsOf(e.run.Summary.Faults)
			p.FaultNames = i == 0
			spec.Panels = append(spec.Panels, p)
		}
	}
	layered := func(id string, layers []layer, e entry) []chartSeries {
		var out []chartSeries
		for _, ly := range layers {
			out = append(out, chartSeries{Label: ly.name, Color: hexColor(ly.color), Fill: hexColor(ly.color), Width: 0.5,
				Data: st.add(id+"/"+ly.name+"/"+e.label, func() []int64 { return column(timeline(e, fine), ly.count) })})
		}
		return out
	}
	for _, c := range charts {
		if c.Empty {
			continue // its SVG: empty axes with a note
		}
		var spec *chartSpec
		switch c.ID {
		case "attempts_1s":
			spec = &chartSpec{ID: c.ID, Title: "Attempts per second, every cohort", YLabel: "attempts / s", Height: 280, ResS: base.Seconds(), MaxBinS: 1, Bins: 60,
				caption: "Calls sent to the target per second (first tries and retries, any outcome), every cohort on one scale. Zoomed out, the bins are wide and average the waves out; zoom in and they narrow to the recorded " + resText(base) + " buckets, where synchronized retries stand out as spikes. " +
					"Shaded: the fault windows. Dotted, where the run has them: the simulator's peak attempts per second for the same plan and seed (runs[].sim; the simulator's timeline is not saved, only its figures).",
				Panels: []chartPane{{Faults: faultsOf(v.faults), FaultNames: true}}}
			for _, e := range v.entries {
				s := chartSeries{Label: e.label, Color: hexColor(e.color), Dash: dashOf(e.dashes), Width: 1.6, Data: attempts(e)}
				if e.index < len(e.run.Summary.Runs) {
					if peak, ok := e.run.Summary.Runs[e.index].Sim.Get("peak_attempts_per_s"); ok {
						s.Ref = &chartRef{Label: "sim peak, " + e.label, Value: peak}
					}
				}
				spec.Panels[0].Series = append(spec.Panels[0].Series, s)
			}
		case "attempts_100ms":
			spec = &chartSpec{ID: c.ID, Title: "Attempts per second, one panel per cohort (same scale)", YLabel: "attempts / s", Height: 170, ResS: base.Seconds(), MaxBinS: fine.Seconds(), Bins: 600,
				caption: fmt.Sprintf("The same attempts, %s bins zoomed out and down to %s zoomed in, one cursor across the panels. Retries without jitter leave in lockstep: tall narrow spikes, spaced by the backoff and growing apart as it doubles (a sawtooth of waves), each one hitting a recovering service at once. "+
					"With jitter the same retries spread into a smooth, decaying curve. Shaded: the fault windows.", resText(fine), resText(base))}
			cohortPanels(spec, func(e entry, _ int) chartPane {
				return chartPane{Series: []chartSeries{{Label: e.label, Color: hexColor(e.color), Fill: rgbaColor(e.color, 0.25), Width: 1, Data: attempts(e)}}}
			})
		case "attempts_by_number":
			spec = &chartSpec{ID: c.ID, Title: "Attempts by attempt number, per second (stacked)", YLabel: "attempts / s", Height: 170, ResS: fine.Seconds(), MaxBinS: fine.Seconds(), Bins: 600, SyncLegend: true}
			cohortPanels(spec, func(e entry, _ int) chartPane {
				return chartPane{Stacked: true, Series: layered(c.ID, attemptLayers, e)}
			})
		case "outcomes":
			layers := v.outcomeLayers()
			spec = &chartSpec{ID: c.ID, Title: "Attempts by outcome, per second (stacked)", YLabel: "attempts / s", Height: 170, ResS: fine.Seconds(), MaxBinS: fine.Seconds(), Bins: 600, SyncLegend: true}
			cohortPanels(spec, func(e entry, _ int) chartPane {
				return chartPane{Stacked: true, Series: layered(c.ID, layers, e)}
			})
		case "requests":
			spec = &chartSpec{ID: c.ID, Title: "Requests completed per second: succeeded and gave up", YLabel: "requests / s", Height: 170, ResS: fine.Seconds(), MaxBinS: fine.Seconds(), Bins: 600, SyncLegend: true}
			cohortPanels(spec, func(e entry, _ int) chartPane {
				var out []chartSeries
				for _, ly := range []layer{
					{"succeeded", outcomeColors[results.OK], seriesOf(results.SeriesSucceeded)},
					{"gave up (failed)", outcomeColors[results.HTTP5xx], seriesOf(results.SeriesFailed)},
				} {
					out = append(out, chartSeries{Label: ly.name, Color: hexColor(ly.color), Width: 1.4,
						Data: st.add(c.ID+"/"+ly.name+"/"+e.label, func() []int64 { return column(timeline(e, fine), ly.count) })})
				}
				return chartPane{Series: out}
			})
		case "tiers_1s":
			spec = &chartSpec{ID: c.ID, Title: "Attempts that reached each tier, per second, one panel per cohort (same scale)", YLabel: "attempts / s", Height: 170, ResS: base.Seconds(), MaxBinS: 1, Bins: 300, SyncLegend: true}
			cohortPanels(spec, func(e entry, _ int) chartPane {
				var out []chartSeries
				for k, tier := range e.cohort.Tiers {
					out = append(out, chartSeries{Label: tier.Name, Color: hexColor(tierColors[k%len(tierColors)]), Width: 1.3,
						Data: st.add("tier/"+tier.Name+"/"+e.label, func() []int64 { return column(rebin(tier.Timeline, base), attemptsOf) })})
				}
				return chartPane{Series: out}
			})
		case "latency_over_time":
			spec = v.latencyOverTimeSpec(c.ID)
		}
		if spec != nil {
			if spec.Title == "" {
				spec.Title = c.Title
			}
			data.Charts = append(data.Charts, spec)
		}
	}
	return data
}

// latencyOverTimeSpec is each second's p99, a gap where a second had no
// value, on a log axis.
func (v *view) latencyOverTimeSpec(id string) *chartSpec {
	attempts := v.requestLatencyUnmeasured()
	n := 0
	for _, e := range v.entries {
		n = max(n, len(e.cohort.Seconds))
	}
	spec := &chartSpec{ID: id, YLabel: "p99", Height: 300, Log: true, X: make([]float64, n),
		XRange: []float64{0, max(v.duration.Seconds(), float64(n))}, Panels: []chartPane{{Faults: faultsOf(v.faults), FaultNames: true}}}
	for i := range n {
		spec.X[i] = float64(i) + 0.5
	}
	for _, e := range v.entries {
		vals := make([]*float64, n)
		for i, s := range e.cohort.Seconds {
			cnt, p99 := s.Requests, s.RequestP99
			if attempts {
				cnt, p99 = s.Attempts, s.AttemptP99
			}
			if cnt > 0 {
				x := math.Round(max(p99, minMs)*1000) / 1000
				vals[i] = &x
			}
		}
		spec.Panels[0].Series = append(spec.Panels[0].Series, chartSeries{Label: e.label, Color: hexColor(e.color), Dash: dashOf(e.dashes), Width: 1.5, Values: vals})
	}
	return spec
}

// marshalData is data as JSON for a <script type="application/json">, a
// line per series and per chart so a diff of the page stays readable:
// encoding/json escapes <, > and &, so the text cannot end the element.
func marshalData(data *chartsData) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, `{"duration_s":%s,`, strconv.FormatFloat(data.DurationS, 'f', -1, 64))
	list := func(name string, n int, item func(i int) any) error {
		fmt.Fprintf(&b, "\n%q:[", name)
		for i := range n {
			j, err := json.Marshal(item(i))
			if err != nil {
				return fmt.Errorf("report: chart data: %w", err)
			}
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
			b.Write(j)
		}
		b.WriteString("]")
		return nil
	}
	if err := list("series", len(data.Series), func(i int) any { return data.Series[i] }); err != nil {
		return "", err
	}
	b.WriteByte(',')
	if err := list("charts", len(data.Charts), func(i int) any { return data.Charts[i] }); err != nil {
		return "", err
	}
	b.WriteString("}")
	if strings.Contains(b.String(), "</") {
		return "", fmt.Errorf("report: chart data would end its script element")
	}
	return b.String(), nil
}

// interactive returns the sweep page's chart data: each chart of figures
// against a swept field (sweep_K) as one uPlot panel per figure, a line
// per cohort and combination of the other fields; the heat maps stay SVG.
func (v *sweepView) interactive(charts []chart) *chartsData {
	data := &chartsData{}
	lines := v.present(results.SweepLines())
	for _, c := range charts {
		var k int
		if _, err := fmt.Sscanf(c.ID, "sweep_%d", &k); err != nil || k < 1 || k > len(v.axes) {
			continue
		}
		k--
		a := v.axes[k]
		order := make([]int, len(a.at)) // the values by position on the axis
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(a.at[x], a.at[y]) })
		spec := &chartSpec{ID: c.ID, Title: c.Title, XLabel: a.field, Height: 220, Points: true, XLog: a.log, Group: c.ID, Columns: 2, SyncLegend: true}
		for _, i := range order {
			spec.X = append(spec.X, a.at[i])
			spec.XTicks = append(spec.XTicks, xTick{Value: a.at[i], Label: a.values[i]})
		}
		lo, hi := slicesMinMax(a.at)
		if a.log {
			spec.XRange = []float64{lo / 1.15, hi * 1.15}
		} else {
			pad := max((hi-lo)*0.04, 0.5*float64(min(1, len(a.at)-1)))
			if pad == 0 {
				pad = 0.5
			}
			spec.XRange = []float64{lo - pad, hi + pad}
		}
		ss := v.seriesAgainst(k)
		for _, m := range lines {
			p := chartPane{Title: metricTitle(m)}
			for _, s := range ss {
				cs := chartSeries{Label: s.label, Color: hexColor(s.color), Dash: dashOf(s.dashes), Width: 1.4,
					Values: make([]*float64, len(order)), SD: make([]float64, len(order))}
				idx := append([]int(nil), s.others...)
				for j, i := range order {
					idx[k] = i
					y, sd, ok := v.figure(idx, s.strategy, m)
					if !ok {
						continue
					}
					cs.Values[j], cs.SD[j] = &y, sd
				}
				p.Series = append(p.Series, cs)
			}
			spec.Panels = append(spec.Panels, p)
		}
		data.Charts = append(data.Charts, spec)
	}
	return data
}
