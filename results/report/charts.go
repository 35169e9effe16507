package report

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/herdbench/herdbench/internal/charts"

	"github.com/herdbench/herdbench/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// chart is one figure of the report: drawn with gonum/plot into any canvas
// (SVG for the HTML, PNG beside it).
type chart struct {
	ID      string // names the PNG file (<ID>.png) and the HTML anchor
	Title   string
	Caption string // how to read it
	W, H    vg.Length
	draw    func(dc draw.Canvas)
	// Empty is set when the chart has no data to draw (no .hlog files): the
	// report shows its empty axes with a note, but no PNG copy is written.
	Empty bool
	// spec is the chart as data, when the page draws it too (with uPlot);
	// nil for a chart drawn in Go alone (SVG in the page).
	spec *spec
}

// Sizes: the SVG scales to the page; the PNG is W at pngDPI.
const (
	chartW     = 9 * vg.Inch
	lineH      = 3.4 * vg.Inch
	panelH     = 1.45 * vg.Inch
	titleSpace = 26 // points above tiled panels for the chart's title
)

// Liberation Sans: embedded in gonum/plot for the PNGs, and metric-compatible
// with Arial/Helvetica, which the HTML falls back to.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// entry is one cohort of one run, as a chart draws it.
type entry struct {
	run    *Run
	cohort *Cohort
	index  int // of the cohort in its run
	label  string
	color  color.Color
	dashes []vg.Length
}

// view is what every chart shares: the entries in drawing order, the time
// span and the fault windows.
type view struct {
	runs     []*Run
	entries  []entry
	duration time.Duration
	faults   []results.FaultWindow // the union of the runs' fault windows
	base     time.Duration         // the coarsest timeline resolution saved, 10 ms at least: the page's finest bins
}

// palette is the cohorts' colours (charts.Palette: the live page's too).
var palette = func() []color.Color {
	out := make([]color.Color, len(charts.Palette))
	for i, hex := range charts.Palette {
		out[i] = charts.RGB(hex)
	}
	return out
}()

func rgb(v uint32) color.Color {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}
}

// newView orders the cohorts of runs for drawing: grouped by cohort name in
// order of first appearance, so "no-jitter (before)" sits beside
// "no-jitter (after)". A cohort keeps one colour across runs.
func newView(runs []*Run) *view {
	v := &view{runs: runs, base: results.Bucket}
	var names []string
	for _, r := range runs {
		v.duration = max(v.duration, time.Duration(r.Summary.DurationS*float64(time.Second)))
		for _, c := range r.Cohorts {
			if !slices.Contains(names, c.Name) {
				names = append(names, c.Name)
			}
			v.base = max(v.base, c.Timeline.Resolution)
		}
		for _, f := range r.Summary.Faults {
			if !slices.Contains(v.faults, f) {
				v.faults = append(v.faults, f)
			}
		}
	}
	for i, name := range names {
		for j, r := range runs {
			for k := range r.Cohorts {
				if r.Cohorts[k].Name != name {
					continue
				}
				label := name
				if len(runs) > 1 {
					label = fmt.Sprintf("%s (%s)", name, r.Label)
				}
				v.entries = append(v.entries, entry{run: r, cohort: &r.Cohorts[k], index: k, label: label,
					color: palette[i%len(palette)], dashes: dashCycle[j%len(dashCycle)]})
			}
		}
	}
	return v
}

func (v *view) charts() []chart {
	fine := fineResolution(v.duration, v.base)
	specs := []*spec{
		v.attemptsSpec(),
		v.wavesSpec(fine),
		v.layersSpec("attempts_by_number", "Attempts by attempt number, per second%s (stacked)", "attempts / s", fine, fine, true, attemptLayers,
			"Each cohort's attempts split into first tries and retries 1, 2 and 3 or later, stacked. "+
				"Without jitter each retry number arrives as its own wave; with jitter they overlap into one smear. The share of retries is the amplification over time."),
		v.layersSpec("outcomes", "Attempts by outcome, per second%s (stacked)", "attempts / s", time.Second, fine, true, v.outcomeLayers(),
			"Successes and failures of the attempts over time, by outcome (ok at the bottom), counted when they were sent. "+
				"Failures after the shaded windows are the retry waves knocking the recovering service down again."),
		v.layersSpec("requests", "Requests completed per second%s: succeeded and gave up", "requests / s", time.Second, fine, false, []line{
			{Label: "succeeded", color: outcomeColors[results.OK], width: vg.Points(1.3), count: seriesOf(results.SeriesSucceeded)},
			{Label: "gave up (failed)", color: outcomeColors[results.HTTP5xx], width: vg.Points(1.3), count: seriesOf(results.SeriesFailed)},
		}, "Units of work ending per second: those that got a success and those whose client gave up (attempts or time exhausted), counted when they ended."),
	}
	if s, ok := v.tiersSpec(); ok {
		specs = append(specs, s)
	}
	out := make([]chart, 0, len(specs)+4)
	for _, s := range specs {
		s.duration = v.duration
		out = append(out, s.chart())
	}
	out = append(out,
		v.latencyChart("latency_attempt", "Attempt latency by percentile", "attempt",
			"One call to the target, from sending to its outcome (an answer, a reset, a timeout). "),
		v.latencyChart("latency_request", "Request latency by percentile", "request",
			"One unit of work, from the intended start of its first attempt to its final outcome, backoff sleeps included: what the caller waited. "),
		v.latencyOverTimeSpec().chart(),
	)
	if v.hasUpstream() {
		out = append(out, v.latencyChart("latency_upstream", "Upstream latency by percentile (the chaos proxy's recording)", "upstream",
			"The time the proxy's upstream took to answer the attempts it forwarded: the service's own share of the attempt latency above, without the proxy's faults and waits. "))
	}
	return out
}

// hasUpstream reports whether a cohort drawn has its upstream's latency
// (a chaos proxy's recording).
func (v *view) hasUpstream() bool {
	for _, e := range v.entries {
		if e.cohort.Upstream != nil && e.cohort.Upstream.TotalCount() > 0 {
			return true
		}
	}
	return false
}

func resText(d time.Duration) string {
	if d >= time.Second && d%time.Second == 0 {
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return fmt.Sprintf("%d ms", d.Milliseconds())
}

// newPlot returns a plot in the report's style.
func newPlot(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sans, 10)
	p.Title.Padding = vg.Points(4)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 9)
		a.Tick.Label.Font = font.From(sans, 8)
		a.Padding = 0
	}
	p.Legend.TextStyle.Font = font.From(sans, 8)
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(6)
	p.Legend.YOffs = vg.Points(-4)
	p.Legend.ThumbnailWidth = vg.Points(16)
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 0xE4}
	grid.Horizontal.Color = color.Gray{Y: 0xE4}
	p.Add(grid)
	return p
}

// steps returns the points of a step line over bins of width res seconds:
// one point at the start of each bin and one closing the last, for
// plotter.PostStep.
func steps(vals []float64, res float64) plotter.XYs {
	xy := make(plotter.XYs, 0, len(vals)+1)
	for i, y := range vals {
		xy = append(xy, plotter.XY{X: float64(i) * res, Y: y})
	}
	if n := len(vals); n > 0 {
		xy = append(xy, plotter.XY{X: float64(n) * res, Y: vals[n-1]})
	}
	return xy
}

// faultShade is a plotter that shades the fault windows across the whole
// height of the plot, under the data, with the fault's name at the top.
type faultShade struct {
	faults []results.FaultWindow
	names  bool
}

var (
	shadeColor = color.NRGBA{R: 0xE8, G: 0x3A, B: 0x3A, A: 0x1C}
	shadeEdge  = color.NRGBA{R: 0xE8, G: 0x3A, B: 0x3A, A: 0x70}
)

func (f faultShade) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	sty := text.Style{Color: color.Gray{Y: 0x60}, Font: font.From(sans, 7), XAlign: draw.XLeft, YAlign: draw.YTop, Handler: p.TextHandler}
	for _, w := range f.faults {
		x0 := max(trX(w.AtS), c.Min.X)
		x1 := min(trX(w.AtS+w.ForS), c.Max.X)
		if x1 <= x0 {
			continue
		}
		c.FillPolygon(shadeColor, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
		// A line at each start tells back-to-back faults apart.
		c.StrokeLine2(draw.LineStyle{Color: shadeEdge, Width: vg.Points(0.6), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}, x0, c.Min.Y, x0, c.Max.Y)
		if f.names {
			c.FillText(sty, vg.Point{X: x0 + 2, Y: c.Max.Y - 2}, w.Name)
		}
	}
}

// Thumbnail draws the legend's swatch.
func (f faultShade) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(shadeColor, []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}})
}

// attemptsSpec: every cohort's attempts per second on one chart, the
// simulator's peak beside each where the run has it.
func (v *view) attemptsSpec() *spec {
	base := v.base
	s := &spec{ID: "attempts_1s", title: "Attempts per second%s, every cohort", YLabel: "attempts / s", Height: 280,
		res: time.Second, ResS: base.Seconds(), MaxBinS: 1, Bins: 600, Zoom: v.leadZoom(),
		Caption: "Calls sent to the target per second (first tries and retries, any outcome), every cohort on one scale, shown first from just before the first fault through the retries after it, in bins narrow enough for synchronized retries to stand out as spikes (wide bins average them out, and the cohort that retries most in all looks tallest). " +
			"Double-click for the whole run; drag across to zoom, down to the recorded " + resText(base) + " buckets. " +
			"Shaded: the fault windows. Dotted, where the run has them: the simulator's peak attempts per second for the same plan and seed (runs[].sim; the simulator's timeline is not saved, only its figures).",
		Panels: []panel{{Faults: v.faults, FaultNames: true, legend: true}}}
	for _, e := range v.entries {
		l := line{Label: e.label, color: e.color, dashes: e.dashes, width: vg.Points(1.3), tl: e.cohort.Timeline, count: attemptsOf, key: "attempts/" + e.label}
		if e.index < len(e.run.Summary.Runs) {
			if peak, ok := e.run.Summary.Runs[e.index].Sim.Get("peak_attempts_per_s"); ok {
				l.Ref = &chartRef{Label: "sim peak, " + e.label, Value: peak}
			}
		}
		s.Panels[0].Series = append(s.Panels[0].Series, l)
	}
	return s
}

// leadZoom is the range the attempts chart shows first, in seconds: from
// half a second before the first fault to 5 s after the faults that follow
// it back to back end (the retries' waves and the recovery), within the
// run; nil without a fault, or where that is most of the run.
func (v *view) leadZoom() []float64 {
	fs := slices.SortedFunc(slices.Values(v.faults), func(a, b results.FaultWindow) int { return cmp.Compare(a.AtS, b.AtS) })
	if len(fs) == 0 {
		return nil
	}
	end := fs[0].AtS + fs[0].ForS
	for _, f := range fs[1:] {
		if f.AtS <= end+0.001 {
			end = max(end, f.AtS+f.ForS)
		}
	}
	lo, hi := max(0, fs[0].AtS-0.5), min(v.duration.Seconds(), end+5)
	if hi-lo > 0.9*v.duration.Seconds() {
		return nil
	}
	return []float64{lo, hi}
}

// cohortPanels are a panel per cohort, each with its run's faults (named
// in the first), filled by series; legend says which carry the PNG's
// legend (noLegend, firstLegend, everyLegend).
func (v *view) cohortPanels(stacked bool, legend func(i int) bool, series func(e entry) []line) []panel {
	out := make([]panel, len(v.entries))
	for i, e := range v.entries {
		out[i] = panel{Title: e.label, Stacked: stacked, Faults: e.run.Summary.Faults, FaultNames: i == 0, legend: legend(i), Series: series(e)}
	}
	return out
}

// Which panels of a chart carry the PNG's legend.
func noLegend(int) bool      { return false }
func firstLegend(i int) bool { return i == 0 }
func everyLegend(int) bool   { return true }

// wavesSpec: attempts at the fine resolution, one panel per cohort.
func (v *view) wavesSpec(res time.Duration) *spec {
	base := v.base
	return &spec{ID: "attempts_100ms", title: "Attempts per second%s, one panel per cohort (same scale)", YLabel: "attempts / s", Height: 170,
		res: res, ResS: base.Seconds(), MaxBinS: res.Seconds(), Bins: 600,
		Caption: fmt.Sprintf("The same attempts, %s bins zoomed out and down to %s zoomed in, one cursor across the panels. Retries without jitter leave in lockstep: tall narrow spikes, spaced by the backoff and growing apart as it doubles (a sawtooth of waves), each one hitting a recovering service at once. "+
			"With jitter the same retries spread into a smooth, decaying curve. Shaded: the fault windows.", resText(res), resText(base)),
		Panels: v.cohortPanels(false, noLegend, func(e entry) []line {
			return []line{{Label: e.label, color: e.color, width: vg.Points(0.9), fill: withAlpha(e.color, 0x40), tl: e.cohort.Timeline, count: attemptsOf, key: "attempts/" + e.label}}
		})}
}

func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: a}
}

// layersSpec: each of layers (a count and its colour) per second of every
// cohort, stacked or not, a panel per cohort, in bins of res in the PNG
// (the page's at the waves' resolution, fine).
func (v *view) layersSpec(id, title, ylabel string, res, fine time.Duration, stacked bool, layers []line, caption string) *spec {
	return &spec{ID: id, title: title, YLabel: ylabel, Height: 170, res: res, ResS: fine.Seconds(), MaxBinS: fine.Seconds(), Bins: 600, SyncLegend: true, Caption: caption,
		Panels: v.cohortPanels(stacked, firstLegend, func(e entry) []line {
			out := slices.Clone(layers)
			for i := range out {
				out[i].tl, out[i].key = e.cohort.Timeline, id+"/"+out[i].Label+"/"+e.label
			}
			return out
		})}
}

var attemptLayers = []line{
	{Label: "first try", color: rgb(0x9ECAE1), count: seriesOf(results.SeriesFirst)},
	{Label: "retry 1", color: rgb(0xFDAE6B), count: seriesOf(results.SeriesRetry1)},
	{Label: "retry 2", color: rgb(0xF16913), count: seriesOf(results.SeriesRetry2)},
	{Label: "retry 3+", color: rgb(0x8C2D04), count: seriesOf(results.SeriesRetry3up)},
}

// outcomeColors are the outcomes' colours (charts.Outcomes: the live
// page's too).
var outcomeColors = func() map[results.Outcome]color.Color {
	out := map[results.Outcome]color.Color{}
	for o := range results.Outcome(results.NumOutcomes) {
		out[o] = charts.RGB(charts.Outcomes[o.String()])
	}
	return out
}()

// outcomeLayers are the outcomes that happened, ok first, so the legend
// stays short.
func (v *view) outcomeLayers() []line {
	var layers []line
	for o := range results.NumOutcomes {
		var n int64
		for _, e := range v.entries {
			for _, row := range e.cohort.Timeline.Rows {
				n += row[o]
			}
		}
		if n > 0 || o == results.OK {
			layers = append(layers, line{Label: strings.ReplaceAll(o.String(), "_", " "), color: outcomeColors[o], count: seriesOf(results.Series(o))})
		}
	}
	return layers
}

// countTicks are gonum's default ticks with plain labels ("2500", not
// "2500.00").
func countTicks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'f', -1, 64)
		}
	}
	return ticks
}

// percentileTicks label the 1/(1-p) axis: 0 is p0, 1 is p90, 2 is p99, ...
func percentileTicks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for k := 0; float64(k) <= max+1e-9; k++ {
		label := "0%"
		if k > 0 {
			label = strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.*f", k, 100*(1-math.Pow(10, -float64(k)))), "0"), ".") + "%"
		}
		ticks = append(ticks, plot.Tick{Value: float64(k), Label: label})
		if k == 0 && max > 0.5 {
			ticks = append(ticks, plot.Tick{Value: math.Log10(2), Label: "50%"})
		} else if float64(k)+0.5 <= max {
			ticks = append(ticks, plot.Tick{Value: float64(k) + 0.5})
		}
	}
	return ticks
}

// latencyTicks label a log axis of milliseconds in decades: 1 ms, 10 ms,
// 100 ms, 1 s, 10 s.
func latencyTicks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for d := math.Floor(math.Log10(min)); d <= math.Ceil(math.Log10(max)); d++ {
		v := math.Pow(10, d)
		ticks = append(ticks, plot.Tick{Value: v, Label: msLabel(v)})
		for m := 2.0; m < 10; m++ {
			ticks = append(ticks, plot.Tick{Value: m * v})
		}
	}
	return ticks
}

func msLabel(ms float64) string {
	switch {
	case ms >= 1000:
		return trim(ms/1000) + " s"
	case ms >= 1:
		return trim(ms) + " ms"
	default:
		return trim(ms*1000) + " µs"
	}
}

func trim(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".")
}

// minMs keeps a log axis away from zero.
const minMs = 0.01

// latencyChart: percentile curves of one histogram per cohort.
func (v *view) latencyChart(id, title, which, what string) chart {
	p := newPlot(title)
	p.X.Label.Text = "percentile (axis spaced by 1/(1-p): each step is ten times rarer)"
	p.Y.Label.Text = "latency"
	p.X.Tick.Marker = plot.TickerFunc(percentileTicks)
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.TickerFunc(latencyTicks)
	p.X.Min = 0
	drawn := 0
	for _, e := range v.entries {
		h := e.cohort.Attempt
		switch which {
		case "request":
			h = e.cohort.Request
		case "upstream":
			h = e.cohort.Upstream
		}
		if h == nil || h.TotalCount() == 0 {
			continue
		}
		pts := percentileCurve(h)
		xy := make(plotter.XYs, len(pts))
		for i, q := range pts {
			xy[i] = plotter.XY{X: q.X, Y: max(q.Ms, minMs)}
		}
		l := &plotter.Line{XYs: xy, LineStyle: draw.LineStyle{Color: e.color, Width: vg.Points(1.4), Dashes: e.dashes}}
		p.Add(l)
		p.Legend.Add(e.label, l)
		drawn++
	}
	if drawn == 0 {
		p.X.Max, p.Y.Min, p.Y.Max = 3, 1, 1000
	}
	p.Y.Min, p.Y.Max = niceLogRange(p.Y.Min, p.Y.Max)
	noun := which + "s"
	if which == "upstream" {
		noun = "the upstream's answers"
	}
	return chart{ID: id, Title: title, W: chartW, H: lineH, draw: p.Draw, Empty: drawn == 0,
		Caption: what + "Read from the HDR histograms merged from the .hlog intervals: the value below which that share of " + noun + " fell. " +
			"The right end is the highest percentile the count resolves. Log scale: a flat line is a stable latency, a cliff is a timeout or a backoff cap."}
}

// niceLogRange widens [lo, hi] to whole decades, at least one: a range of
// one value on a power of ten (a single attempt answered within the
// histogram's first microsecond) would leave none, and the plot would
// widen it past zero, which a log scale cannot draw.
func niceLogRange(lo, hi float64) (float64, float64) {
	lo, hi = max(lo, minMs), max(hi, minMs)
	lo, hi = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))
	if hi <= lo {
		hi = lo * 10
	}
	return lo, hi
}

// latencyOverTimeSpec: each second's request p99 from the interval log,
// a gap where a second had none; for recordings, whose request latency is
// not on the wire, each second's attempt p99 (server-side) instead.
func (v *view) latencyOverTimeSpec() *spec {
	attempts := v.requestLatencyUnmeasured()
	s := &spec{ID: "latency_over_time", title: "Request latency over time: p99 of the requests ending in each second", YLabel: "request latency, p99",
		Height: 300, LogY: true, duration: v.duration, Panels: []panel{{Faults: v.faults, FaultNames: true, legend: true}},
		Caption: "From the per-second intervals of each cohort's .hlog, plotted at the middle of the second. Requests are counted when they end, so a wave of retries that finally succeed shows as a late rise. " +
			"Gaps are seconds in which no request ended."}
	if attempts {
		s.title, s.YLabel = "Attempt latency over time: p99 of each second's attempts, server-side", "attempt latency, p99"
		s.Caption = "Recorded by a server, which cannot tell which attempts make up one request: each second's attempt p99, from each attempt's arrival to the end of its answer, from the per-second intervals of each cohort's .hlog, plotted at the middle of the second. " +
			"Gaps are seconds without an attempt."
	}
	n := 0
	for _, e := range v.entries {
		n = max(n, len(e.cohort.Seconds))
	}
	s.X, s.XRange = make([]float64, n), []float64{0, max(v.duration.Seconds(), float64(n))}
	for i := range n {
		s.X[i] = float64(i) + 0.5
	}
	for _, e := range v.entries {
		vals := make([]*float64, n)
		for i, sec := range e.cohort.Seconds {
			cnt, p99 := sec.Requests, sec.RequestP99
			if attempts {
				cnt, p99 = sec.Attempts, sec.AttemptP99
			}
			if cnt > 0 {
				vals[i] = new(float64)
				*vals[i] = max(p99, minMs)
			}
		}
		s.Panels[0].Series = append(s.Panels[0].Series, line{Label: e.label, color: e.color, dashes: e.dashes, width: vg.Points(1.3), Values: vals})
	}
	return s
}

// requestLatencyUnmeasured reports whether no cohort drawn has a request
// latency to show: every one is a recording's, which cannot tell it.
func (v *view) requestLatencyUnmeasured() bool {
	for _, e := range v.entries {
		runs := e.run.Summary.Runs
		if e.index >= len(runs) || !runs[e.index].IsUnmeasured("latency_ms.request") {
			return false
		}
	}
	return len(v.entries) > 0
}
