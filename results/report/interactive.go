package report

import (
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot/vg"
)

// The page draws the charts that have a spec (spec.go) in the browser
// with uPlot: charts.js (its API is at its top) reads the page's data, a
// chartsData as JSON, and draws every spec into the element of the same
// id; pageSpec fills in the page's share of each. The PNGs are drawn from
// the same specs in Go (spec.chart).

// chartsData is what charts.js's mount reads: the counts, run-length
// encoded (see rle), and the charts that draw them.
type chartsData struct {
	DurationS float64 `json:"duration_s"`
	// Series are counts per bucket, each referenced by its index from a
	// line's Data.
	Series [][]int64 `json:"series"`
	Charts []*spec   `json:"charts"`
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

// cssColor is c as CSS: #rrggbb when opaque, else rgba() with its alpha.
func cssColor(c color.Color) string {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	if n.A == 0xff {
		return fmt.Sprintf("#%02x%02x%02x", n.R, n.G, n.B)
	}
	return fmt.Sprintf("rgba(%d,%d,%d,%.2f)", n.R, n.G, n.B, float64(n.A)/0xff)
}

// pixels is a length in CSS pixels (4/3 of a point), to a tenth.
func pixels(l vg.Length) float64 { return math.Round(l.Points()*4/3*10) / 10 }

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

// pageData is the page's chart data: a chartSpec for each of charts with a
// spec and something to draw (the others are the page's SVG), the counts
// they draw each once.
func pageData(duration time.Duration, charts []chart) *chartsData {
	data := &chartsData{DurationS: duration.Seconds()}
	st := &seriesTable{data: data, index: map[string]int{}}
	for _, c := range charts {
		if c.spec != nil && !c.Empty {
			data.Charts = append(data.Charts, st.pageSpec(c.spec))
		}
	}
	return data
}

// pageSpec fills in s's share of the page: its title without the PNG's
// bins, each line's colour, dashes and width in CSS pixels, fill, and
// counts at ResS (10 ms for the attempts, so that zooming in reaches
// single buckets), its values to a thousandth.
func (st *seriesTable) pageSpec(orig *spec) *spec {
	s := *orig // a copy: the PNG draws the original
	s.Title, s.Panels = s.titled(false), slices.Clone(s.Panels)
	res := time.Duration(math.Round(s.ResS*1e3)) * time.Millisecond
	for i := range s.Panels {
		pn := &s.Panels[i]
		pn.Series = slices.Clone(pn.Series)
		for j := range pn.Series {
			l := &pn.Series[j]
			l.Color, l.Width, l.Dash = cssColor(l.color), max(0.5, pixels(l.width)), nil
			for _, d := range l.dashes {
				l.Dash = append(l.Dash, pixels(d))
			}
			switch {
			case pn.Stacked:
				l.Fill = l.Color
			case l.fill != nil:
				l.Fill = cssColor(l.fill)
			}
			if l.count != nil {
				tl, count := l.tl, l.count
				l.Data = st.add(l.key+"@"+res.String(), func() []int64 {
					t := rebin(tl, res)
					out := make([]int64, len(t.Rows))
					for i := range t.Rows {
						out[i] = count(&t.Rows[i])
					}
					return out
				})
			}
			vals := make([]*float64, len(l.Values))
			for k, v := range l.Values {
				if v != nil {
					vals[k] = new(float64)
					*vals[k] = math.Round(*v*1000) / 1000
				}
			}
			l.Values = vals
		}
	}
	return &s
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
