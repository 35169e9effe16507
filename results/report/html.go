package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"slices"
	"strconv"
	"strings"

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
// (runs[].sim): they get a column of their own beside the cohort's.
const simPrefix = "sim."

// metricsTable is the comparison table: one column per cohort (per run),
// one row per field of the cohorts' entries in summary.json, in file order.
// A cohort of a real run that carries the simulator's figures for the same
// seed (runs[].sim) gets a second column beside its own, "(sim)", with
// them on the rows of the same metrics.
func metricsTable(v *view) table {
	t := table{Head: []string{"metric"}}
	var paths []string
	type column struct {
		e   entry
		sim bool
	}
	var cols []column
	for _, e := range v.entries {
		t.Head = append(t.Head, e.label)
		cols = append(cols, column{e, false})
		if e.index < len(e.run.Doc.Runs) {
			hasSim := false
			for _, f := range e.run.Doc.Runs[e.index] {
				if strings.HasPrefix(f.Path, simPrefix) {
					hasSim = true
					continue
				}
				if f.Path != "strategy" && !slices.Contains(paths, f.Path) {
					paths = append(paths, f.Path)
				}
			}
			if hasSim {
				t.Head = append(t.Head, e.label+" (sim)")
				cols = append(cols, column{e, true})
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
				key := p
				if c.sim {
					key = simPrefix + p
				}
				text, ok = lookup(c.e.run.Doc.Runs[c.e.index], key)
			}
			cl := newCell(text, ok)
			cl.Sim = c.sim
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
}

type scenarioText struct {
	Label, Dir, YAML string
}

type page struct {
	Title, Subtitle string
	Facts           []string // one line per run: mode, seed, version, start
	Overlay         bool
	Notes           []string
	Fields          table
	Lists           []table
	Metrics         table
	Explain         []explanation
	Figures         []figure
	Scenarios       []scenarioText
	Version         string
}

type explanation struct {
	Label string
	Lines []string
}

func renderHTML(v *view, charts []chart, svgs [][]byte, o Options) ([]byte, error) {
	p := page{Version: o.Version, Overlay: len(v.runs) > 1}
	var names []string
	for _, r := range v.runs {
		if !slices.Contains(names, r.Summary.Scenario) {
			names = append(names, r.Summary.Scenario)
		}
		for _, n := range r.Notes {
			p.Notes = append(p.Notes, r.Label+": "+n)
		}
		if r.Summary.Partial {
			p.Notes = append(p.Notes, r.Label+": the run was interrupted; its figures cover what was recorded (partial).")
		}
		if line := results.ProvenanceLine(r.Summary); line != "" {
			// A recording of real clients: say so first, and what its
			// figures cannot tell.
			p.Notes = append(p.Notes, r.Label+": "+line)
			for _, n := range r.Summary.Recorded.Notes {
				p.Notes = append(p.Notes, r.Label+": "+n)
			}
		}
		if h := r.Summary.Harness; h != nil && !h.Trustworthy {
			p.Notes = append(p.Notes, r.Label+": NOT TRUSTWORTHY: the machine could not keep up, so these figures describe the machine as much as the strategies ("+strings.Join(h.Warnings, "; ")+").")
		}
		lines := results.Explain(r.Summary)
		if len(lines) > 0 {
			p.Explain = append(p.Explain, explanation{Label: r.Label, Lines: lines})
		}
		p.Scenarios = append(p.Scenarios, scenarioText{Label: r.Label, Dir: r.Dir, YAML: string(r.Scenario)})
		sm := r.Summary
		workload := sm.Workload + " workload"
		if sm.Recorded != nil {
			workload = "the real clients of " + sm.Recorded.Address + ", by " + sm.Recorded.CohortBy
		}
		fact := fmt.Sprintf("%s mode · seed %d · herdbench %s · started %s · %s s · %s · %d cohorts",
			sm.Mode, sm.Seed, sm.Version, sm.Started.UTC().Format("2006-01-02 15:04:05 UTC"), trim(sm.DurationS), workload, len(sm.Runs))
		if sm.CohortsApart {
			fact += " · cohorts run one after the other"
		}
		if len(v.runs) > 1 {
			fact = r.Label + ": " + fact
		}
		p.Facts = append(p.Facts, fact)
		if line := results.SelfCheckLine(sm); line != "" {
			if len(v.runs) > 1 {
				line = r.Label + ": " + line
			}
			p.Facts = append(p.Facts, line)
		}
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
	for i, c := range charts {
		f := figure{chart: c, SVG: template.HTML(svgs[i])}
		if !o.NoPNG && !c.Empty {
			f.PNG = c.ID + ".png"
		}
		p.Figures = append(p.Figures, f)
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, p); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return buf.Bytes(), nil
}

// baseTemplate holds what a run's page and a sweep's share: the head
// (title, facts, subtitle and notes), the charts, the style and the tables.
var baseTemplate = template.Must(template.New("base").Parse(`{{define "head"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="herdbench {{.Version}}">
<title>{{.Title}}</title>
{{template "style"}}</head>
<body>
<main>
<header>
<h1>{{.Title}}</h1>
{{range .Facts}}<p class="facts">{{.}}</p>
{{end}}{{with .Subtitle}}<p class="subtitle">{{.}}</p>{{end}}
</header>
{{with .Notes}}<div class="notes" role="note"><ul>{{range .}}<li>{{.}}</li>{{end}}</ul></div>{{end}}
{{end}}
{{define "charts"}}<section id="charts">
<h2>Charts</h2>
{{range .Figures}}<figure class="chart" id="{{.ID}}" data-chart="{{.ID}}" aria-label="{{.Title}}">
{{.SVG}}
<figcaption>{{.Caption}}{{with .PNG}} <span class="file">Also saved as {{.}}.</span>{{end}}</figcaption>
</figure>
{{end}}
</section>
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
</style>
{{end}}
{{define "table"}}<table>
{{with .Caption}}<caption>{{.}}</caption>{{end}}
<thead><tr>{{range .Head}}<th scope="col">{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr{{if .Group}} class="group"{{end}}><th scope="row" class="key"{{with .Help}} title="{{.}}"{{end}}>{{.Key}}</th>{{range .Cells}}<td{{with .Class}} class="{{.}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody>
</table>{{end}}
`))

var pageTemplate = template.Must(template.Must(baseTemplate.Clone()).New("report").Parse(`{{template "head" .}}<nav aria-label="contents"><ul>
<li><a href="#summary">Comparison table</a></li>
{{range .Figures}}<li><a href="#{{.ID}}">{{.Title}}</a></li>
{{end}}<li><a href="#run">The run{{if .Overlay}}s{{end}}: seed, mode, version, faults</a></li>
<li><a href="#scenario">The scenario as run</a></li>
</ul></nav>

<section id="summary">
<h2>Comparison: every metric of summary.json</h2>
<div class="scroll">{{template "table" .Metrics}}</div>
{{range .Explain}}{{if $.Overlay}}<h3>{{.Label}}</h3>{{end}}
<ul class="explain">{{range .Lines}}<li>{{.}}</li>{{end}}</ul>
{{end}}
</section>

{{template "charts" .}}
<section id="run">
<h2>The run{{if .Overlay}}s{{end}}</h2>
<div class="scroll">{{template "table" .Fields}}</div>
{{range .Lists}}<div class="scroll">{{template "table" .}}</div>{{end}}
</section>

<section id="scenario">
<h2>The scenario as run</h2>
{{range .Scenarios}}{{if $.Overlay}}<h3>{{.Label}} <small>({{.Dir}})</small></h3>{{end}}
{{if .YAML}}<pre>{{.YAML}}</pre>{{else}}<p>No scenario.yaml in {{.Dir}}.</p>{{end}}
{{end}}
</section>

<footer>Rendered by herdbench {{.Version}} from summary.json, timeline.csv, the .hlog files and scenario.yaml; re-render with <code>herdbench report DIR</code>. This file needs no network.</footer>
</main>
</body>
</html>

`))
