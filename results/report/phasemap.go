package report

import (
	_ "embed"
	"fmt"
	"image/color"
	"math"
	"time"

	"github.com/herdbench/herdbench/cliff"
	"github.com/herdbench/herdbench/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The phase map of a cliff search, a chart kind of its own: drawn in the
// page by phasemap.js (uPlot's scatter mode: every probed cell a point
// coloured by its phase, the boundary a line, its 95% interval a band),
// and in Go for its PNG and SVG copies. The point of no return's chart is
// a plain chart over explicit x, drawn by charts.js.

//go:embed phasemap.js
var phaseMapJS string

// phase colours: recovered, collapsed, uncertain (phasemap.js has them too).
var phaseColors = [3]color.Color{rgb(0x2a9d4b), rgb(0xd7263d), rgb(0xf0a202)}

func phaseIndex(p cliff.Phase) int {
	switch p {
	case cliff.Collapsed:
		return 1
	case cliff.Uncertain:
		return 2
	}
	return 0
}

// phaseMapData is phasemap.js's data.
type phaseMapData struct {
	Charts []phaseMapChart `json:"charts"`
}

type phaseMapChart struct {
	ID     string          `json:"id"`
	XLabel string          `json:"x_label"`
	YLabel string          `json:"y_label"`
	Two    bool            `json:"two"`
	XRange [2]float64      `json:"x_range"`
	YRange [2]float64      `json:"y_range"`
	Panels []phaseMapPanel `json:"panels"`
}

type phaseMapPanel struct {
	Title string       `json:"title"`
	Cells [][5]float64 `json:"cells"` // x, y, phase, runs, collapsed
	Lines [][5]float64 `json:"lines"` // y, median, low, high, found (1 or 0)
}

// axisLabel names an axis with its unit.
func axisLabel(a cliff.Axis) string {
	if a.Unit == cliff.Duration {
		return a.Path + " (s)"
	}
	return a.Path
}

// phaseMap returns the phase map's data for the page.
func phaseMap(s *cliff.Summary) phaseMapChart {
	two := s.Y != nil
	pad := (s.X.Hi - s.X.Lo) * 0.03
	c := phaseMapChart{ID: "phase_map", XLabel: axisLabel(s.X), YLabel: "share collapsed", Two: two,
		XRange: [2]float64{s.X.Lo - pad, s.X.Hi + pad}, YRange: [2]float64{-0.05, 1.05}}
	if two {
		ypad := (s.Y.Hi - s.Y.Lo) * 0.04
		c.YLabel, c.YRange = axisLabel(*s.Y), [2]float64{s.Y.Lo - ypad, s.Y.Hi + ypad}
	}
	for _, st := range s.Strategies {
		p := phaseMapPanel{Title: st.Name, Cells: [][5]float64{}, Lines: [][5]float64{}}
		for _, cl := range st.Cells {
			y := float64(cl.Collapsed) / float64(cl.Runs)
			if two && cl.Y != nil {
				y = *cl.Y
			}
			p.Cells = append(p.Cells, [5]float64{cl.X, y, float64(phaseIndex(cl.Phase)), float64(cl.Runs), float64(cl.Collapsed)})
		}
		for _, l := range st.Lines {
			found := 0.0
			if l.Complete && l.Found {
				found = 1
			}
			y := 0.0
			if l.Y != nil {
				y = *l.Y
			}
			p.Lines = append(p.Lines, [5]float64{y, l.Median, l.Low, l.High, found})
		}
		c.Panels = append(c.Panels, p)
	}
	return c
}

// phaseMapChartOf draws the phase map in Go, for its PNG and SVG: a panel
// per strategy.
func phaseMapChartOf(s *cliff.Summary) chart {
	data := phaseMap(s)
	plots := make([]*plot.Plot, len(data.Panels))
	for i, pn := range data.Panels {
		p := newPlot(pn.Title)
		p.X.Label.Text, p.Y.Label.Text = data.XLabel, data.YLabel
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = data.XRange[0], data.XRange[1], data.YRange[0], data.YRange[1]
		addBand(p, data, pn)
		for ph := range phaseColors {
			var xys plotter.XYs
			for _, c := range pn.Cells {
				if int(c[2]) == ph {
					xys = append(xys, plotter.XY{X: c[0], Y: c[1]})
				}
			}
			if sc, err := plotter.NewScatter(xys); err == nil && len(xys) > 0 {
				sc.GlyphStyle = draw.GlyphStyle{Color: phaseColors[ph], Radius: vg.Points(2.6), Shape: draw.CircleGlyph{}}
				p.Add(sc)
			}
		}
		plots[i] = p
	}
	cols := 1
	if data.Two {
		cols = min(2, len(plots))
	}
	rows := (len(plots) + cols - 1) / cols
	panelH := 1.7 * vg.Inch
	if data.Two {
		panelH = 3 * vg.Inch
	}
	title := fmt.Sprintf("Phase map: where each strategy stops recovering, over %s", s.X.Path)
	if s.Y != nil {
		title += " × " + s.Y.Path
	}
	return chart{ID: "phase_map", Title: title, W: chartW, H: titleSpace + vg.Length(rows)*panelH + 0.3*vg.Inch,
		Caption: phaseCaption(s), draw: grid(title, plots, cols, nil, 0, 18, 10)}
}

// addBand draws a panel's boundary and its 95% interval.
func addBand(p *plot.Plot, data phaseMapChart, pn phaseMapPanel) {
	var found [][5]float64
	for _, l := range pn.Lines {
		if l[4] == 1 {
			found = append(found, l)
		}
	}
	if len(found) == 0 {
		return
	}
	var band, mid plotter.XYs
	if !data.Two {
		l := found[0]
		band = plotter.XYs{{X: l[2], Y: data.YRange[0]}, {X: l[3], Y: data.YRange[0]}, {X: l[3], Y: data.YRange[1]}, {X: l[2], Y: data.YRange[1]}}
		mid = plotter.XYs{{X: l[1], Y: data.YRange[0]}, {X: l[1], Y: data.YRange[1]}}
	} else {
		for _, l := range found {
			band = append(band, plotter.XY{X: l[2], Y: l[0]})
			mid = append(mid, plotter.XY{X: l[1], Y: l[0]})
		}
		for i := len(found) - 1; i >= 0; i-- {
			band = append(band, plotter.XY{X: found[i][3], Y: found[i][0]})
		}
	}
	if poly, err := plotter.NewPolygon(band); err == nil && len(band) >= 3 {
		poly.Color = color.NRGBA{R: 60, G: 60, B: 160, A: 34}
		poly.LineStyle.Width = 0
		p.Add(poly)
	}
	if ln, err := plotter.NewLine(mid); err == nil {
		ln.LineStyle = draw.LineStyle{Color: rgb(0x1f2a6b), Width: vg.Points(1.4)}
		p.Add(ln)
	}
}

func phaseCaption(s *cliff.Summary) string {
	c := "Every value the search ran, for each strategy: green where every seed run there recovered within the run, red where every one collapsed (recovery_s null), amber where some of each did. "
	if s.Y == nil {
		c += "The y axis is the share of those seeds that collapsed. "
	}
	c += "The dark line is the boundary (the median of the seeds' edges), the shaded band its 95% confidence interval. The search bisects each seed's bracket, so most values were run by a seed or two: the cells cluster around the edges."
	return c
}

// noReturnSpec is the point of no return's chart, one definition for its
// PNG and the page: the share of continuations that collapsed at each
// instant probed, with its one-sided 95% bounds, the 95% level and the
// fault window, against the run's time.
func noReturnSpec(nr *cliff.NoReturnRun) *spec {
	title := fmt.Sprintf("Point of no return of %s's run (seed %d)", nr.Strategy, nr.Seed)
	s := &spec{ID: "no_return", Title: title, title: title, Caption: noReturnCaption(nr), Group: "no_return",
		YLabel: "share of continuations that collapsed", Height: 260}
	pn := panel{Faults: []results.FaultWindow{{Name: "fault", AtS: nr.FaultStart.Seconds(), ForS: (nr.FaultEnd - nr.FaultStart).Seconds()}},
		FaultNames: true, legend: true}
	var share, lower, upper []*float64
	for _, p := range nr.Points {
		s.X = append(s.X, p.At.Seconds())
		share, lower, upper = append(share, ptr(p.Share)), append(lower, ptr(p.Lower)), append(upper, ptr(p.Upper))
	}
	if len(s.X) > 0 {
		s.XRange = []float64{math.Min(s.X[0], nr.FaultStart.Seconds()), math.Max(s.X[len(s.X)-1], nr.FaultEnd.Seconds())}
		s.duration = time.Duration(s.XRange[1] * float64(time.Second))
	}
	grey := rgb(0x888888)
	pn.Series = []line{
		{Label: "collapsed", color: phaseColors[1], width: vg.Points(1.6), Values: share, Ref: &chartRef{Label: "95%", Value: cliff.Level}},
		{Label: "lower bound (95%)", color: grey, width: vg.Points(0.8), dashes: []vg.Length{vg.Points(4), vg.Points(3)}, Values: lower},
		{Label: "upper bound (95%)", color: grey, width: vg.Points(0.8), dashes: []vg.Length{vg.Points(1), vg.Points(3)}, Values: upper},
	}
	s.Panels = []panel{pn}
	return s
}

func ptr(v float64) *float64 { return &v }

func noReturnCaption(nr *cliff.NoReturnRun) string {
	c := fmt.Sprintf("The run's whole state at each instant probed, continued %d times with fresh randomness and the fault removed from that instant on: the share that still collapsed, with its one-sided 95%% bounds (dashed), against the 95%% level. ", nr.Continuations)
	if nr.Found {
		c += fmt.Sprintf("Collapse is 95%% likely from %.2f s on (%.2f s after the fault began): the last instant at which it is surely not yet is %.2f s, the first at which it surely is %.2f s.",
			nr.Instant.Seconds(), (nr.Instant - nr.FaultStart).Seconds(), nr.Low.Seconds(), nr.High.Seconds())
	} else {
		c += "Collapse is not 95% likely even from the last instant probed."
	}
	return c
}
