package report

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
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

// linesAgainst returns the lines of a chart against axis k, each with the
// value index on every other axis (-1 on k's): every cohort at every
// combination of the other axes' values, the cohort's colour for all of
// its lines, a dash pattern per combination.
func (v *sweepView) linesAgainst(k int) (lines []line, strategies []string, others [][]int) {
	combos := [][]int{make([]int, len(v.axes))}
	for j, a := range v.axes {
		if j == k {
			continue
		}
		var next [][]int
		for _, c := range combos {
			for i := range a.values {
				d := slices.Clone(c)
				d[j] = i
				next = append(next, d)
			}
		}
		combos = next
	}
	for si, s := range v.strategies {
		for ci, c := range combos {
			c[k] = -1
			label := s
			for j, a := range v.axes {
				if j != k {
					label += ", " + a.field + "=" + a.values[c[j]]
				}
			}
			lines = append(lines, line{Label: label, color: palette[si%len(palette)], dashes: dashCycle[ci%len(dashCycle)], width: vg.Points(1.3)})
			strategies, others = append(strategies, s), append(others, c)
		}
	}
	return lines, strategies, others
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

// xAxis sets p's x axis to a swept field's (s's): its values as ticks (as
// written), on a log scale when they span two decades or more; the
// field's name under it if label.
func xAxis(p *plot.Plot, s *spec, label bool) {
	if label {
		p.X.Label.Text = s.XLabel
	}
	if s.XLog {
		p.X.Scale = plot.LogScale{}
	}
	p.X.Min, p.X.Max = s.XRange[0], s.XRange[1]
	// A value too close to the last labelled one is a tick without a
	// label: the labels would run into each other.
	where := func(x float64) float64 {
		if s.XLog {
			return math.Log(x)
		}
		return x
	}
	span := where(p.X.Max) - where(p.X.Min)
	var ticks []plot.Tick
	last := math.Inf(-1)
	for _, t := range s.XTicks {
		label := t.Label
		if (where(t.Value)-last)/span < 0.07 {
			label = ""
		} else {
			last = where(t.Value)
		}
		ticks = append(ticks, plot.Tick{Value: t.Value, Label: label})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
}

// againstSpec is every metric of metrics against swept field k, a panel
// each, a line per cohort (and per combination of the other swept
// fields' values), with the repetitions' sd as error bars; the values in
// their order on the axis.
func (v *sweepView) againstSpec(k int, metrics []string) *spec {
	a := v.axes[k]
	id := fmt.Sprintf("sweep_%d", k+1)
	caption := fmt.Sprintf("Each figure of every cohort at each value of %s: the mean over the repetitions, with their standard deviation as error bars when there were several. ", a.field)
	if len(v.axes) > 1 {
		caption += "One line per cohort and combination of the other swept fields' values (dashed differently). "
	}
	caption += "A point without a figure is left out: recovery_s has none where the service never recovered within the run."
	s := &spec{ID: id, title: "Every figure against " + a.field, XLabel: a.field, Caption: caption, Height: 220, Points: true, XLog: a.log,
		Group: id, Columns: 2, SyncLegend: true}
	order := make([]int, len(a.at)) // the values by position on the axis
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(a.at[x], a.at[y]) })
	for _, i := range order {
		s.X = append(s.X, a.at[i])
		s.XTicks = append(s.XTicks, xTick{Value: a.at[i], Label: a.values[i]})
	}
	lo, hi := slices.Min(a.at), slices.Max(a.at)
	if pad := (hi - lo) * 0.04; a.log {
		s.XRange = []float64{lo / 1.15, hi * 1.15}
	} else {
		if pad == 0 {
			pad = 0.5
		}
		s.XRange = []float64{lo - pad, hi + pad}
	}
	lines, strategies, others := v.linesAgainst(k)
	for _, m := range metrics {
		pn := panel{Title: metricTitle(m)}
		for n, l := range lines {
			l.Values, l.SD = make([]*float64, len(order)), make([]float64, len(order))
			idx := slices.Clone(others[n])
			for j, i := range order {
				idx[k] = i
				if y, sd, ok := v.figure(idx, strategies[n], m); ok {
					l.Values[j], l.SD[j] = &y, sd
				}
			}
			pn.Series = append(pn.Series, l)
		}
		s.Panels = append(s.Panels, pn)
	}
	return s
}

// grid draws plots in cols columns under a title and a legend of entries
// laid out in three columns (legendH high), their data areas aligned, padX
// and padY apart.
func grid(title string, plots []*plot.Plot, cols int, entries []legendEntry, legendH, padX, padY vg.Length) func(draw.Canvas) {
	return func(dc draw.Canvas) {
		sty := text.Style{Color: color.Black, Font: font.From(sans, 12), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
		dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y - 6}, title)
		if len(entries) > 0 {
			drawLegendColumns(dc, entries, 3, dc.Max.Y-titleSpace, legendH)
		}
		rows := make([][]*plot.Plot, (len(plots)+cols-1)/cols)
		for i := range rows {
			rows[i] = make([]*plot.Plot, cols)
			for j := range cols {
				if i*cols+j < len(plots) {
					rows[i][j] = plots[i*cols+j]
				}
			}
		}
		tiles := draw.Tiles{Rows: len(rows), Cols: cols, PadTop: titleSpace + legendH, PadX: padX, PadY: padY, PadBottom: 2, PadLeft: 2, PadRight: 8}
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
	return chart{ID: "heatmap_" + fileID(m), Title: title, W: chartW, H: h, Caption: caption, draw: grid(title, plots, cols, nil, 0, 18, 10)}
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
