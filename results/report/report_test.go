package report

import (
	"bytes"
	"html"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/internal/charts"
	"github.com/herdbench/herdbench/internal/golden"
	"github.com/herdbench/herdbench/internal/uplot"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
)

var svgElement = regexp.MustCompile(`(?s)<svg .*?</svg>\n?`)

// splitHTML returns the HTML with each inline chart replaced by a marker,
// and the charts' SVG documents in order: the page and the charts are
// golden-tested apart so a diff stays readable. The inlined uPlot and
// charts.js, and their hashes in the CSP, are placeholders: the library
// would bloat the golden files, charts.js is reviewed as itself, and
// TestPageInlinesItsScripts checks the real ones.
func splitHTML(t *testing.T, doc []byte) ([]byte, [][]byte) {
	t.Helper()
	svgs := svgElement.FindAll(doc, -1)
	page := svgElement.ReplaceAllLiteral(doc, []byte("<svg><!-- chart: see the .svg golden files --></svg>\n"))
	for _, r := range []struct{ text, marker string }{
		{uplot.JS, "/* uPlot " + uplot.Version + ": internal/uplot/uPlot.iife.min.js */"},
		{charts.JS, "/* internal/charts/charts.js */"},
		{uplot.CSS, "/* internal/uplot/uPlot.min.css */"},
	} {
		if !bytes.Contains(page, []byte(r.text)) {
			t.Errorf("the page lacks %s", r.marker)
		}
		page = bytes.ReplaceAll(page, []byte(r.text), []byte(r.marker))
	}
	// The CSP, readable, with the scripts' hashes named.
	page = cspMeta.ReplaceAllFunc(page, func(m []byte) []byte {
		csp := html.UnescapeString(string(cspMeta.FindSubmatch(m)[1]))
		csp = strings.ReplaceAll(csp, charts.ScriptHash(uplot.JS), "(hash of uPlot)")
		csp = strings.ReplaceAll(csp, charts.ScriptHash(charts.JS), "(hash of charts.js)")
		return []byte(`<meta http-equiv="Content-Security-Policy" content="` + csp + `">`)
	})
	return page, svgs
}

// chartSVGs draws charts as SVG, as the PNGs beside the report are drawn:
// the page draws its time series with uPlot instead.
func chartSVGs(t *testing.T, charts []chart) [][]byte {
	t.Helper()
	out := make([][]byte, len(charts))
	for i, c := range charts {
		b, err := renderSVG(c)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = svgElement.Find(append(b, '\n'))
	}
	return out
}

func fixedRun(t *testing.T, seed uint64, shift time.Duration, label string) *Run {
	t.Helper()
	r := loadFixture(t, seed, shift, label)
	r.Dir = "runs/fixture-" + label // the temporary path differs on every run
	return r
}

func TestRenderGolden(t *testing.T) {
	r := fixedRun(t, 1, 0, "fixture")
	// A low resolution keeps the test fast (rasterizing is slow under -race).
	const dpi = 30
	files, err := Render([]*Run{r}, Options{Version: "v0.0.0-test", DPI: dpi})
	if err != nil {
		t.Fatal(err)
	}
	v := newView([]*Run{r})
	charts := v.charts()
	if len(files) != 1+len(charts) || files[0].Name != "report.html" {
		t.Fatalf("got %d files starting with %s; want report.html and one PNG per chart (%d)", len(files), files[0].Name, len(charts))
	}
	page, inSVG := splitHTML(t, files[0].Data)
	data := pageData(v.duration, charts)
	if len(inSVG)+len(data.Charts) != len(charts) {
		t.Fatalf("report.html has %d inline SVG charts and %d uPlot charts, want %d in all", len(inSVG), len(data.Charts), len(charts))
	}
	golden.Check(t, filepath.Join("testdata", "report.html"), page)
	svgs := chartSVGs(t, charts)
	for i, c := range charts {
		golden.Check(t, filepath.Join("testdata", c.ID+".svg"), svgs[i])
		f := files[1+i]
		if f.Name != c.ID+".png" {
			t.Errorf("file %d is %s, want %s.png", 1+i, f.Name, c.ID)
			continue
		}
		// PNG bytes depend on the rasterizer; check it decodes to the
		// chart's size and is not blank.
		img, err := png.Decode(bytes.NewReader(f.Data))
		if err != nil {
			t.Errorf("%s: %v", f.Name, err)
			continue
		}
		w, h := int(c.W.Dots(float64(dpi))+0.5), int(c.H.Dots(float64(dpi))+0.5) // the chart's size at dpi, rounded
		if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
			t.Errorf("%s is %dx%d, want %dx%d", f.Name, b.Dx(), b.Dy(), w, h)
		}
		colors := map[[4]uint32]bool{}
		for y := 0; y < h; y += 3 {
			for x := 0; x < w; x += 3 {
				r, g, b, a := img.At(x, y).RGBA()
				colors[[4]uint32{r, g, b, a}] = true
			}
		}
		if len(colors) < 5 {
			t.Errorf("%s has %d colours: looks blank", f.Name, len(colors))
		}
	}
}

func TestRenderOverlayGolden(t *testing.T) {
	before := fixedRun(t, 1, 0, "before")
	after := fixedRun(t, 2, 500*time.Millisecond, "after")
	files, err := Render([]*Run{before, after}, Options{Version: "v0.0.0-test", NoPNG: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 {
		t.Fatalf("NoPNG: got %d files, want report.html only", len(files))
	}
	page, _ := splitHTML(t, files[0].Data)
	svgs := chartSVGs(t, newView([]*Run{before, after}).charts())
	golden.Check(t, filepath.Join("testdata", "overlay.html"), page)
	golden.Check(t, filepath.Join("testdata", "overlay-attempts_1s.svg"), svgs[0])
	golden.Check(t, filepath.Join("testdata", "overlay-attempts_100ms.svg"), svgs[1])
	for _, want := range []string{
		"<title>herdbench: fixture: before vs after</title>",
		"<th scope=\"col\">no-jitter (before)</th><th scope=\"col\">no-jitter (after)</th><th scope=\"col\">full-jitter (before)</th>",
		"<caption>faults (before)</caption>",
		"<caption>faults (after)</caption>",
	} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the overlay lacks %q", want)
		}
	}
	for _, label := range []string{"no-jitter (before)", "no-jitter (after)", "full-jitter (before)", "full-jitter (after)"} {
		if !bytes.Contains(svgs[0], []byte(">"+label+"</text>")) {
			t.Errorf("the overlaid attempts chart has no legend entry %q", label)
		}
	}
}

func TestRenderIsDeterministic(t *testing.T) {
	r := fixedRun(t, 3, 0, "fixture")
	a, err := Render([]*Run{r}, Options{NoPNG: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Render([]*Run{r}, Options{NoPNG: true})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a[0].Data, b[0].Data) {
		t.Error("rendering the same run twice gave different HTML")
	}
}

// The table shows every field of summary.json, also fields this renderer
// does not know.
func TestTableShowsNewSummaryFields(t *testing.T) {
	html := renderEdited(t, func(data []byte) []byte {
		data = bytes.Replace(data, []byte(`"strategy": "no-jitter",`), []byte(`"strategy": "no-jitter", "calls": 4242, "policy": {"denied_by_budget": 17},`), 1)
		return bytes.Replace(data, []byte(`"partial": false,`), []byte(`"partial": false, "thresholds": [{"expr": "amplification <= 1.5", "passed": false}],`), 1)
	})
	for _, want := range []string{
		`<th scope="row" class="key">calls</th><td class="num">4242</td><td class="missing">–</td>`,
		`<th scope="row" class="key">policy.denied_by_budget</th><td class="num">17</td>`,
		`<caption>thresholds</caption>`,
		`<th scope="col">expr</th><th scope="col">passed</th>`,
		`<th scope="row" class="key">amplification &lt;= 1.5</th><td>false</td>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
}

// TestLoadNamesWhatWasNamed: a path that is not a results folder gets a
// message saying what it is instead: nothing, a file of a folder, or the
// folder that holds the results folders.
func TestLoadNamesWhatWasNamed(t *testing.T) {
	out := t.TempDir()
	dir := fixture(t, filepath.Join(out, "outage-20260301T120000Z"), 1, 0)
	for path, want := range map[string]string{
		filepath.Join(out, "nope"):        "nope: no such folder; name a results folder",
		filepath.Join(dir, "report.html"): "report.html is a file, not a folder; name a results folder: the one 'herdbench scenario' printed after \"results:\" (here " + dir + ")",
		out:                               "holds results folders rather than being one; name one of them, e.g. " + dir,
	} {
		if path == filepath.Join(dir, "report.html") {
			if err := os.WriteFile(path, []byte("<html>"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load(%s): %v; want an error saying %q", path, err, want)
		}
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no summary.json here") {
		t.Errorf("an empty folder: got %v, want an error naming summary.json", err)
	}
}

func TestLoadProblems(t *testing.T) {
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no summary.json here") {
		t.Errorf("an empty folder: got %v, want an error naming summary.json", err)
	}
	dir := fixture(t, filepath.Join(t.TempDir(), "run"), 1, 0)
	if err := os.Remove(filepath.Join(dir, "full-jitter.hlog")); err != nil {
		t.Fatal(err)
	}
	r, err := Load(dir)
	if err != nil {
		t.Fatalf("a missing .hlog should only leave its latency curves out: %v", err)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "full-jitter.hlog") {
		t.Errorf("notes %q, want one naming full-jitter.hlog", r.Notes)
	}
	if r.Cohorts[1].Request != nil || r.Cohorts[0].Request == nil {
		t.Error("the cohort without a log should have no histograms, the other should")
	}
	files, err := Render([]*Run{r}, Options{NoPNG: true})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(files[0].Data, []byte("full-jitter has no histogram log")) {
		t.Error("the report does not show the note")
	}
	// With no log at all the latency-by-percentile charts have nothing to
	// draw: the page shows them empty, with the note, but no PNG is written.
	if err := os.Remove(filepath.Join(dir, "no-jitter.hlog")); err != nil {
		t.Fatal(err)
	}
	bare, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	files, err = Render([]*Run{bare}, Options{DPI: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Name == "latency_attempt.png" || f.Name == "latency_request.png" {
			t.Errorf("%s written for a run without histogram logs", f.Name)
		}
	}
	if bytes.Contains(files[0].Data, []byte(`latency_request.png`)) {
		t.Error("report.html links a PNG that is not written")
	}
	if len(files) < 2 {
		t.Error("the other charts' PNGs are missing")
	}
	if err := os.WriteFile(filepath.Join(dir, "no-jitter.hlog"), []byte("0.0,1.0,0.1,HISTbroken\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "no-jitter.hlog") {
		t.Errorf("a corrupt .hlog: got %v, want an error naming it", err)
	}
}

// The histograms the report draws are those the run summarized: merged
// from the .hlog, they give summary.json's percentiles exactly.
func TestLoadedHistogramsMatchTheSummary(t *testing.T) {
	r := loadFixture(t, 5, 0, "x")
	for i, c := range r.Cohorts {
		got := results.Latencies{Attempt: results.PercentilesOf(c.Attempt), Request: results.PercentilesOf(c.Request)}
		if want := r.Summary.Runs[i].LatencyMS; got != want {
			t.Errorf("%s: percentiles from the .hlog %+v, summary.json %+v", c.Name, got, want)
		}
		var n int64
		for _, s := range c.Seconds {
			n += s.Requests
		}
		if n != c.Request.TotalCount() || len(c.Seconds) != 6 {
			t.Errorf("%s: %d seconds holding %d requests; want 6 holding %d", c.Name, len(c.Seconds), n, c.Request.TotalCount())
		}
	}
}

// Cohorts run one after the other each log from their own t = 0: the
// second cohort's first interval is its second 0, not the run's second 7.
func TestLoadCohortsApart(t *testing.T) {
	dir := fixtureRun(t, filepath.Join(t.TempDir(), "apart"), 5, 0, true)
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	together := loadFixture(t, 5, 0, "together")
	for i, c := range r.Cohorts {
		want := together.Cohorts[i]
		if len(c.Seconds) != len(want.Seconds) || c.Request.TotalCount() != want.Request.TotalCount() {
			t.Errorf("%s: %d seconds holding %d requests; run together, %d holding %d",
				c.Name, len(c.Seconds), c.Request.TotalCount(), len(want.Seconds), want.Request.TotalCount())
		}
		for s := range min(len(c.Seconds), len(want.Seconds)) {
			if c.Seconds[s] != want.Seconds[s] {
				t.Errorf("%s: second %d is %+v; run together %+v", c.Name, s, c.Seconds[s], want.Seconds[s])
			}
		}
	}
}

func TestPercentileCurve(t *testing.T) {
	h := results.NewHistogram()
	for v := int64(1); v <= 1000; v++ {
		_ = h.RecordValue(v * 1000) // 1 ms .. 1 s
	}
	pts := percentileCurve(h)
	if last := pts[len(pts)-1]; last.X != 3 || last.Ms != float64(h.ValueAtQuantile(99.9))/1000 {
		t.Errorf("the curve ends at x=%v (%v ms), want x=3 (p99.9 of 1000 values, %v ms)", last.X, last.Ms, float64(h.ValueAtQuantile(99.9))/1000)
	}
	for i, p := range pts {
		if i > 0 && (p.X <= pts[i-1].X || p.Ms < pts[i-1].Ms) {
			t.Fatalf("point %d (%+v) does not follow %+v: x must grow, latency never fall", i, p, pts[i-1])
		}
		if want := 1 - math.Pow(10, -p.X); math.Abs(p.P-want) > 1e-12 {
			t.Fatalf("point %d: p=%v, want 1-10^-x = %v", i, p.P, want)
		}
	}
	// x = 2 is p99: the 990th value, 990 ms, to the histogram's precision.
	for _, p := range pts {
		if math.Abs(p.X-2) < 1e-9 && (p.Ms < 989 || p.Ms > 991) {
			t.Errorf("p99 read as %v ms, want 990", p.Ms)
		}
	}
	if percentileCurve(results.NewHistogram()) != nil {
		t.Error("an empty histogram should give no curve")
	}
}

func TestRebinAndRates(t *testing.T) {
	tl := results.Timeline{Resolution: 10 * time.Millisecond, Rows: make([][results.NumSeries]int64, 25)}
	for i := range tl.Rows {
		tl.Rows[i][results.OK] = int64(i)
		tl.Rows[i][results.Reset] = 1
	}
	got := rebin(tl, 100*time.Millisecond)
	if got.Resolution != 100*time.Millisecond || len(got.Rows) != 3 {
		t.Fatalf("rebin: %s × %d rows, want 100ms × 3", got.Resolution, len(got.Rows))
	}
	// Bins: 0..9 (sum 45), 10..19 (145), 20..24 (110, a partial bin).
	rates := perSecond(got, attemptsOf)
	if want := []float64{550, 1550, 1150}; rates[0] != want[0] || rates[1] != want[1] || rates[2] != want[2] {
		t.Errorf("attempts per second %v, want %v", rates, want)
	}
	if r := fineResolution(20*time.Second, 10*time.Millisecond); r != 100*time.Millisecond {
		t.Errorf("a 20 s run draws its waves at %s, want 100ms", r)
	}
	if r := fineResolution(time.Hour, 10*time.Millisecond); r != 3200*time.Millisecond {
		t.Errorf("an hour-long run draws at %s, want 3.2s (at most 2000 bins)", r)
	}
}

func TestPercentileTicks(t *testing.T) {
	var labels []string
	for _, tk := range percentileTicks(0, 3.2) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got, want := strings.Join(labels, " "), "0% 50% 90% 99% 99.9%"; got != want {
		t.Errorf("percentile axis labels %q, want %q", got, want)
	}
	var lat []string
	for _, tk := range latencyTicks(0.5, 2000) {
		if tk.Label != "" {
			lat = append(lat, tk.Label)
		}
	}
	if got, want := strings.Join(lat, " "), "100 µs 1 ms 10 ms 100 ms 1 s 10 s"; got != want {
		t.Errorf("latency axis labels %q, want %q", got, want)
	}
}

// A real run's report says its verdict above everything (red when its
// figures cannot be taken at their word), what the self-check found, and
// shows the simulator's figures
// for the same seed in a column beside each cohort's own.
func TestReportShowsSelfCheckAndSimulator(t *testing.T) {
	html := renderEdited(t, func(data []byte) []byte {
		s, err := folder.DecodeSummary(data)
		if err != nil {
			t.Fatal(err)
		}
		s.Mode = "real"
		s.Runs[0].SendLagMS = &results.Lag{P50: 0.2, P99: 23.5, Max: 80}
		s.Runs[1].SendLagMS = &results.Lag{P50: 0.2, P99: 0.9, Max: 3}
		s.Runs[1].SpreadMS = &results.Lag{P50: 14, P99: 31, Max: 38}
		s.Runs[1].SpreadEvents = []results.Event{{AtS: 6, Attempts: 500, Lag: *s.Runs[1].SpreadMS}}
		s.Harness = &results.Harness{LimitMS: 10, SendLagMS: &results.Lag{P50: 0.2, P99: 12, Max: 80}, SpreadMS: &results.Lag{P50: 14, P99: 31, Max: 38}, CPU: results.CPU{Cores: 2, Utilization: 0.5}}
		results.Judge(s.Harness, s.Runs)
		s.Verdict = results.Decide(s, nil, results.Remedy{})
		rec := 0.25
		s.Runs[0].Sim = results.Values{"requests": 1234, "succeeded": 0, "failed": 0, "unfinished": 0, "attempts": 0, "amplification": 0,
			"peak_attempts_per_s": 0, "herd_factor": 98.5, "failed_after_fault": 0, "recovery_s": rec}
		s.Runs[0].SimLate = results.Values{"requests": 1200, "succeeded": 0, "failed": 0, "unfinished": 0, "attempts": 0, "amplification": 0,
			"peak_attempts_per_s": 0, "herd_factor": 41.5, "failed_after_fault": 0, "recovery_s": rec}
		if data, err = folder.EncodeSummary(s); err != nil {
			t.Fatal(err)
		}
		return data
	})
	for _, want := range []string{
		`<section id="verdict" class="verdict">
<p class="selfcheck verdict-line bad">NOT TRUSTWORTHY: no-jitter: attempts were sent late, p99 23.5ms`,
		`no-jitter: attempts were sent late, p99 23.5ms after their scheduled time (limit 10.0ms)`,
		`full-jitter: the clients learned of the crash at 6.00s over p99 31.0ms (max 38.0ms) where the model has them learn at once (limit 10.0ms)`,
		`self-check: send lag p50 200µs, p99 12.0ms, max 80.0ms; spread after crashes p50 14.0ms, p99 31.0ms, max 38.0ms (waves: limit 10.0ms on each cohort&#39;s p99, drift p50); CPU 50% of 2 cores: NOT TRUSTWORTHY`,
		`<th scope="col">no-jitter</th><th scope="col">no-jitter (sim)</th><th scope="col">no-jitter (sim, late)</th><th scope="col">full-jitter</th>`,
		`<td class="num sim">41.5</td>`,
		`<td class="num sim">98.5</td>`,
		`<td class="num sim">1234</td>`,
		`<td class="num sim">0.25</td>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
	if strings.Contains(html, `class="key">sim.`) || strings.Contains(html, `class="key">sim_with_lateness.`) {
		t.Error("the simulator's figures have rows of their own; they belong in the (sim) column")
	}
	if strings.Contains(html, "full-jitter (sim)") {
		t.Error("a cohort without simulator figures got a (sim) column")
	}
}

// renderEdited renders the fixture's report after edit has changed its
// summary.json, and returns the HTML.
func renderEdited(t *testing.T, edit func([]byte) []byte) string {
	t.Helper()
	dir := fixture(t, filepath.Join(t.TempDir(), "run"), 1, 0)
	path := filepath.Join(dir, "summary.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, edit(data), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	files, err := Render([]*Run{r}, Options{NoPNG: true})
	if err != nil {
		t.Fatal(err)
	}
	return string(files[0].Data)
}

// TestNiceLogRange: whole decades, never an empty range (a single latency
// of exactly 1 µs once made the latency charts fail to draw).
func TestNiceLogRange(t *testing.T) {
	for _, c := range []struct{ lo, hi, wantLo, wantHi float64 }{
		{0.05, 0.05, 0.01, 0.1},
		{0.001, 0.001, minMs, 10 * minMs},
		{1, 1, 1, 10},
		{3, 250, 1, 1000},
	} {
		lo, hi := niceLogRange(c.lo, c.hi)
		if math.Abs(lo-c.wantLo) > 1e-12 || math.Abs(hi-c.wantHi) > 1e-9 {
			t.Errorf("niceLogRange(%g, %g) = %g, %g; want %g, %g", c.lo, c.hi, lo, hi, c.wantLo, c.wantHi)
		}
	}
}

// TestRecordingLatencyOverTime: a recording cannot tell request latency,
// so its latency-over-time chart draws each second's attempt p99 instead
// of an empty request chart; a swarm's run, or an overlay with one, keeps
// the request p99.
func TestRecordingLatencyOverTime(t *testing.T) {
	recorded := loadFixture(t, 1, 0, "recorded")
	for i := range recorded.Summary.Runs {
		recorded.Summary.Runs[i].Unmeasured = []string{"latency_ms.request"}
		for j := range recorded.Cohorts[i].Seconds {
			s := &recorded.Cohorts[i].Seconds[j]
			s.Requests, s.RequestP50, s.RequestP99 = 0, 0, 0
		}
	}
	c := newView([]*Run{recorded}).latencyOverTimeSpec().chart()
	if !strings.HasPrefix(c.Title, "Attempt latency over time") || c.Empty {
		t.Errorf("a recording's chart: %q, empty %v; want each second's attempt p99", c.Title, c.Empty)
	}
	swarm := loadFixture(t, 1, 0, "swarm")
	c = newView([]*Run{swarm, recorded}).latencyOverTimeSpec().chart()
	if !strings.HasPrefix(c.Title, "Request latency over time") || c.Empty {
		t.Errorf("an overlay with a swarm's run: %q, empty %v; want the request p99", c.Title, c.Empty)
	}
}

// A run draws its report in its hidden staging folder before publishing
// it: the page names the run by the folder it is published as, never by
// the staging folder's ".<name>.partial-NNN".
func TestReportNamesThePublishedFolder(t *testing.T) {
	staged, err := folder.Stage(filepath.Join(t.TempDir(), "fixture-20261201T200000Z"))
	if err != nil {
		t.Fatal(err)
	}
	defer staged.Discard()
	dir := fixture(t, staged.Dir, 1, 0)
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	files, err := Render([]*Run{r}, Options{Version: "test", NoPNG: true})
	if err != nil {
		t.Fatal(err)
	}
	page := string(files[0].Data)
	if !strings.Contains(page, "<h1>herdbench: fixture (fixture-20261201T200000Z)</h1>") ||
		!strings.Contains(page, `<th scope="col">fixture-20261201T200000Z</th>`) {
		t.Errorf("the page does not name the run fixture-20261201T200000Z:\n%.3000s", page)
	}
	if strings.Contains(page, ".partial-") {
		t.Errorf("the page names the staging folder %s", filepath.Base(staged.Dir))
	}
}
