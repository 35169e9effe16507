package report

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/internal/golden"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
)

// sweepFixture writes a sweep's results folder as a run writes it: every
// combination of the fields' values, two cohorts each, two repetitions,
// figures made up from the point's values so the charts have a shape:
// no-jitter's herd factor falls as its jitter grows, recovery never comes
// from 50 clients on with a 2 s outage or longer. skip leaves out the points whose
// label it names (an interrupted sweep).
func sweepFixture(t *testing.T, fields map[string][]string, order []string, skip string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sweep-fixture")
	var axes [][]results.Setting
	for _, f := range order {
		var vs []results.Setting
		for _, v := range fields[f] {
			vs = append(vs, results.Setting{Field: f, Value: v})
		}
		axes = append(axes, vs)
	}
	points := [][]results.Setting{nil}
	for _, vs := range axes {
		var next [][]results.Setting
		for _, p := range points {
			for _, v := range vs {
				next = append(next, append(append([]results.Setting(nil), p...), v))
			}
		}
		points = next
	}
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var summaries []*results.Summary
	for i, pt := range points {
		num := map[string]float64{}
		for _, st := range pt {
			d, err := time.ParseDuration(st.Value)
			if err == nil {
				num[st.Field] = d.Seconds()
				continue
			}
			if f, err := strconv.ParseFloat(st.Value, 64); err == nil {
				num[st.Field] = f
			}
		}
		s := &results.Summary{Scenario: "fixture", Description: "A made-up sweep for the report's tests.", Mode: "sim", Seed: 7,
			Version: "v0.0.0-test", Started: start, DurationS: 10, Workload: "closed", Clients: 40, Point: pt, Repetitions: 2,
			Partial: results.PointLabel(pt) == skip}
		for ci, name := range []string{"no-jitter", "full-jitter"} {
			herd := 2.0 + float64(ci)*0.5
			if name == "no-jitter" {
				herd = 40*(1-num["strategies[0].jitter"]) + 2 + num["workload.clients"]/10
			}
			failed := int64(10*num["workload.clients"]*num["chaos[crash].for"]) / int64(ci+1)
			var reps []results.Run
			for rep := range 2 {
				r := results.Run{Strategy: name, Requests: 1000, Succeeded: 990 - int64(rep*5+i), Failed: 10 + int64(rep*5+i), Attempts: 1400 + int64(100*rep+i),
					HerdFactor: herd + float64(rep), FailedAfterFault: failed + int64(rep), PeakAttemptsPerS: 300 + int64(10*i)}
				r.SuccessRatio = results.SuccessRatioOf(r.Succeeded, r.Failed)
				r.Amplification = float64(r.Attempts) / float64(r.Requests)
				if !(num["workload.clients"] >= 50 && num["chaos[crash].for"] >= 2) {
					rec := 0.4*float64(i) + 0.1*float64(rep+ci)
					r.RecoveryS = &rec
				}
				r.LatencyMS.Request.P99 = 250 + 100*float64(i)
				reps = append(reps, r)
			}
			s.Runs = append(s.Runs, results.Aggregate(reps))
		}
		summaries = append(summaries, s)
	}
	if err := folder.WriteSweep(dir, summaries, []byte("name: fixture\nsweep: {}\n# made up for tests\n")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func renderSweepFixture(t *testing.T, dir string, o Options) []File {
	t.Helper()
	sw, err := LoadSweep(dir)
	if err != nil {
		t.Fatal(err)
	}
	sw.Dir = "runs/sweep-fixture" // the temporary path differs on every run
	files, err := RenderSweep(context.Background(), sw, o)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// sweepSVGs draws the sweep's charts as SVG, as its PNGs are drawn.
func sweepSVGs(t *testing.T, dir string) [][]byte {
	t.Helper()
	sw, err := LoadSweep(dir)
	if err != nil {
		t.Fatal(err)
	}
	return chartSVGs(t, newSweepView(sw).charts())
}

// One swept field: every figure against it, a line per cohort.
func TestSweepReportGolden(t *testing.T) {
	dir := sweepFixture(t, map[string][]string{"strategies[0].jitter": {"0", "0.05", "0.1", "0.2", "0.5", "1"}}, []string{"strategies[0].jitter"}, "")
	const dpi = 30
	files := renderSweepFixture(t, dir, Options{Version: "v0.0.0-test", DPI: dpi})
	page, inSVG := splitHTML(t, files[0].Data)
	svgs := sweepSVGs(t, dir)
	if len(inSVG) != 0 || len(svgs) != 1 || len(files) != 2 || files[1].Name != "sweep_1.png" {
		t.Fatalf("%d charts, files %d; want the chart against the one field and its PNG", len(svgs), len(files))
	}
	golden.Check(t, filepath.Join("testdata", "sweep.html"), page)
	golden.Check(t, filepath.Join("testdata", "sweep_1.svg"), svgs[0])
	if _, err := png.Decode(bytes.NewReader(files[1].Data)); err != nil {
		t.Error(err)
	}
	for _, want := range []string{
		"<title>herdbench: fixture: a sweep of strategies[0].jitter</title>",
		"6 points, every combination of strategies[0].jitter (6 values) · 2 cohorts · 2 repetitions of each",
		`<th scope="row" class="key">0.05</th><td>no-jitter</td><td class="num">2</td><td class="num">40.5 ± 0.707</td>`,
	} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, want := range []string{">herd_factor</text>", ">failed_after_fault</text>", ">0.1</text>", ">0.5</text>", ">no-jitter</text>"} {
		if !bytes.Contains(svgs[0], []byte(want)) {
			t.Errorf("the chart lacks %q", want)
		}
	}
}

// Two swept fields: the figures against each, and a heat map of each
// headline figure over both, "never" where the service did not recover;
// a point an interrupt cut is blank and said so.
func TestSweepHeatMapGolden(t *testing.T) {
	dir := sweepFixture(t, map[string][]string{"workload.clients": {"10", "50", "100"}, "chaos[crash].for": {"1s", "2s", "4s"}},
		[]string{"workload.clients", "chaos[crash].for"}, "workload.clients=100, chaos[crash].for=4s")
	files := renderSweepFixture(t, dir, Options{Version: "v0.0.0-test", NoPNG: true})
	page, inSVG := splitHTML(t, files[0].Data)
	svgs := sweepSVGs(t, dir)
	ids := []string{"sweep_1", "sweep_2", "heatmap_recovery_s", "heatmap_success_ratio", "heatmap_herd_factor", "heatmap_failed_after_fault", "heatmap_amplification"}
	if len(svgs) != len(ids) || len(inSVG) != len(ids)-2 {
		t.Fatalf("%d charts, %d of them SVG in the page; want %d, the two against a field drawn by uPlot", len(svgs), len(inSVG), len(ids))
	}
	golden.Check(t, filepath.Join("testdata", "sweep2.html"), page)
	golden.Check(t, filepath.Join("testdata", "sweep2-heatmap_recovery_s.svg"), svgs[2])
	for i, id := range ids {
		if !bytes.Contains(page, []byte(`id="`+id+`"`)) {
			t.Errorf("chart %d is not %s", i, id)
		}
	}
	if n := bytes.Count(svgs[2], []byte(">never</text>")); n != 6 {
		t.Errorf("the recovery heat map has %d never cells, want 2 cohorts × 3 (the fourth point did not finish)", n)
	}
	if !bytes.Contains(page, []byte("sweep.csv holds 16 of the 18 rows of a whole grid")) {
		t.Error("the page does not say a point is missing")
	}
}

// A sweep's folder renders from its files alone, as a run's does: the
// command's RenderDir draws report.html and the PNGs in place.
func TestRenderDirDrawsASweep(t *testing.T) {
	dir := sweepFixture(t, map[string][]string{"workload.clients": {"10", "100"}}, []string{"workload.clients"}, "")
	if err := RenderDir(dir, Options{DPI: 10}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"report.html", "sweep_1.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "is a sweep's folder") {
		t.Errorf("loading a sweep as a run: %v", err)
	}
}

// A sweep of client counts written before any field could be swept has
// no field columns: its clients column is the swept field.
func TestOldSweepCSV(t *testing.T) {
	dir := t.TempDir()
	csv := "clients,strategy,runs,herd_factor_mean,herd_factor_sd\n10,a,1,3,0\n20,a,1,5,0\n"
	if err := os.WriteFile(filepath.Join(dir, "sweep.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	sw, err := LoadSweep(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Fields) != 1 || sw.Fields[0] != "workload.clients" || sw.Rows[1].Point[0].Value != "20" {
		t.Errorf("fields %q, rows %+v", sw.Fields, sw.Rows)
	}
}
