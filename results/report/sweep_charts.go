package report

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/herdbench/herdbench/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// series is one line of a chart against a swept field: a cohort at one
// combination of the other swept fields' values.
type series struct {
	label    string
	strategy string
	others   []int // the value index on each axis but the drawn one (-1 there)
	color    color.Color
	dashes   []vg.Length
}

// seriesAgainst returns the lines of a chart against axis k: every cohort
// at every combination of the other axes' values, the cohort's colour for
// all of its lines, a dash pattern per combination.
func (v *sweepView) seriesAgainst(k int) []series {
	combos := [][]int{make([]int, len(v.axes))}
	for j, a := range v.axes {
		if j == k {
			continue
		}
		var next [][]int
		for _, c := range combos {
			for i := range a.values {
				d := append([]int(nil), c...)
				d[j] = i
				next = append(next, d)
			}
		}
		combos = next
	}
	var out []series
	for si, s := range v.strategies {
		for ci, c := range combos {
			c[k] = -1
			var parts []string
			for j, a := range v.axes {
				if j != k {
					parts = append(parts, a.field+"="+a.values[c[j]])
				}
			}
			label := s
			if len(parts) > 0 {
				label += ", " + strings.Join(parts, ", ")
			}
			out = append(out, series{label: label, strategy: s, others: c, color: palette[si%len(palette)], dashes: dashCycle[ci%len(dashCycle)]})
		}
	}
	return out
}

// dashCycle tells apart the lines of one cohort at the other fields'
// values.
var dashCycle = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(1.5), vg.Points(2)}, {vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2)}, {vg.Points(10), vg.Points(4)}}

// errPoints is a line's points with their standard deviations, for
// plotter.YErrorBars.
type errPoints struct {
	plotter.XYs
	sd []float64
}

func (e errPoints) YError(i int) (float64, float64) { return e.sd[i], e.sd[i] }

// line returns a series' points on axis k for metric m: x where the
// value sits, y the mean, and its sd; points without the figure are left
// out.
func (v *sweepView) line(k int, s series, m string) errPoints {
	var e errPoints
	idx := append([]int(nil), s.others...)
	for i := range v.axes[k].values {
		idx[k] = i
		y, sd, ok := v.figure(idx, s.strategy, m)
		if !ok {
			continue
		}
		e.XYs = append(e.XYs, plotter.XY{X: v.axes[k].at[i], Y: y})
		e.sd = append(e.sd, sd)
	}
	return e
}

// figure returns metric m's mean and standard deviation over the
// repetitions of strategy's run in the cell at idx (a value index on
// each axis), a ratio in percent; ok is false where the sweep has no such
// run or the run no such figure.
func (v *sweepView) figure(idx []int, strategy, m string) (y, sd float64, ok bool) {
	r, ok := v.cell[cellKey(idx, strategy)]
	if !ok {
		return 0, 0, false
	}
	st, ok := r.Run.Stats[m]
	if !ok {
		return 0, 0, false
	}
	y, sd = st.Mean, st.SD
	if mm, _ := results.LookupMetric(m); mm.Unit == results.Ratio {
		y, sd = 100*y, 100*sd
	}
	return y, sd, true
}

// xAxis sets p's x axis to axis a: its values as ticks (as written), on a
// log scale when they span two decades or more.
func xAxis(p *plot.Plot, a axis, label bool) {
	if label {
		p.X.Label.Text = a.field
	}
	lo, hi := slicesMinMax(a.at)
	pad := (hi - lo) * 0.04
	if a.log {
		p.X.Scale = plot.LogScale{}
		p.X.Min, p.X.Max = lo/1.15, hi*1.15
	} else {
		if pad == 0 {
			pad = 0.5
		}
		p.X.Min, p.X.Max = lo-pad, hi+pad
	}
	// A value too close to the last labelled one is a tick without a
	// label: the labels would run into each other.
	where := func(x float64) float64 {
		if a.log {
			return math.Log(x)
		}
		return x
	}
	span := where(p.X.Max) - where(p.X.Min)
	var ticks []plot.Tick
	last := math.Inf(-1)
	for i, x := range a.at {
		label := a.values[i]
		if (where(x)-last)/span < 0.07 {
			label = ""
		} else {
			last = where(x)
		}
		ticks = append(ticks, plot.Tick{Value: x, Label: label})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
}

func slicesMinMax(xs []float64) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

// againstChart draws every metric of metrics against swept field k, a
// panel each, a line per cohort (and per combination of the other swept
// fields' values), with the repetitions' sd as error bars.
func (v *sweepView) againstChart(k int, metrics []string) chart {
	a := v.axes[k]
	title := "Every figure against " + a.field
	ss := v.seriesAgainst(k)
	plots := make([]*plot.Plot, len(metrics))
	var legend []legendEntry
	for mi, m := range metrics {
		p := newPlot(metricTitle(m))
		xAxis(p, a, mi >= len(metrics)-2)
		p.Y.Tick.Marker = plot.TickerFunc(countTicks)
		drawn := false
		for _, s := range ss {
			pts := v.line(k, s, m)
			if len(pts.XYs) == 0 {
				continue
			}
			l, err := plotter.NewLine(pts.XYs)
			if err != nil {
				continue
			}
			l.LineStyle = draw.LineStyle{Color: s.color, Width: vg.Points(1.3), Dashes: s.dashes}
			dots, _ := plotter.NewScatter(pts.XYs)
			dots.GlyphStyle = draw.GlyphStyle{Color: s.color, Radius: vg.Points(2), Shape: draw.CircleGlyph{}}
			p.Add(l, dots)
			if bars, err := plotter.NewYErrorBars(pts); err == nil {
				bars.LineStyle = draw.LineStyle{Color: s.color, Width: vg.Points(0.7)}
				bars.CapWidth = vg.Points(4)
				p.Add(bars)
			}
			if mi == 0 {
				legend = append(legend, legendEntry{s.label, []plot.Thumbnailer{l, dots}})
			}
			drawn = true
		}
		if !drawn {
			p.Y.Min, p.Y.Max = 0, 1
		}
		p.Y.Min = min(p.Y.Min, 0)
		p.Y.Max = max(p.Y.Max, p.Y.Min+1) * 1.08
		plots[mi] = p
	}
	rows := (len(plots) + 1) / 2
	legendH := legendHeight(len(ss))
	h := titleSpace + legendH + vg.Length(rows)*1.9*vg.Inch + 0.3*vg.Inch
	caption := fmt.Sprintf("Each figure of every cohort at each value of %s: the mean over the repetitions, with their standard deviation as error bars when there were several. ", a.field)
	if len(v.axes) > 1 {
		caption += "One line per cohort and combination of the other swept fields' values (dashed differently). "
	}
	caption += "A point without a figure is left out: recovery_s has none where the service never recovered within the run."
	return chart{ID: fmt.Sprintf("sweep_%d", k+1), Title: title, W: chartW, H: h, Caption: caption,
		draw: gridWithLegend(title, plots, 2, legend, legendH)}
}

// legendHeight is the room a legend of n entries takes in columns of 3.
func legendHeight(n int) vg.Length {
	return vg.Length((n+2)/3)*vg.Points(12) + vg.Points(6)
}

// gridWithLegend draws plots in a grid of cols columns under a title and a
// legend of entries laid out in three columns.
func gridWithLegend(title string, plots []*plot.Plot, cols int, entries []legendEntry, legendH vg.Length) func(draw.Canvas) {
	return func(dc draw.Canvas) {
		sty := text.Style{Color: color.Black, Font: font.From(sans, 12), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
		dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y - 6}, title)
		drawLegendColumns(dc, entries, 3, dc.Max.Y-titleSpace, legendH)
		rows := make([][]*plot.Plot, (len(plots)+cols-1)/cols)
		for i := range rows {
			rows[i] = make([]*plot.Plot, cols)
			for j := range cols {
				if i*cols+j < len(plots) {
					rows[i][j] = plots[i*cols+j]
				}
			}
		}
		tiles := draw.Tiles{Rows: len(rows), Cols: cols, PadTop: titleSpace + legendH, PadX: 18, PadY: 10, PadBottom: 2, PadLeft: 2, PadRight: 8}
		canvases := plot.Align(rows, tiles, dc)
		for i := range rows {
			for j, p := range rows[i] {
				if p != nil {
					p.Draw(canvases[i][j])
				}
			}
		}
	}
}

// legendEntry is one entry of a chart's legend.
type legendEntry struct {
	name   string
	thumbs []plot.Thumbnailer
}

// drawLegendColumns draws entries in cols columns, dealt by rows, from top
// down over a height of h.
func drawLegendColumns(dc draw.Canvas, entries []legendEntry, cols int, top, h vg.Length) {
	width := (dc.Max.X - dc.Min.X - 40) / vg.Length(cols)
	for i := range cols {
		l := plot.NewLegend()
		l.TextStyle.Font = font.From(sans, 8)
		l.ThumbnailWidth = vg.Points(16)
		l.Top, l.Left, l.Padding = true, true, vg.Points(2)
		for j := i; j < len(entries); j += cols {
			l.Add(entries[j].name, entries[j].thumbs...)
		}
		c := dc
		c.Min.X = dc.Min.X + 40 + vg.Length(i)*width
		c.Max.X = c.Min.X + width
		c.Max.Y, c.Min.Y = top, top-h
		l.Draw(c)
	}
}

// heatChart draws metric m over the two swept fields, one panel per
// cohort, every cell coloured on one scale for all panels and labelled
// with its figure; recovery_s's "never" is a dark cell.
func (v *sweepView) heatChart(m string) chart {
	ax, ay := v.axes[0], v.axes[1]
	title := fmt.Sprintf("%s over %s × %s", m, ax.field, ay.field)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range v.sw.Rows {
		if st, ok := r.Run.Stats[m]; ok {
			lo, hi = min(lo, st.Mean), max(hi, st.Mean)
		}
	}
	higherIsBetter := m == "success_ratio"
	plots := make([]*plot.Plot, len(v.strategies))
	for si, s := range v.strategies {
		p := newPlot(s)
		cells := &heatCells{nx: len(ax.values), ny: len(ay.values), lo: lo, hi: hi, reverse: higherIsBetter, metric: m}
		for i := range ax.values {
			for j := range ay.values {
				c := heatCell{x: i, y: j, missing: true}
				if r, ok := v.cell[cellKey([]int{i, j}, s)]; ok {
					c.missing = false
					if st, ok := r.Run.Stats[m]; ok {
						c.value, c.has = st.Mean, true
					}
				}
				cells.cells = append(cells.cells, c)
			}
		}
		p.Add(cells)
		categorical(&p.X, ax, si >= len(v.strategies)-min(3, len(v.strategies)))
		categorical(&p.Y, ay, si%3 == 0)
		plots[si] = p
	}
	cols := min(3, len(plots))
	rows := (len(plots) + cols - 1) / cols
	side := (chartW - 0.6*vg.Inch) / vg.Length(cols)
	h := titleSpace + vg.Length(rows)*min(side, 3.2*vg.Inch) + 0.4*vg.Inch
	var caption string
	switch {
	case m == "recovery_s":
		caption = "Seconds from the end of the last fault until every later second succeeds at least 95%, at each combination of the two swept fields: dark cells never recovered within the run. Where the dark cells begin is the collapse boundary: the load and outage beyond which the fleet's retries keep the service down. "
	case higherIsBetter:
		caption = fmt.Sprintf("%s at each combination of the two swept fields: red is worse (lower), blue better. ", m)
	default:
		caption = fmt.Sprintf("%s at each combination of the two swept fields: red is higher (worse), blue lower. ", m)
	}
	caption += "One scale for every cohort; each cell holds the mean over the repetitions; blank cells did not finish."
	return chart{ID: "heatmap_" + fileID(m), Title: title, W: chartW, H: h, Caption: caption, draw: gridWithLegend(title, plots, cols, nil, 0)}
}

// fileID makes a metric's name fit a file name: latency_ms.request.p99
// becomes latency_ms_request_p99.
func fileID(s string) string { return strings.ReplaceAll(s, ".", "_") }

// categorical sets an axis to a's values at their indices, evenly spaced,
// as a heat map's cells are.
func categorical(ax *plot.Axis, a axis, label bool) {
	ax.Min, ax.Max = -0.5, float64(len(a.values))-0.5
	var ticks []plot.Tick
	for i, v := range a.values {
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: v})
	}
	ax.Tick.Marker = plot.ConstantTicks(ticks)
	if label {
		ax.Label.Text = a.field
	}
}

// heatCell is one cell of a heat map: its place on the grid and its
// figure; has is false where the point ran but has no figure (recovery_s:
// never), missing where the point did not finish.
type heatCell struct {
	x, y    int
	value   float64
	has     bool
	missing bool
}

// heatCells draws a grid of cells coloured by value on one scale from lo
// to hi (blue to red, or red to blue when reverse), each labelled with its
// figure.
type heatCells struct {
	cells   []heatCell
	nx, ny  int
	lo, hi  float64
	reverse bool
	metric  string
}

var (
	neverColor   = rgb(0x303030)
	missingColor = rgb(0xF4F4F4)
)

// color is a value's colour on the scale.
func (h *heatCells) color(v float64) color.Color {
	cm := moreland.SmoothBlueRed()
	cm.SetMin(0)
	cm.SetMax(1)
	f := 0.5
	if h.hi > h.lo {
		f = (v - h.lo) / (h.hi - h.lo)
	}
	if h.reverse {
		f = 1 - f
	}
	c, err := cm.At(min(1, max(0, f)))
	if err != nil {
		return missingColor
	}
	return c
}

// Plot draws the cells.
func (h *heatCells) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, cell := range h.cells {
		x0, x1 := trX(float64(cell.x)-0.5), trX(float64(cell.x)+0.5)
		y0, y1 := trY(float64(cell.y)-0.5), trY(float64(cell.y)+0.5)
		fill, label := missingColor, ""
		switch {
		case cell.missing:
		case !cell.has && h.metric == "recovery_s":
			fill, label = neverColor, "never"
		case !cell.has:
			label = "–"
		default:
			fill, label = h.color(cell.value), figureText(h.metric, cell.value)
		}
		c.FillPolygon(fill, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		c.StrokeLines(draw.LineStyle{Color: color.White, Width: vg.Points(1)}, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}, {X: x0, Y: y0}})
		if label == "" {
			continue
		}
		ink := color.Color(color.Black)
		if r, g, b, _ := fill.RGBA(); 0.299*float64(r)+0.587*float64(g)+0.114*float64(b) < 0.5*0xFFFF {
			ink = color.White
		}
		sty := text.Style{Color: ink, Font: font.From(sans, 8), XAlign: draw.XCenter, YAlign: draw.YCenter, Handler: p.TextHandler}
		c.FillText(sty, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, label)
	}
}

// DataRange is the grid's extent.
func (h *heatCells) DataRange() (xmin, xmax, ymin, ymax float64) {
	return -0.5, float64(h.nx) - 0.5, -0.5, float64(h.ny) - 0.5
}
