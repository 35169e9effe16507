package report

import (
	"fmt"
	"image/color"
	"math"
	"time"

	"github.com/herdbench/herdbench/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// spec is one chart as data: its title, caption, panels, series, colours,
// stacked layers and fault bands, defined once and drawn by two renderers:
// as a PNG (and SVG) with gonum/plot (chart, below), and in the page by
// charts.js over uPlot, which reads it as JSON (its fields' tags; charts.js
// documents each at its top; pageSpec, interactive.go, fills in the page's
// share). A chart is over time (its x axis the run's seconds: from counts
// per bucket, or from a value per x) or against a swept field's values
// (Points).
type spec struct {
	ID string `json:"id"`
	// Title is the page's; title names the chart for both: over counts,
	// its "%s" is where the PNG says its bins (" in 100 ms bins"), the
	// page's changing as one zooms.
	Title   string `json:"title,omitempty"`
	title   string
	Caption string `json:"-"`
	YLabel  string `json:"ylabel,omitempty"`
	// XLabel names a swept field's axis; "" is the time axis, "seconds
	// since start", whose charts shade the fault windows.
	XLabel string `json:"xlabel,omitempty"`
	LogY   bool   `json:"log,omitempty"`
	Height int    `json:"height"` // the page's height of a panel, px
	// Over counts: the PNG's bins (res); the page's data (ResS, its finest
	// bins, seconds), its widest bins (MaxBinS), how many it aims for
	// across the range shown (Bins), and the range it shows first (Zoom,
	// seconds; nil for the whole run).
	res      time.Duration
	ResS     float64       `json:"res_s,omitempty"`
	MaxBinS  float64       `json:"max_bin_s,omitempty"`
	Bins     int           `json:"bins,omitempty"`
	Zoom     []float64     `json:"zoom,omitempty"`
	duration time.Duration // the time axis's span
	// Against explicit x: the values (a series' Values, one per x), the
	// range drawn, a log axis, the ticks as written.
	X      []float64 `json:"x,omitempty"`
	XRange []float64 `json:"x_range,omitempty"`
	XLog   bool      `json:"x_log,omitempty"`
	XTicks []xTick   `json:"x_ticks,omitempty"`
	// Points draws a dot at each value, joins the values across missing
	// ones, and draws each value's sd as an error bar.
	Points bool `json:"points,omitempty"`
	// Columns lays the panels out side by side: a grid in the PNG, its
	// legend above it.
	Columns    int     `json:"columns,omitempty"`
	Group      string  `json:"group,omitempty"`       // the page's charts that zoom together ("" is "time")
	SyncLegend bool    `json:"sync_legend,omitempty"` // in the page, a series hidden in one panel is in all
	Panels     []panel `json:"panels"`
}

type xTick struct {
	Value float64 `json:"value"`
	Label string  `json:"label"`
}

// panel is one plot of a chart: the whole chart, or one cohort's (or one
// figure's) on a scale shared with the others.
type panel struct {
	Title      string                `json:"title,omitempty"`
	Stacked    bool                  `json:"stacked,omitempty"` // each series on top of the one before it, filled
	Faults     []results.FaultWindow `json:"faults,omitempty"`
	FaultNames bool                  `json:"fault_names,omitempty"` // the faults' names at the top
	Series     []line                `json:"series"`
	legend     bool                  // the PNG draws this panel's legend (the page draws every panel's)
}

// line is one series of a panel. Its colour, dashes, width and fill are
// the PNG's (color, dashes, width in points, fill); pageSpec writes them
// as the page's (Color, Dash and Width in CSS pixels, Fill).
type line struct {
	Label  string    `json:"label"`
	Color  string    `json:"color"`
	Dash   []float64 `json:"dash,omitempty"`
	Width  float64   `json:"width,omitempty"`
	Fill   string    `json:"fill,omitempty"`
	color  color.Color
	dashes []vg.Length
	width  vg.Length   // a stacked layer's is 0: it is its fill
	fill   color.Color // under the line, nil for none; a stacked layer fills with its colour
	// Over counts: count of each row of tl, per second; key names the
	// counts in the page's data (Data, an index), which holds each once.
	Data  *int `json:"data,omitempty"`
	tl    results.Timeline
	count func(row *[results.NumSeries]int64) int64
	key   string
	// Against explicit x: a value per x of the spec (nil: none there),
	// and with Points its sd.
	Values []*float64 `json:"values,omitempty"`
	SD     []float64  `json:"sd,omitempty"`
	// Ref is a level drawn across the panel, dotted, with its label.
	Ref *chartRef `json:"ref,omitempty"`
}

// chartRef is a level drawn across a panel: the simulator's peak beside
// the real run's attempts.
type chartRef struct {
	Label string  `json:"label"`
	Value float64 `json:"value"`
}

// overTime reports whether s's x axis is the run's time.
func (s *spec) overTime() bool { return s.XLabel == "" }

// counted reports whether s is drawn from counts per bucket.
func (s *spec) counted() bool { return s.X == nil }

// titled is s's title as the PNG or the page says it: with or without
// the PNG's bins.
func (s *spec) titled(png bool) string {
	if !s.counted() {
		return s.title
	}
	bins := ""
	if png {
		bins = " in " + resText(s.res) + " bins"
	}
	return fmt.Sprintf(s.title, bins)
}

// chart draws s with gonum/plot: one plot, panels one above the other on
// a shared scale, or a grid under a legend.
func (s *spec) chart() chart {
	title := s.titled(true)
	c := chart{ID: s.ID, Title: title, Caption: s.Caption, W: chartW, H: lineH, spec: s}
	plots := make([]*plot.Plot, len(s.Panels))
	drawn := 0
	var legend []legendEntry
	for i := range s.Panels {
		name := s.Panels[i].Title
		if len(s.Panels) == 1 && s.Columns <= 1 {
			name = title
		}
		var n int
		plots[i], n = s.plot(i, name, &legend)
		drawn += n
	}
	c.Empty = drawn == 0
	switch {
	case s.Columns > 1:
		rows := (len(plots) + s.Columns - 1) / s.Columns
		legendH := vg.Length((len(s.Panels[0].Series)+2)/3)*vg.Points(12) + vg.Points(6) // in three columns
		c.H = titleSpace + legendH + vg.Length(rows)*1.9*vg.Inch + 0.3*vg.Inch
		c.draw = grid(title, plots, s.Columns, legend, legendH, 18, 10)
	case len(plots) > 1:
		top := 0.0
		for _, p := range plots {
			top = max(top, p.Y.Max)
		}
		for _, p := range plots {
			// Headroom for the legend and the fault names above the data.
			p.Y.Max = max(top, 1) * 1.25
		}
		c.H = titleSpace + vg.Length(len(plots))*panelH + 0.3*vg.Inch
		c.draw = grid(title, plots, 1, nil, 0, 4, 6) // one above the other, close
	default:
		c.draw = plots[0].Draw
	}
	return c
}

// plot draws panel i of s titled name, and returns how many of its series
// had something to draw; a grid's legend gets the first panel's series.
func (s *spec) plot(i int, name string, legend *[]legendEntry) (*plot.Plot, int) {
	pn := &s.Panels[i]
	p := newPlot(name)
	switch {
	case s.overTime():
		last := i == len(s.Panels)-1
		p.X.Min, p.X.Max = 0, s.duration.Seconds()
		if s.XRange != nil {
			p.X.Min, p.X.Max = s.XRange[0], s.XRange[1]
		}
		p.X.Tick.Marker = plot.TickerFunc(countTicks)
		if last || len(s.Panels) == 1 {
			p.X.Label.Text = "seconds since start"
		}
	default:
		xAxis(p, s, i >= len(s.Panels)-s.Columns)
	}
	p.Y.Label.Text = s.YLabel
	p.Y.Tick.Marker = plot.TickerFunc(countTicks)
	if s.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.TickerFunc(latencyTicks)
	}
	shade := faultShade{faults: pn.Faults, names: pn.FaultNames}
	if s.overTime() {
		p.Add(shade)
	}
	drawn := 0
	if s.counted() {
		drawn = s.counts(p, pn)
	}
	for _, l := range pn.Series {
		if !s.counted() && s.series(p, pn, l, legend, i == 0) {
			drawn++
		}
	}
	for _, l := range pn.Series {
		if l.Ref != nil {
			p.Add(refLine{ref: *l.Ref, color: l.color})
		}
	}
	if pn.legend && len(pn.Faults) > 0 && len(s.Panels) == 1 {
		p.Legend.Add("fault window", shade)
	}
	s.yRange(p, drawn)
	return p, drawn
}

// yRange sets p's y axis once its data is in: from 0 over counts; whole
// decades on a log scale; from 0 or below, with headroom, against x.
func (s *spec) yRange(p *plot.Plot, drawn int) {
	switch {
	case s.counted():
		p.Y.Min = 0
	case s.LogY:
		if math.IsInf(p.Y.Min, 0) {
			p.Y.Min, p.Y.Max = 1, 1000
		}
		p.Y.Min, p.Y.Max = niceLogRange(p.Y.Min, p.Y.Max)
	default:
		if drawn == 0 {
			p.Y.Min, p.Y.Max = 0, 1
		}
		p.Y.Min = min(p.Y.Min, 0)
		p.Y.Max = max(p.Y.Max, p.Y.Min+1) * 1.08
	}
}

// series draws one line of values of panel pn; false when it has nothing
// to draw.
func (s *spec) series(p *plot.Plot, pn *panel, l line, legend *[]legendEntry, first bool) bool {
	if s.Points {
		return s.pointsLine(p, l, legend, first)
	}
	// A value per x, a gap where there is none: one line per stretch.
	var seg plotter.XYs
	drawn := false
	flush := func() {
		if len(seg) == 0 {
			return
		}
		pl := &plotter.Line{XYs: seg, LineStyle: draw.LineStyle{Color: l.color, Width: l.width, Dashes: l.dashes}}
		p.Add(pl)
		if pn.legend && !drawn {
			p.Legend.Add(l.Label, pl)
		}
		drawn, seg = true, nil
	}
	for i, v := range l.Values {
		if v == nil {
			flush()
			continue
		}
		seg = append(seg, plotter.XY{X: s.X[i], Y: *v})
	}
	flush()
	return drawn
}

// pointsLine draws a line of values against a swept field: a dot at each,
// its sd as an error bar; the first panel's go in the grid's legend.
func (s *spec) pointsLine(p *plot.Plot, l line, legend *[]legendEntry, first bool) bool {
	var pts errPoints
	for i, v := range l.Values {
		if v != nil {
			pts.XYs = append(pts.XYs, plotter.XY{X: s.X[i], Y: *v})
			pts.sd = append(pts.sd, l.SD[i])
		}
	}
	if len(pts.XYs) == 0 {
		return false
	}
	pl, err := plotter.NewLine(pts.XYs)
	if err != nil {
		return false
	}
	pl.LineStyle = draw.LineStyle{Color: l.color, Width: l.width, Dashes: l.dashes}
	dots, _ := plotter.NewScatter(pts.XYs)
	dots.GlyphStyle = draw.GlyphStyle{Color: l.color, Radius: vg.Points(2), Shape: draw.CircleGlyph{}}
	p.Add(pl, dots)
	if bars, err := plotter.NewYErrorBars(pts); err == nil {
		bars.LineStyle = draw.LineStyle{Color: l.color, Width: vg.Points(0.7)}
		bars.CapWidth = vg.Points(4)
		p.Add(bars)
	}
	if first {
		*legend = append(*legend, legendEntry{l.Label, []plot.Thumbnailer{pl, dots}})
	}
	return true
}

// counts draws pn's lines of counts per second; stacked, each on the sum
// of those before it, filled, and drawn top first so that each lower layer
// covers the part of the one above it.
func (s *spec) counts(p *plot.Plot, pn *panel) int {
	lines := make([]*plotter.Line, len(pn.Series))
	var below []float64
	for i, l := range pn.Series {
		t := rebin(l.tl, s.res)
		vals := perSecond(t, l.count)
		for j := range min(len(vals), len(below)) {
			vals[j] += below[j]
		}
		if pn.Stacked {
			below, l.fill = vals, l.color
		}
		lines[i] = &plotter.Line{XYs: steps(vals, t.Resolution.Seconds()), StepStyle: plotter.PostStep, FillColor: l.fill,
			LineStyle: draw.LineStyle{Color: l.color, Width: l.width, Dashes: l.dashes}}
	}
	for i := range lines {
		if pn.Stacked {
			i = len(lines) - 1 - i
		}
		p.Add(lines[i])
	}
	for i, l := range pn.Series {
		if pn.legend {
			p.Legend.Add(l.Label, lines[i])
		}
	}
	return len(lines)
}

// refLine draws a level across a panel, dotted in its series' colour,
// with its label at the right; a level outside the y axis is not drawn.
type refLine struct {
	ref   chartRef
	color color.Color
}

func (r refLine) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(r.ref.Value)
	if y < c.Min.Y || y > c.Max.Y {
		return
	}
	c.StrokeLine2(draw.LineStyle{Color: r.color, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(1.5), vg.Points(3)}}, c.Min.X, y, c.Max.X, y)
	sty := text.Style{Color: r.color, Font: p.Legend.TextStyle.Font, XAlign: draw.XRight, YAlign: draw.YBottom, Handler: p.TextHandler}
	c.FillText(sty, vg.Point{X: c.Max.X - 3, Y: y + 2}, r.ref.Label)
}
