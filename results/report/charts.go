package report

import (
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
	base     time.Duration         // the coarsest timeline resolution saved
}

// palette is the cohorts' colours (charts.Palette: the live page's too).
var palette = func() []color.Color {
	out := make([]color.Color, len(charts.Palette))
	for i, hex := range charts.Palette {
		out[i] = charts.RGB(hex)
	}
	return out
}()

// runDashes tells overlaid runs apart: the first solid, then dashed, dotted.
var runDashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(1.5), vg.Points(2)}, {vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2)}}

func rgb(v uint32) color.Color {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}
}

// newView orders the cohorts of runs for drawing: grouped by cohort name in
// order of first appearance, so "no-jitter (before)" sits beside
// "no-jitter (after)". A cohort keeps one colour across runs.
func newView(runs []*Run) *view {
	v := &view{runs: runs}
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
					color: palette[i%len(palette)], dashes: runDashes[j%len(runDashes)]})
			}
		}
	}
	return v
}

func (v *view) charts() []chart {
	fine := fineResolution(v.duration, v.base)
	out := []chart{
		v.attemptsChart(time.Second),
		v.wavesChart(fine),
		v.byNumberChart(fine),
		v.outcomesChart(time.Second),
		v.requestsChart(time.Second),
	}
	if c, ok := v.tiersChart(time.Second); ok {
		out = append(out, c)
	}
	out = append(out,
		v.latencyChart("latency_attempt", "Attempt latency by percentile", "attempt",
			"One call to the target, from sending to its outcome (an answer, a reset, a timeout). "),
		v.latencyChart("latency_request", "Request latency by percentile", "request",
			"One unit of work, from the intended start of its first attempt to its final outcome, backoff sleeps included: what the caller waited. "),
		v.latencyOverTimeChart(),
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

// timeAxis sets p's x axis to the run's span in seconds.
func (v *view) timeAxis(p *plot.Plot, label bool) {
	p.X.Min, p.X.Max = 0, v.duration.Seconds()
	p.X.Tick.Marker = plot.TickerFunc(countTicks)
	if label {
		p.X.Label.Text = "seconds since start"
	}
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

func stepLine(vals []float64, res time.Duration, c color.Color, dashes []vg.Length, width vg.Length) *plotter.Line {
	l := &plotter.Line{XYs: steps(vals, res.Seconds()), StepStyle: plotter.PostStep}
	l.LineStyle = draw.LineStyle{Color: c, Width: width, Dashes: dashes}
	return l
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

// single draws one plot over the whole canvas.
func single(p *plot.Plot) func(draw.Canvas) {
	return func(dc draw.Canvas) { p.Draw(dc) }
}

// tiled draws plots one above the other with aligned data areas, under a
// title.
func tiled(title string, plots []*plot.Plot) func(draw.Canvas) {
	return func(dc draw.Canvas) {
		sty := text.Style{Color: color.Black, Font: font.From(sans, 12), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
		dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y - 6}, title)
		rows := make([][]*plot.Plot, len(plots))
		for i, p := range plots {
			rows[i] = []*plot.Plot{p}
		}
		tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadTop: titleSpace, PadX: 4, PadY: 6, PadBottom: 2, PadLeft: 2, PadRight: 8}
		canvases := plot.Align(rows, tiles, dc)
		for i, p := range plots {
			p.Draw(canvases[i][0])
		}
	}
}

func tiledHeight(n int) vg.Length { return titleSpace + vg.Length(n)*panelH + 0.3*vg.Inch }

// attemptsChart: every cohort's attempts per second on one chart.
func (v *view) attemptsChart(res time.Duration) chart {
	title := fmt.Sprintf("Attempts per second, in %s bins", resText(res))
	p := newPlot(title)
	v.timeAxis(p, true)
	p.Y.Label.Text = "attempts / s"
	p.Y.Tick.Marker = plot.TickerFunc(countTicks)
	p.Y.Min = 0
	shade := faultShade{faults: v.faults, names: true}
	p.Add(shade)
	for _, e := range v.entries {
		t := rebin(e.cohort.Timeline, res)
		l := stepLine(perSecond(t, attemptsOf), t.Resolution, e.color, e.dashes, vg.Points(1.3))
		p.Add(l)
		p.Legend.Add(e.label, l)
	}
	if len(v.faults) > 0 {
		p.Legend.Add("fault window", shade)
	}
	return chart{ID: "attempts_1s", Title: title, W: chartW, H: lineH, draw: single(p),
		Caption: "Calls sent to the target per second (first tries and retries, any outcome), every cohort on one scale. " +
			"Shaded: the fault windows. After a fault, a cohort whose retries are synchronized sends bursts that the 1 s bins average out; see the 100 ms panels below."}
}

// panels returns one plot per entry on a shared y scale, filled by fill.
func (v *view) panels(ylabel string, fill func(p *plot.Plot, e entry, first bool)) []*plot.Plot {
	plots := make([]*plot.Plot, len(v.entries))
	top := 0.0
	for i, e := range v.entries {
		p := newPlot(e.label)
		v.timeAxis(p, i == len(v.entries)-1)
		p.Y.Label.Text = ylabel
		p.Y.Tick.Marker = plot.TickerFunc(countTicks)
		p.Add(faultShade{faults: e.run.Summary.Faults, names: i == 0})
		fill(p, e, i == 0)
		p.Y.Min = 0
		top = max(top, p.Y.Max)
		plots[i] = p
	}
	for _, p := range plots {
		// Headroom for the legend and the fault names above the data.
		p.Y.Max = max(top, 1) * 1.25
	}
	return plots
}

// wavesChart: attempts at the fine resolution, one panel per cohort.
func (v *view) wavesChart(res time.Duration) chart {
	title := fmt.Sprintf("Attempts per second in %s bins, one panel per cohort (same scale)", resText(res))
	plots := v.panels("attempts / s", func(p *plot.Plot, e entry, _ bool) {
		t := rebin(e.cohort.Timeline, res)
		l := stepLine(perSecond(t, attemptsOf), t.Resolution, e.color, nil, vg.Points(0.9))
		l.FillColor = withAlpha(e.color, 0x40)
		p.Add(l)
	})
	return chart{ID: "attempts_100ms", Title: title, W: chartW, H: tiledHeight(len(plots)), draw: tiled(title, plots),
		Caption: fmt.Sprintf("The same attempts at %s resolution. Retries without jitter leave in lockstep: tall narrow spikes, spaced by the backoff and growing apart as it doubles (a sawtooth of waves), each one hitting a recovering service at once. "+
			"With jitter the same retries spread into a smooth, decaying curve. Shaded: the fault windows.", resText(res))}
}

func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: a}
}

// stack adds filled step lines for layers stacked bottom to top, drawn top
// first so each lower layer covers the part of the one above it.
func stack(p *plot.Plot, t results.Timeline, layers []layer, legend bool) {
	sums := make([][]float64, len(layers))
	for i, ly := range layers {
		sums[i] = perSecond(t, ly.count)
		if i > 0 {
			for j := range sums[i] {
				sums[i][j] += sums[i-1][j]
			}
		}
	}
	lines := make([]*plotter.Line, len(layers))
	for i := len(layers) - 1; i >= 0; i-- {
		l := stepLine(sums[i], t.Resolution, layers[i].color, nil, 0)
		l.FillColor = layers[i].color
		p.Add(l)
		lines[i] = l
	}
	if legend {
		for i, ly := range layers {
			p.Legend.Add(ly.name, lines[i])
		}
	}
}

type layer struct {
	name  string
	color color.Color
	count func(row *[results.NumSeries]int64) int64
}

var attemptLayers = []layer{
	{"first try", rgb(0x9ECAE1), seriesOf(results.SeriesFirst)},
	{"retry 1", rgb(0xFDAE6B), seriesOf(results.SeriesRetry1)},
	{"retry 2", rgb(0xF16913), seriesOf(results.SeriesRetry2)},
	{"retry 3+", rgb(0x8C2D04), seriesOf(results.SeriesRetry3up)},
}

// byNumberChart: attempts stacked by attempt number, one panel per cohort.
func (v *view) byNumberChart(res time.Duration) chart {
	title := fmt.Sprintf("Attempts by attempt number, per second in %s bins (stacked)", resText(res))
	plots := v.panels("attempts / s", func(p *plot.Plot, e entry, first bool) {
		stack(p, rebin(e.cohort.Timeline, res), attemptLayers, first)
	})
	return chart{ID: "attempts_by_number", Title: title, W: chartW, H: tiledHeight(len(plots)), draw: tiled(title, plots),
		Caption: "Each cohort's attempts split into first tries and retries 1, 2 and 3 or later, stacked. " +
			"Without jitter each retry number arrives as its own wave; with jitter they overlap into one smear. The share of retries is the amplification over time."}
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

// outcomesChart: attempts stacked by outcome, one panel per cohort.
func (v *view) outcomesChart(res time.Duration) chart {
	layers := v.outcomeLayers()
	title := fmt.Sprintf("Attempts by outcome, per second in %s bins (stacked)", resText(res))
	plots := v.panels("attempts / s", func(p *plot.Plot, e entry, first bool) {
		stack(p, rebin(e.cohort.Timeline, res), layers, first)
	})
	return chart{ID: "outcomes", Title: title, W: chartW, H: tiledHeight(len(plots)), draw: tiled(title, plots),
		Caption: "Successes and failures of the attempts over time, by outcome (ok at the bottom), counted when they were sent. " +
			"Failures after the shaded windows are the retry waves knocking the recovering service down again."}
}

// outcomeLayers are the outcomes that happened, ok first, so the legend
// stays short.
func (v *view) outcomeLayers() []layer {
	var layers []layer
	for o := range results.NumOutcomes {
		var n int64
		for _, e := range v.entries {
			for _, row := range e.cohort.Timeline.Rows {
				n += row[o]
			}
		}
		if n > 0 || o == results.OK {
			layers = append(layers, layer{strings.ReplaceAll(o.String(), "_", " "), outcomeColors[o], seriesOf(results.Series(o))})
		}
	}
	return layers
}

// requestsChart: logical requests that succeeded or gave up, per cohort.
func (v *view) requestsChart(res time.Duration) chart {
	title := fmt.Sprintf("Requests completed per second, in %s bins: succeeded and gave up", resText(res))
	plots := v.panels("requests / s", func(p *plot.Plot, e entry, first bool) {
		t := rebin(e.cohort.Timeline, res)
		ok := stepLine(perSecond(t, seriesOf(results.SeriesSucceeded)), t.Resolution, outcomeColors[results.OK], nil, vg.Points(1.3))
		failed := stepLine(perSecond(t, seriesOf(results.SeriesFailed)), t.Resolution, outcomeColors[results.HTTP5xx], nil, vg.Points(1.3))
		p.Add(ok, failed)
		if first {
			p.Legend.Add("succeeded", ok)
			p.Legend.Add("gave up (failed)", failed)
		}
	})
	return chart{ID: "requests", Title: title, W: chartW, H: tiledHeight(len(plots)), draw: tiled(title, plots),
		Caption: "Units of work ending per second: those that got a success and those whose client gave up (attempts or time exhausted), counted when they ended."}
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
	return chart{ID: id, Title: title, W: chartW, H: lineH, draw: single(p), Empty: drawn == 0,
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

// latencyOverTimeChart: each second's request p99 from the interval log;
// for recordings, whose request latency is not on the wire, each
// second's attempt p99 (server-side) instead.
func (v *view) latencyOverTimeChart() chart {
	attempts := v.requestLatencyUnmeasured()
	title := "Request latency over time: p99 of the requests ending in each second"
	label := "request latency, p99"
	caption := "From the per-second intervals of each cohort's .hlog, plotted at the middle of the second. Requests are counted when they end, so a wave of retries that finally succeed shows as a late rise. " +
		"Gaps are seconds in which no request ended."
	if attempts {
		title = "Attempt latency over time: p99 of each second's attempts, server-side"
		label = "attempt latency, p99"
		caption = "Recorded by a server, which cannot tell which attempts make up one request: each second's attempt p99, from each attempt's arrival to the end of its answer, from the per-second intervals of each cohort's .hlog, plotted at the middle of the second. " +
			"Gaps are seconds without an attempt."
	}
	p := newPlot(title)
	v.timeAxis(p, true)
	p.Y.Label.Text = label
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.TickerFunc(latencyTicks)
	shade := faultShade{faults: v.faults, names: true}
	p.Add(shade)
	drawn := 0
	for _, e := range v.entries {
		// One line per stretch of seconds that had values: a second
		// without any is a gap, not a zero.
		var seg plotter.XYs
		first := true
		flush := func() {
			if len(seg) == 0 {
				return
			}
			l := &plotter.Line{XYs: seg, LineStyle: draw.LineStyle{Color: e.color, Width: vg.Points(1.3), Dashes: e.dashes}}
			p.Add(l)
			if first {
				p.Legend.Add(e.label, l)
				first = false
			}
			drawn++
			seg = nil
		}
		for i, s := range e.cohort.Seconds {
			n, p99 := s.Requests, s.RequestP99
			if attempts {
				n, p99 = s.Attempts, s.AttemptP99
			}
			if n == 0 {
				flush()
				continue
			}
			seg = append(seg, plotter.XY{X: float64(i) + 0.5, Y: max(p99, minMs)})
		}
		flush()
	}
	if math.IsInf(p.Y.Min, 0) {
		p.Y.Min, p.Y.Max = 1, 1000
	}
	p.Y.Min, p.Y.Max = niceLogRange(p.Y.Min, p.Y.Max)
	return chart{ID: "latency_over_time", Title: title, W: chartW, H: lineH, draw: single(p), Empty: drawn == 0, Caption: caption}
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
