package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"slices"
	"strconv"
	"strings"

	"github.com/herdbench/herdbench/internal/charts"

	"github.com/herdbench/herdbench/internal/uplot"
	"github.com/herdbench/herdbench/results"
)

// table is a table of the report: a header row and rows of cells.
type table struct {
	Caption string
	Head    []string
	Rows    []row
}

type row struct {
	Key, Help string
	Cells     []cell
	Group     bool // the first row of a new group of fields (e.g. latency_ms.request)
}

type cell struct {
	Text    string
	Numeric bool
	Missing bool
	Sim     bool // the simulator's figure beside a real one
}

// Class is the cell's CSS classes, "" for none.
func (c cell) Class() string {
	var cs []string
	switch {
	case c.Numeric:
		cs = append(cs, "num")
	case c.Missing:
		cs = append(cs, "missing")
	}
	if c.Sim {
		cs = append(cs, "sim")
	}
	return strings.Join(cs, " ")
}

func newCell(text string, ok bool) cell {
	if !ok {
		return cell{Text: "–", Missing: true}
	}
	_, err := strconv.ParseFloat(text, 64)
	return cell{Text: text, Numeric: err == nil}
}

// metricHelp is the definition the report shows on hover over a headline
// metric's row (results.Metric.Help); "" for other rows. The table shows
// every field of summary.json whether or not it has one; docs/results.md
// is the full reference.
func metricHelp(path string) string {
	if m, ok := results.LookupMetric(path); ok && m.Headline {
		return m.Help
	}
	return ""
}

// simPrefix starts the paths of a real cohort's simulator figures
// (runs[].sim), latePrefix those of the simulator given the run's own
// lateness (runs[].sim_with_lateness): each gets a column of its own
// beside the cohort's.
const (
	simPrefix  = "sim."
	latePrefix = "sim_with_lateness."
)

// metricsTable is the comparison table: one column per cohort (per run),
// one row per field of the cohorts' entries in summary.json, in file order.
// A cohort of a real run that carries the simulator's figures for the same
// seed (runs[].sim) gets a second column beside its own, "(sim)", with
// them on the rows of the same metrics, and one more, "(sim, late)", when
// it carries the simulator's with its own lateness too.
func metricsTable(v *view) table {
	t := table{Head: []string{"metric"}}
	var paths []string
	type column struct {
		e      entry
		prefix string // the figures' paths' prefix: "" for the cohort's own
	}
	var cols []column
	for _, e := range v.entries {
		t.Head = append(t.Head, e.label)
		cols = append(cols, column{e, ""})
		if e.index < len(e.run.Doc.Runs) {
			hasSim, hasLate := false, false
			for _, f := range e.run.Doc.Runs[e.index] {
				switch {
				case strings.HasPrefix(f.Path, simPrefix):
					hasSim = true
				case strings.HasPrefix(f.Path, latePrefix):
					hasLate = true
				case f.Path != "strategy" && !slices.Contains(paths, f.Path):
					paths = append(paths, f.Path)
				}
			}
			if hasSim {
				t.Head = append(t.Head, e.label+" (sim)")
				cols = append(cols, column{e, simPrefix})
			}
			if hasLate {
				t.Head = append(t.Head, e.label+" (sim, late)")
				cols = append(cols, column{e, latePrefix})
			}
		}
	}
	prevGroup := ""
	for _, p := range paths {
		r := row{Key: p, Help: metricHelp(p)}
		if g := group(p); g != prevGroup {
			r.Group = g != "" || prevGroup != ""
			prevGroup = g
		}
		for _, c := range cols {
			var text string
			ok := false
			if c.e.index < len(c.e.run.Doc.Runs) {
				text, ok = lookup(c.e.run.Doc.Runs[c.e.index], c.prefix+p)
			}
			cl := newCell(text, ok)
			cl.Sim = c.prefix != ""
			r.Cells = append(r.Cells, cl)
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// group is a field path without its last element: "latency_ms.request" for
// "latency_ms.request.p99", "" for a top-level field.
func group(path string) string {
	if i := strings.LastIndexAny(path, ".["); i > 0 {
		return path[:i]
	}
	return ""
}

// runTables are the top-level fields of each run's summary.json: one table
// of scalars and objects (a column per run), and one table per array of
// objects (e.g. faults) per run.
func runTables(v *view) (fields table, lists []table) {
	fields.Head = []string{"field"}
	var paths []string
	flat := make([][]Field, len(v.runs))
	for i, r := range v.runs {
		fields.Head = append(fields.Head, r.Label)
		for _, m := range r.Doc.Fields {
			if objs, ok := objectList(m.Raw); ok {
				lists = append(lists, listTable(m.Key, r, objs, len(v.runs) > 1))
				continue
			}
			fs, err := flatten(m.Raw)
			if err != nil {
				continue // parseDocument already decoded it
			}
			for _, f := range fs {
				switch {
				case f.Path == "":
					f.Path = m.Key
				case f.Path[0] == '[':
					f.Path = m.Key + f.Path
				default:
					f.Path = m.Key + "." + f.Path
				}
				flat[i] = append(flat[i], f)
				if !slices.Contains(paths, f.Path) {
					paths = append(paths, f.Path)
				}
			}
		}
	}
	for _, p := range paths {
		r := row{Key: p}
		for i := range v.runs {
			text, ok := lookup(flat[i], p)
			c := newCell(text, ok)
			c.Numeric = false
			r.Cells = append(r.Cells, c)
		}
		fields.Rows = append(fields.Rows, r)
	}
	return fields, lists
}

// objectList reports whether raw is a non-empty array of objects, and
// returns them flattened.
func objectList(raw json.RawMessage) ([][]Field, bool) {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil || len(items) == 0 {
		return nil, false
	}
	out := make([][]Field, len(items))
	for i, it := range items {
		if !bytes.HasPrefix(bytes.TrimSpace(it), []byte("{")) {
			return nil, false
		}
		fs, err := flatten(it)
		if err != nil {
			return nil, false
		}
		out[i] = fs
	}
	return out, true
}

func listTable(key string, r *Run, objs [][]Field, withLabel bool) table {
	t := table{Caption: key}
	if withLabel {
		t.Caption = fmt.Sprintf("%s (%s)", key, r.Label)
	}
	for _, o := range objs {
		for _, f := range o {
			if !slices.Contains(t.Head, f.Path) {
				t.Head = append(t.Head, f.Path)
			}
		}
	}
	for _, o := range objs {
		var rw row
		for j, h := range t.Head {
			text, ok := lookup(o, h)
			c := newCell(text, ok)
			if j == 0 {
				rw.Key = c.Text
				continue
			}
			rw.Cells = append(rw.Cells, c)
		}
		t.Rows = append(t.Rows, rw)
	}
	return t
}

type figure struct {
	chart
	SVG template.HTML
	PNG string // the PNG file beside the report, "" if none
	// Interactive is set when charts.js draws the chart (uPlot) in the
	// page instead of its SVG.
	Interactive bool
}

// inline is what every page inlines to draw its interactive charts, and
// the Content-Security-Policy that lets exactly those scripts run: by
// their hashes, so nothing else can (no 'unsafe-inline' for scripts).
// Styles stay 'unsafe-inline': uPlot sizes its elements with style
// attributes, which a hash cannot allow.
type inline struct {
	CSP      string
	UPlotCSS template.CSS
	UPlotJS  template.JS
	ChartsJS template.JS
	Data     template.JS // the charts' data, JSON (chartsData)
}

// UPlotVersion is the inlined uPlot's version, for the footer.
func (inline) UPlotVersion() string { return uplot.Version }

func newInline(data *chartsData) (inline, error) {
	js, err := marshalData(data)
	if err != nil {
		return inline{}, err
	}
	return inline{
		CSP:      "default-src 'none'; style-src 'unsafe-inline'; script-src " + charts.ScriptHash(uplot.JS) + " " + charts.ScriptHash(charts.JS),
		UPlotCSS: template.CSS(uplot.CSS),
		UPlotJS:  template.JS(uplot.JS),
		ChartsJS: template.JS(charts.JS),
		Data:     template.JS(js),
	}, nil
}

// figures are charts as the page shows them: the ones with a spec and
// data drawn by charts.js, the others as their SVG.
func figures(charts []chart, svgs [][]byte, o Options) []figure {
	var out []figure
	for i, c := range charts {
		f := figure{chart: c, Interactive: c.spec != nil && !c.Empty}
		if f.Interactive {
			f.Title = c.spec.titled(false)
		} else {
			f.SVG = template.HTML(svgs[i])
		}
		if !o.NoPNG && !c.Empty {
			f.PNG = c.ID + ".png"
		}
		out = append(out, f)
	}
	return out
}

type scenarioText struct {
	Label, Dir, YAML string
}

type page struct {
	inline
	Title, Subtitle string
	Facts           []string // one line per run: mode, seed, version, start
	Overlay         bool
	Notes           []string
	Fields          table
	Lists           []table
	Metrics         table
	Headline        table     // the headline figures of Metrics
	Verdicts        []verdict // a real run's answer, first on the page
	SelfCheck       []selfCheck
	Explain         []explanation
	Lead            *figure // the headline chart, on the first screen
	Figures         []figure
	Scenarios       []scenarioText
	Version         string
}

// verdict is a real run's verdict (summary.json's "verdict") in its
// sentence, and whether its figures can be taken at their word.
type verdict struct {
	Text    string
	Trusted bool
}

// selfCheck is a run's self-check line and whether the harness kept up.
type selfCheck struct {
	Text    string
	OK      bool
	Reasons []string // every warning, when there are several: folded under the line
}

// headlineTable is the headline metrics (results.Metric.Headline) of the
// comparison table turned on its side: a row per cohort (and its sim
// figures), a column per metric, so it fits the first screen.
func headlineTable(all table) table {
	t := table{Head: []string{"cohort"}}
	var rows []row
	for _, r := range all.Rows {
		if m, ok := results.LookupMetric(r.Key); ok && m.Headline {
			t.Head = append(t.Head, r.Key)
			rows = append(rows, r)
		}
	}
	for j, label := range all.Head[1:] {
		rw := row{Key: label}
		for _, r := range rows {
			rw.Cells = append(rw.Cells, r.Cells[j])
		}
		t.Rows = append(t.Rows, rw)
	}
	return t
}

type explanation struct {
	Label string
	Lines []string
}

func renderHTML(v *view, charts []chart, svgs [][]byte, o Options) ([]byte, error) {
	p := page{Version: o.Version, Overlay: len(v.runs) > 1}
	var err error
	if p.inline, err = newInline(pageData(v.duration, charts)); err != nil {
		return nil, err
	}
	var names []string
	for _, r := range v.runs {
		if !slices.Contains(names, r.Summary.Scenario) {
			names = append(names, r.Summary.Scenario)
		}
		p.addRun(r)
	}
	p.Title = "herdbench: " + strings.Join(names, ", ")
	if p.Overlay {
		labels := make([]string, len(v.runs))
		for i, r := range v.runs {
			labels[i] = r.Label
		}
		p.Title += ": " + strings.Join(labels, " vs ")
	} else {
		if r := v.runs[0]; r.Label != r.Summary.Scenario {
			p.Title += " (" + r.Label + ")" // the results folder, "outage-20261201T200000Z"
		}
		p.Subtitle = v.runs[0].Summary.Description
	}
	p.Fields, p.Lists = runTables(v)
	p.Metrics = metricsTable(v)
	p.Headline = headlineTable(p.Metrics)
	p.Figures = figures(charts, svgs, o)
	if len(p.Figures) > 0 && p.Figures[0].Interactive {
		p.Lead, p.Figures = &p.Figures[0], p.Figures[1:]
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, p); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return buf.Bytes(), nil
}

// addRun adds what the page says of run r: its notes, verdict, reading,
// scenario, facts and self-check, each named by r's label in an overlay.
func (p *page) addRun(r *Run) {
	label := func(text string) string {
		if p.Overlay {
			return r.Label + ": " + text
		}
		return text
	}
	sm := r.Summary
	for _, n := range r.Notes {
		p.Notes = append(p.Notes, r.Label+": "+n)
	}
	if sm.Partial {
		p.Notes = append(p.Notes, r.Label+": the run was interrupted; its figures cover what was recorded (partial).")
	}
	if line := results.ProvenanceLine(sm); line != "" {
		// A recording of real clients: say so first, and what its
		// figures cannot tell.
		p.Notes = append(p.Notes, r.Label+": "+line)
		for _, n := range sm.Recorded.Notes {
			p.Notes = append(p.Notes, r.Label+": "+n)
		}
	}
	if vd := sm.Verdict; vd != nil && vd.Sentence != "" {
		p.Verdicts = append(p.Verdicts, verdict{Text: label(vd.Sentence), Trusted: vd.Trusted()})
	}
	if lines := results.Explain(sm); len(lines) > 0 {
		p.Explain = append(p.Explain, explanation{Label: r.Label, Lines: lines})
	}
	p.Scenarios = append(p.Scenarios, scenarioText{Label: r.Label, Dir: r.Dir, YAML: string(r.Scenario)})
	workload := sm.Workload + " workload"
	if sm.Recorded != nil {
		workload = "the real clients of " + sm.Recorded.Address + ", by " + sm.Recorded.CohortBy
	}
	fact := fmt.Sprintf("%s mode · seed %d · herdbench %s · started %s · %s s · %s · %d cohorts",
		sm.Mode, sm.Seed, sm.Version, sm.Started.UTC().Format("2006-01-02 15:04:05 UTC"), trim(sm.DurationS), workload, len(sm.Runs))
	if sm.CohortsApart {
		fact += " · cohorts run one after the other"
	}
	p.Facts = append(p.Facts, label(fact))
	line := results.SelfCheckLine(sm)
	if line == "" {
		line = "self-check: none in virtual time (the simulator's clock cannot fall behind)."
	}
	var reasons []string
	if sm.Harness != nil && !sm.Harness.Trustworthy && len(sm.Harness.Warnings) > 1 {
		reasons = sm.Harness.Warnings
	}
	p.SelfCheck = append(p.SelfCheck, selfCheck{Text: label(line), OK: sm.Harness == nil || sm.Harness.Trustworthy, Reasons: reasons})
}

// folded is a description of several lines: its first line, and the rest
// shown on a click, so the verdict and the headline chart stay on the first
// screen.
type folded struct{ Head, Rest string }

// summaryLine folds a description longer than two lines; nil otherwise.
func summaryLine(text string) *folded {
	head, rest, ok := strings.Cut(strings.TrimSpace(text), "\n")
	if !ok || strings.Count(rest, "\n") < 1 {
		return nil
	}
	return &folded{Head: head, Rest: rest}
}

// baseTemplate holds what a run's page and a sweep's share: the head
// (title, facts, subtitle and notes), the charts, the style and the tables.
var baseTemplate = template.Must(template.New("base").Funcs(template.FuncMap{"summaryLine": summaryLine}).Parse(`{{define "head"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="herdbench {{.Version}}">
<title>{{.Title}}</title>
{{template "style"}}<style>{{.UPlotCSS}}</style>
</head>
<body>
<main>
<header>
<h1>{{.Title}}</h1>
{{range .Facts}}<p class="facts">{{.}}</p>
{{end}}{{with .Subtitle}}{{with summaryLine .}}<details class="subtitle"><summary>{{.Head}}</summary>{{.Rest}}</details>{{else}}<p class="subtitle">{{.}}</p>{{end}}{{end}}
</header>
{{with .Notes}}<div class="notes" role="note"><ul>{{range .}}<li>{{.}}</li>{{end}}</ul></div>{{end}}
{{end}}
{{define "charts"}}<section id="charts">
<h2>Charts</h2>
<p class="howto">Drag across a chart to zoom in (the bins narrow as you zoom, down to the recorded buckets), shift-drag to pan, ctrl-wheel to zoom at the pointer, double-click to zoom out. The charts over time zoom together. Click a name in a legend to hide or show its series.</p>
{{range .Figures}}{{template "figure" .}}{{end}}
</section>
{{end}}
{{define "figure"}}<figure class="chart" id="{{.ID}}" data-chart="{{.ID}}" aria-label="{{.Title}}">
{{if .Interactive}}<h3>{{.Title}}</h3>
<div class="uplot-chart" data-uplot="{{.ID}}"></div>
{{else}}{{.SVG}}
{{end}}<figcaption>{{.Caption}}{{with .PNG}} <span class="file">Also saved as {{.}}.</span>{{end}}</figcaption>
</figure>
{{end}}
{{define "scripts"}}<script type="application/json" id="herdbench-data">{{.Data}}</script>
<script>{{.UPlotJS}}</script>
<script>{{.ChartsJS}}</script>
{{end}}
{{define "style"}}<style>
:root { color-scheme: light; }
body { font: 15px/1.45 "Liberation Sans", Arial, Helvetica, sans-serif; color: #1a1a1a; background: #fff; margin: 0; }
main { max-width: 1100px; margin: 0 auto; padding: 1.5rem 1.25rem 3rem; }
h1 { font-size: 1.6rem; margin: 0 0 .3rem; }
h2 { font-size: 1.2rem; margin: 2.2rem 0 .6rem; border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
h3 { font-size: 1rem; margin: 1.6rem 0 .3rem; }
.facts { color: #555; font-size: .85rem; margin: 0 0 .2rem; }
.subtitle { color: #444; margin: 0 0 1rem; white-space: pre-line; }
details.subtitle summary { cursor: pointer; }
.notes { background: #fff6e0; border: 1px solid #f0d58c; padding: .5rem 1rem; border-radius: 4px; }
nav ul { columns: 2; padding-left: 1.2rem; margin: .3rem 0; }
table { border-collapse: collapse; font-size: .85rem; margin: .4rem 0 1rem; }
th, td { padding: .22rem .6rem; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
thead th { border-bottom: 2px solid #bbb; background: #fafafa; position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.missing { color: #aaa; text-align: center; }
td.sim { color: #666; background: #f7f7fb; }
tr.group th, tr.group td { border-top: 1px solid #bbb; }
th.key { font-weight: normal; font-family: "Liberation Mono", Menlo, Consolas, monospace; font-size: .8rem; white-space: nowrap; }
th[title] { text-decoration: underline dotted #999; cursor: help; }
caption { text-align: left; font-weight: bold; padding: .2rem 0; }
.scroll { overflow-x: auto; }
figure.chart { margin: 1.5rem 0 2.5rem; }
figure.chart + figure.chart { padding-top: 1rem; border-top: 1px solid #ddd; }
figure.chart svg { width: 100%; height: auto; display: block; }
figure.chart svg text { font-family: "Liberation Sans", Arial, Helvetica, sans-serif !important; }
figcaption { color: #333; font-size: .9rem; margin: .3rem 0 0; }
figcaption .file { color: #777; font-family: "Liberation Mono", Menlo, Consolas, monospace; font-size: .8rem; }
pre { background: #f6f6f6; border: 1px solid #e3e3e3; padding: .7rem; overflow-x: auto; font-size: .8rem; }
footer { color: #777; font-size: .8rem; margin-top: 3rem; }
figure.chart h3 { text-align: center; font-size: 1rem; margin: 0 0 .3rem; }
.uplot-chart { width: 100%; min-height: 120px; }
.uplot-chart .u-title { font-size: .9rem; font-weight: bold; }
.uplot-chart .u-legend { font-size: .8rem; }
.hb-status, .howto { color: #666; font-size: .8rem; margin: .2rem 0; }
.verdict ul { margin: .3rem 0 .6rem; }
.selfcheck { font-size: .9rem; margin: .2rem 0; padding: .3rem .6rem; border-radius: 4px; }
.selfcheck.ok { background: #eef7ee; border: 1px solid #b9dcb9; }
.selfcheck.bad { background: #fdeaea; border: 1px solid #e6a3a3; font-weight: bold; }
.verdict-line { font-size: 1.05rem; margin: .6rem 0 .2rem; }
#verdict figure.chart { margin-top: .6rem; }
</style>
{{end}}
{{define "scenario"}}<section id="scenario">
<h2>The scenario as run</h2>
{{range .Scenarios}}{{if $.Overlay}}<h3>{{.Label}} <small>({{.Dir}})</small></h3>{{end}}
{{if .YAML}}<pre>{{.YAML}}</pre>{{else}}<p>No scenario.yaml in {{.Dir}}.</p>{{end}}
{{end}}
</section>
{{end}}
{{define "table"}}<table>
{{with .Caption}}<caption>{{.}}</caption>{{end}}
<thead><tr>{{range .Head}}<th scope="col">{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr{{if .Group}} class="group"{{end}}><th scope="row" class="key"{{with .Help}} title="{{.}}"{{end}}>{{.Key}}</th>{{range .Cells}}<td{{with .Class}} class="{{.}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody>
</table>{{end}}
`))

var pageTemplate = template.Must(template.Must(baseTemplate.Clone()).New("report").Parse(`{{template "head" .}}<section id="verdict" class="verdict">
{{range .Verdicts}}<p class="selfcheck verdict-line {{if .Trusted}}ok{{else}}bad{{end}}">{{.Text}}</p>
{{end}}{{with .Lead}}{{template "figure" .}}{{end}}</section>
<section id="headline" class="verdict">
<h2>What the run{{if .Overlay}}s{{end}} show{{if not .Overlay}}s{{end}}</h2>
<div class="scroll">{{template "table" .Headline}}</div>
{{range .SelfCheck}}<p class="selfcheck {{if .OK}}ok{{else}}bad{{end}}">{{.Text}}</p>
{{with .Reasons}}<details class="reasons"><summary>every reason ({{len .}})</summary><ul>{{range .}}<li>{{.}}</li>{{end}}</ul></details>
{{end}}{{end}}</section>
<section id="reading" class="verdict">
<h2>Reading the figures</h2>
{{range .Explain}}{{if $.Overlay}}<h3>{{.Label}}</h3>{{end}}
<ul class="explain">{{range .Lines}}<li>{{.}}</li>{{end}}</ul>
{{end}}</section>
<nav aria-label="contents"><ul>
{{with .Lead}}<li><a href="#{{.ID}}">{{.Title}}</a></li>
{{end}}<li><a href="#headline">What the run{{if .Overlay}}s{{end}} show{{if not .Overlay}}s{{end}}</a></li>
<li><a href="#reading">Reading the figures</a></li>
{{range .Figures}}<li><a href="#{{.ID}}">{{.Title}}</a></li>
{{end}}<li><a href="#summary">Comparison table</a></li>
<li><a href="#run">The run{{if .Overlay}}s{{end}}: seed, mode, version, faults</a></li>
<li><a href="#scenario">The scenario as run</a></li>
</ul></nav>
{{template "charts" .}}
<section id="summary">
<h2>Comparison: every metric of summary.json</h2>
<div class="scroll">{{template "table" .Metrics}}</div>
</section>

<section id="run">
<h2>The run{{if .Overlay}}s{{end}}</h2>
<div class="scroll">{{template "table" .Fields}}</div>
{{range .Lists}}<div class="scroll">{{template "table" .}}</div>{{end}}
</section>

{{template "scenario" .}}

<footer>Rendered by herdbench {{.Version}} from summary.json, timeline.csv, the .hlog files and scenario.yaml; re-render with <code>herdbench report DIR</code>. This file needs no network: its charts are drawn by uPlot {{.UPlotVersion}} (MIT licence), inlined.</footer>
</main>
{{template "scripts" .}}</body>
</html>

`))
