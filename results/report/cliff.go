package report

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/herdbench/herdbench/cliff"
	"github.com/herdbench/herdbench/internal/charts"
	"github.com/herdbench/herdbench/results/folder"
)

// A cliff search's results folder: cliff.json (package cliff's Document),
// probes.csv, scenario.yaml, the real runs' summaries; its report shows
// the boundaries, the phase map, the point of no return and the runs on
// sockets.

// The most LoadCliff reads of cliff.json.
const maxCliffBytes = 64 << 20

// IsCliff reports whether dir is a cliff search's results folder (it
// holds cliff.json).
func IsCliff(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "cliff.json"))
	return err == nil && st.Mode().IsRegular()
}

// Cliff is a cliff search's results folder read back from disk.
type Cliff struct {
	Dir      string
	Doc      *cliff.Document
	Scenario []byte // scenario.yaml, nil if none
	Notes    []string
}

// LoadCliff reads the cliff search's results folder dir.
func LoadCliff(dir string) (*Cliff, error) {
	data, err := folder.ReadRegular(filepath.Join(dir, "cliff.json"), maxCliffBytes)
	if err != nil {
		return nil, err
	}
	doc, err := cliff.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "cliff.json"), err)
	}
	c := &Cliff{Dir: dir, Doc: doc}
	if c.Scenario, err = folder.ReadRegular(filepath.Join(dir, "scenario.yaml"), maxScenarioBytes); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		c.Notes = append(c.Notes, "The folder has no scenario.yaml.")
	}
	if doc.Partial {
		c.Notes = append(c.Notes, "Interrupted: this is what the runs made until then found. A boundary marked unfinished has seeds whose edge is not known yet.")
	}
	return c, nil
}

// cliffCharts are the report's charts: the phase map, the point of no
// return.
func cliffCharts(d *cliff.Document) (out []chart, data *chartsData, pm phaseMapData) {
	if s := d.Search; s != nil {
		out = append(out, phaseMapChartOf(s))
		pm.Charts = append(pm.Charts, phaseMap(s))
	}
	var timed []chart
	if nr := d.NoReturn; nr != nil && len(nr.Points) > 0 {
		c := noReturnSpec(nr).chart()
		out, timed = append(out, c), append(timed, c)
	}
	return out, pageData(0, timed), pm
}

// RenderCliff renders a cliff search's report: report.html and a PNG per
// chart.
func RenderCliff(ctx context.Context, c *Cliff, o Options) ([]File, error) {
	cs, data, pm := cliffCharts(c.Doc)
	svgs, pngs, err := drawCharts(ctx, cs, &o)
	if err != nil {
		return nil, err
	}
	html, err := renderCliffHTML(c, cs, svgs, data, pm, o)
	if err != nil {
		return nil, err
	}
	return reportFiles(html, cs, pngs, o), nil
}

// cliffPage is the data of a cliff search's report.html.
type cliffPage struct {
	inline
	PhaseMapJS   template.JS
	PhaseMapData template.JS
	Title        string
	Subtitle     string
	Facts, Notes []string
	PhaseMaps    []figure
	NoReturn     *figure
	Boundaries   table
	Confirm      table
	Scenario     string
	Dir, Version string
}

func renderCliffHTML(c *Cliff, cs []chart, svgs [][]byte, data *chartsData, pm phaseMapData, o Options) ([]byte, error) {
	d := c.Doc
	p := cliffPage{Title: "herdbench: " + d.Scenario + ": where it stops recovering", Subtitle: d.Description, Notes: c.Notes,
		Scenario: string(c.Scenario), Dir: c.Dir, Version: o.Version, PhaseMapJS: template.JS(phaseMapJS)}
	p.Facts = append(p.Facts, fmt.Sprintf("virtual time · root seed %d · herdbench %s · started %s", d.Seed, d.Version, d.Started.UTC().Format("2006-01-02 15:04:05 UTC")))
	if len(d.Set) > 0 {
		p.Facts = append(p.Facts, "every run with "+strings.Join(d.Set, ", "))
	}
	p.Facts = append(p.Facts, d.Criterion)
	var err error
	if p.inline, err = newInline(data); err != nil {
		return nil, err
	}
	p.CSP += " " + charts.ScriptHash(phaseMapJS)
	b, err := json.Marshal(pm)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	p.PhaseMapData = template.JS(b)
	for _, f := range figures(cs, svgs, o) {
		if f.ID == "no_return" {
			p.NoReturn = &f
			continue
		}
		p.PhaseMaps = append(p.PhaseMaps, f)
	}
	if d.Search != nil {
		p.Boundaries = boundaryTable(d.Search)
	}
	p.Confirm = confirmTable(d.Confirm)
	var buf bytes.Buffer
	if err := cliffTemplate.Execute(&buf, p); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return buf.Bytes(), nil
}

// boundaryTable is a row per strategy (and line) with its boundary.
func boundaryTable(s *cliff.Summary) table {
	t := table{Caption: fmt.Sprintf("%d simulated runs; a --set sweep over the same grid, strategies and seeds makes %d", s.Runs, s.GridRuns)}
	t.Head = []string{"strategy"}
	if s.Y != nil {
		t.Head = append(t.Head, s.Y.Path)
	}
	t.Head = append(t.Head, "boundary", "95% interval", "every seed recovers", "every seed collapses", "seeds", "success during the fault (safe / lo / hi)")
	for _, st := range s.Strategies {
		for _, l := range st.Lines {
			r := row{Key: st.Name}
			if s.Y != nil && l.Y != nil {
				r.Cells = append(r.Cells, cell{Text: s.Y.Format(*l.Y), Numeric: true})
			}
			for _, text := range boundaryTexts(s.X, l) {
				r.Cells = append(r.Cells, cell{Text: text, Numeric: true})
			}
			r.Cells = append(r.Cells, cell{Text: costText(s.X, l.Cost), Missing: l.Cost == nil})
			t.Rows = append(t.Rows, r)
		}
	}
	return t
}

// boundaryTexts are a line's boundary, interval, band edges and seeds.
func boundaryTexts(x cliff.Axis, l cliff.Line) []string {
	if !l.Complete {
		return []string{"unfinished", "", "", "", fmt.Sprint(l.Seeds)}
	}
	t := l.Texts(x)
	if !l.Found {
		t.Median += " over the range"
	}
	return []string{t.Median, t.Interval, cmp.Or(t.Recovers, noValue), cmp.Or(t.Collapses, noValue), t.Seeds}
}

// noValue is a band edge the range does not hold.
const noValue = "no value in the range"

func costText(x cliff.Axis, c *cliff.Cost) string {
	if c == nil {
		return "—"
	}
	pct := func(v *float64) string {
		if v == nil {
			return "—"
		}
		return fmt.Sprintf("%.1f%%", 100**v)
	}
	return fmt.Sprintf("at %s: %s / %s / %s", x.Format(c.Safe), pct(c.AtSafe), pct(c.AtLow), pct(c.AtHigh))
}

func confirmTable(cs []cliff.Confirmation) table {
	t := table{Head: []string{"strategy", "value", "the search says", "on sockets", "landed", "verdict", "summary"}}
	for _, c := range cs {
		got := "collapsed"
		if c.RecoveryS != nil {
			got = fmt.Sprintf("recovered in %.2f s", *c.RecoveryS)
		}
		landed := "yes"
		switch {
		case c.Flagged():
			landed = "no, and its verdict flags it"
		case !c.Landed:
			landed = "no"
		}
		t.Rows = append(t.Rows, row{Key: c.Strategy, Cells: []cell{{Text: c.Text}, {Text: string(c.Expect)}, {Text: got}, {Text: landed}, {Text: c.Verdict + ": " + c.Sentence}, {Text: c.Summary}}})
	}
	return t
}

var cliffTemplate = template.Must(template.Must(baseTemplate.Clone()).New("cliff").Parse(`{{template "head" .}}{{if .Boundaries.Rows}}<section id="boundaries">
<h2>Where each strategy stops recovering</h2>
<div class="scroll">{{template "table" .Boundaries}}</div>
</section>
{{end}}{{range .PhaseMaps}}<section id="{{.ID}}-section">
<h2>{{.Title}}</h2>
<figure class="chart" id="{{.ID}}" data-chart="{{.ID}}" aria-label="{{.Title}}">
<div class="uplot-chart" data-phasemap="{{.ID}}"></div>
<figcaption>{{.Caption}}{{with .PNG}} <span class="file">Also saved as {{.}}.</span>{{end}}</figcaption>
</figure>
</section>
{{end}}{{with .NoReturn}}<section id="no-return">
<h2>The point of no return</h2>
{{template "figure" .}}</section>
{{end}}{{if .Confirm.Rows}}<section id="confirm">
<h2>On sockets, either side of each boundary</h2>
<div class="scroll">{{template "table" .Confirm}}</div>
</section>
{{end}}<section id="scenario">
<h2>The scenario as run</h2>
{{if .Scenario}}<pre>{{.Scenario}}</pre>{{else}}<p>No scenario.yaml in {{.Dir}}.</p>{{end}}
</section>

<footer>Rendered by herdbench {{.Version}} from cliff.json and scenario.yaml (probes.csv has every run); re-render with <code>herdbench report DIR</code>. Charts by uPlot {{.UPlotVersion}}. This file needs no network.</footer>
</main>
<script type="application/json" id="herdbench-phasemap">{{.PhaseMapData}}</script>
{{template "scripts" .}}<script>{{.PhaseMapJS}}</script>
</body>
</html>
`))
