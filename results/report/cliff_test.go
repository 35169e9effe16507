package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/herdbench/herdbench/cliff"
	"github.com/herdbench/herdbench/internal/chromiumtest"
)

// cliffFixture writes a cliff search's results folder: a synthetic search
// (over one field, or two) of two strategies, one of which never
// collapses, and a point of no return.
func cliffFixture(t *testing.T, two bool) string {
	t.Helper()
	x, _ := cliff.ParseAxis("chaos[blip].for=0.5s..14s")
	sp := cliff.Spec{X: x, Strategies: []string{"naive", "budgeted"}, Seeds: 8, MaxSeeds: 8}
	if two {
		y, _ := cliff.ParseAxis("workload.rate=60..160")
		sp.Y = &y
	}
	var rs []cliff.Result
	for {
		next := cliff.Next(sp, rs)
		if len(next) == 0 {
			break
		}
		for _, p := range next {
			edge := 4 + 0.2*float64(p.Seed%5)
			if sp.Y != nil {
				edge += (160 - sp.Y.Value(p.Y)) / 20
			}
			ok := 0.5
			rs = append(rs, cliff.Result{Probe: p, Collapsed: p.Strategy == 0 && x.Value(p.X) >= edge, DuringFault: &ok})
		}
	}
	sum := cliff.Summarize(sp, rs)
	d := &cliff.Document{Scenario: "metastable", Version: "v0.0.0-test", Started: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), Seed: 7,
		Criterion: cliff.Criterion, Search: &sum}
	d.NoReturn = &cliff.NoReturnRun{Strategy: "naive", Seed: 7, Continuations: 60, FaultStart: 5 * time.Second, FaultEnd: 11 * time.Second,
		NoReturn: cliff.SummarizeNoReturn(cliff.NoReturnSpec{Instants: []time.Duration{5 * time.Second, 8 * time.Second, 10 * time.Second, 11 * time.Second, 18 * time.Second}},
			map[int]cliff.Tally{0: {Runs: 60}, 1: {Runs: 60, Collapsed: 10}, 2: {Runs: 60, Collapsed: 58}, 3: {Runs: 60, Collapsed: 60}, 4: {Runs: 60, Collapsed: 60}})}
	dir := t.TempDir()
	b, err := d.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cliff.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scenario.yaml"), []byte("name: metastable\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRenderCliff: a cliff search's folder renders its page (the
// boundaries, the phase map, the point of no return, the scenario) and a
// PNG of each chart; a damaged cliff.json is named in the error.
func TestRenderCliff(t *testing.T) {
	for _, two := range []bool{false, true} {
		dir := cliffFixture(t, two)
		if !IsCliff(dir) || IsSweep(dir) {
			t.Fatal("not seen as a cliff search's folder")
		}
		if err := RenderDir(dir, Options{Version: "v0.0.0-test"}); err != nil {
			t.Fatal(err)
		}
		page, err := os.ReadFile(filepath.Join(dir, "report.html"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Where each strategy stops recovering", `data-phasemap="phase_map"`, `id="no-return"`, "budgeted", "none: recovers over the range", "name: metastable", "Content-Security-Policy"} {
			if !strings.Contains(string(page), want) {
				t.Errorf("two fields %v: the page lacks %q", two, want)
			}
		}
		for _, png := range []string{"phase_map.png", "no_return.png"} {
			if st, err := os.Stat(filepath.Join(dir, png)); err != nil || st.Size() < 1000 {
				t.Errorf("%s: %v", png, err)
			}
		}
	}
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "cliff.json"), []byte("{"), 0o644)
	if err := RenderDir(dir, Options{}); err == nil || !strings.Contains(err.Error(), "cliff.json") {
		t.Errorf("a damaged cliff.json: %v", err)
	}
}

// TestCliffReportInChromium: in headless Chromium the phase map draws a
// uPlot chart per strategy (a scatter of its cells), the point of no
// return draws through charts.js, with no console error and no request
// beyond the page. It saves a screenshot of each (-cliff.png,
// -cliff-2d.png beside HERDBENCH_SCREENSHOT, or in the test's artifacts).
func TestCliffReportInChromium(t *testing.T) {
	bin := chromiumtest.Path(t, "the real-browser test of a cliff search's report.html")
	for _, two := range []bool{false, true} {
		dir := cliffFixture(t, two)
		if err := RenderDir(dir, Options{Version: "v0.0.0-test", NoPNG: true}); err != nil {
			t.Fatal(err)
		}
		bctx, seen, fileURL, cancel := openInChromium(t, bin, filepath.Join(dir, "report.html"))
		type drawn struct {
			Panels   int `json:"panels"`
			Canvases int `json:"canvases"`
			Points   int `json:"points"`
			NoReturn int `json:"no_return"`
		}
		got, err := chromedp.Run(bctx, chromedp.Evaluate[drawn](`(() => {
			const pm = window.herdbenchPhaseMap || {drawn: 0, plots: []};
			const el = document.querySelector('[data-phasemap="phase_map"]');
			let points = 0;
			for (const u of pm.plots) for (let i = 1; i <= 3; i++) points += u.data[i][0].length;
			const nr = window.herdbench.charts.no_return;
			return {panels: pm.drawn, canvases: el.querySelectorAll("canvas").length, points,
				no_return: nr ? nr.el.querySelectorAll("canvas").length : 0};
		})()`))
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		checkSelfContained(t, seen, fileURL)
		name := map[bool]string{false: "cliff.png", true: "cliff-2d.png"}[two]
		out := filepath.Join(t.ArtifactDir(), name)
		if s := os.Getenv("HERDBENCH_SCREENSHOT"); s != "" {
			out = strings.TrimSuffix(s, ".png") + "-" + name
		}
		if err := os.WriteFile(out, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		if got.Panels != 2 || got.Canvases < 2 || got.Points == 0 || got.NoReturn == 0 {
			t.Errorf("two fields %v: %+v; want 2 phase map panels with their points and the point of no return drawn", two, got)
		}
	}
}
