package report

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/herdbench/herdbench/internal/chromiumtest"
)

// The real-browser test: headless Chromium opens report.html from disk (a
// made-up crash's, stampedeFixture, or HERDBENCH_REPORT), and
// the test fails on any console error or warning, any uncaught exception,
// any network request other than the file itself, a chart that did not
// render, a page over 5 MB, a first screen without the verdict and the
// attempts chart zoomed on the first fault; it zooms that chart onto a wave and
// checks it shows the 10 ms buckets, hides a cohort from the legend, and
// logs the page's own load timing. It saves a full-page screenshot, the
// first screen (-first-screen.png) and the zoomed chart (-zoomed.png).
//
// Environment:
//   HERDBENCH_CHROMIUM        the browser binary (default: chromium,
//                             chromium-browser or google-chrome on PATH);
//                             without one the test skips.
//   HERDBENCH_REPORT          a report.html to check instead of one rendered
//                             from the test fixture, e.g. a real run's.
//   HERDBENCH_SCREENSHOT      where to save the screenshot (default: the
//                             test's artifact dir: go test -artifacts); the
//                             others go beside it (NAME-first-screen.png,
//                             NAME-zoomed.png, and the sweep's NAME-sweep.png).

// openInChromium opens page in a headless Chromium at 1400×900 and waits
// until charts.js has drawn every chart; cancel stops the browser.
func openInChromium(t *testing.T, bin, page string) (bctx context.Context, seen *chromiumtest.Log, fileURL string, cancel func()) {
	t.Helper()
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	fileURL = (&url.URL{Scheme: "file", Path: abs}).String()
	seen = &chromiumtest.Log{}
	bctx, cancel = chromiumtest.Start(t, bin, seen)
	if err := chromedp.Do(bctx,
		chromedp.EmulateViewport(1400, 900),
		chromedp.Navigate(fileURL),
		chromedp.WaitReady(chromedp.CSS("footer")),
		chromedp.Poll[chromedp.Void]("window.herdbench && window.herdbench.drawnMs > 0", chromedp.WithPollingTimeout(30*time.Second)),
	); err != nil {
		cancel()
		t.Fatalf("opening %s in %s: %v", fileURL, bin, err)
	}
	return bctx, seen, fileURL, cancel
}

// checkSelfContained fails t for every problem the browser reported and
// every request but the page's own. Call it after the tab is closed.
func checkSelfContained(t *testing.T, seen *chromiumtest.Log, fileURL string) {
	t.Helper()
	seen.Check(t, func(u string) bool { return u == fileURL }, "the report must be self-contained (no network, no other files)")
}

type chartBox struct {
	ID          string  `json:"id"`
	Interactive bool    `json:"interactive"`
	Width       float64 `json:"width"`
	Height      float64 `json:"height"`
	Paths       int     `json:"paths"`
	Texts       int     `json:"texts"`
	Canvases    int     `json:"canvases"`
	Legends     int     `json:"legends"`
}

// zoomCheck is what the page reports after the test zoomed its attempts
// chart onto a wave.
type zoomCheck struct {
	Wave    float64   `json:"wave"`   // the wave's bucket, seconds
	Lo      float64   `json:"lo"`     // where the 200 ms zoomed to starts
	Bin     float64   `json:"bin"`    // the chart's bin width now, seconds
	Xs      []float64 `json:"xs"`     // the bins' starts in the visible range
	Panels  []float64 `json:"panels"` // every cohort panel's x minimum, which must follow
	Visible float64   `json:"visible"`
}

// pageTiming is the page's own performance timing, in milliseconds since
// navigation start.
type pageTiming struct {
	DOMContentLoaded float64 `json:"dcl"`
	Load             float64 `json:"load"`
	Drawn            float64 `json:"drawn"` // charts.js finished drawing every chart
	Bytes            float64 `json:"bytes"`
}

func TestReportInChromium(t *testing.T) {
	bin := chromiumtest.Path(t, "the real-browser test of report.html")
	page := os.Getenv("HERDBENCH_REPORT")
	want := 0
	if page == "" {
		r := stampedeFixture(t, filepath.Join(t.TempDir(), "stampede"))
		files, err := Render([]*Run{r}, Options{Version: "v0.0.0-test", NoPNG: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteFiles(r.Dir, files); err != nil {
			t.Fatal(err)
		}
		page = filepath.Join(r.Dir, "report.html")
		want = len(newView([]*Run{r}).charts())
	}
	bctx, seen, fileURL, bcancel := openInChromium(t, bin, page)
	defer bcancel()
	st, err := os.Stat(page)
	if err != nil {
		t.Fatal(err)
	}
	timing, err := chromedp.Run(bctx, chromedp.Evaluate[pageTiming](`(() => {
		const n = performance.getEntriesByType("navigation")[0];
		return {dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd, drawn: window.herdbench.drawnMs, bytes: n.decodedBodySize};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	// Timing on a shared machine is a figure to report, not to assert.
	t.Logf("%s: %.2f MB; DOMContentLoaded %.0f ms, charts drawn %.0f ms, load %.0f ms after navigation start",
		page, float64(st.Size())/1e6, timing.DOMContentLoaded, timing.Drawn, timing.Load)
	if st.Size() > maxReportBytes {
		t.Errorf("%s is %d bytes; a report must stay under %d", page, st.Size(), maxReportBytes)
	}
	first, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	checkFirstScreen(t, bctx, page)
	boxes, err := chromedp.Run(bctx, chromedp.Evaluate[[]chartBox](`Array.from(document.querySelectorAll("figure[data-chart]")).map(f => {
		const live = f.querySelector(".uplot-chart");
		const el = live || f.querySelector("svg");
		const r = el ? el.getBoundingClientRect() : {width: 0, height: 0};
		return {id: f.dataset.chart, interactive: !!live, width: r.width, height: r.height,
			paths: el ? el.querySelectorAll("path").length : 0,
			texts: el ? el.querySelectorAll("text").length : 0,
			canvases: live ? live.querySelectorAll("canvas").length : 0,
			legends: live ? live.querySelectorAll(".u-legend .u-series").length : 0};
	})`))
	if err != nil {
		t.Fatal(err)
	}
	full, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}

	// Zoom the attempts chart to 200 ms around the tallest 10 ms bucket
	// after the last fault (the wave of retries), through the uPlot
	// instance, as a drag would.
	zoom, err := chromedp.Run(bctx, chromedp.Evaluate[zoomCheck](`(async () => {
		const hb = window.herdbench, c = hb.charts.attempts_1s, u = c.plots[0];
		const s = c.spec.panels[0].series[0], counts = hb.series[s.data], res = c.spec.res_s;
		const faults = c.spec.panels[0].faults || [];
		const from = faults.length ? Math.round(Math.max(...faults.map(f => f.at_s + f.for_s)) / res) : 0;
		let best = from;
		for (let i = from; i < counts.length; i++) if (counts[i] > counts[best]) best = i;
		const wave = best * res, end = counts.length * res;
		const lo = Math.min(Math.max(wave - 0.1, 0), Math.max(0, end - 0.2)); // 200 ms inside the run
		u.setScale("x", {min: lo, max: lo + 0.2});
		await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0))); // uPlot fires its hooks after a setScale
		const xs = u.data[0].filter(x => x >= u.scales.x.min - 1e-9 && x < u.scales.x.max - 1e-9);
		const panels = hb.charts.attempts_100ms ? hb.charts.attempts_100ms.plots.map(p => p.scales.x.min) : [];
		return {wave, lo, bin: c.bin_s(), xs, panels, visible: u.scales.x.max - u.scales.x.min};
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(bctx, chromedp.ScrollIntoView(chromedp.CSS("#attempts_1s"))); err != nil {
		t.Fatal(err)
	}
	zoomed, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}

	// Hide the second cohort by clicking its name in the legend (a run of
	// one cohort, such as a merged split run's, has none to hide).
	cohorts, err := chromedp.Run(bctx, chromedp.Evaluate[int](`window.herdbench.charts.attempts_1s.plots[0].series.length - 1`))
	if err != nil {
		t.Fatal(err)
	}
	hidden := []bool{true, false}
	if cohorts >= 2 {
		if err := chromedp.Do(bctx, chromedp.Click(chromedp.JSPath(`window.herdbench.charts.attempts_1s.plots[0].root.querySelectorAll(".u-legend .u-series")[2]`))); err != nil {
			t.Fatal(err)
		}
		if hidden, err = chromedp.Run(bctx, chromedp.Evaluate[[]bool](`window.herdbench.charts.attempts_1s.plots[0].series.slice(1).map(s => s.show)`)); err != nil {
			t.Fatal(err)
		}
	} else {
		t.Logf("%s: one series in the attempts chart, no cohort to hide", page)
	}
	// Hiding a stacked layer (ok, the bottom one) hides it in every cohort's
	// panel and brings the layers above it down.
	stackTop := `window.herdbench.charts.outcomes.plots[0].data[1].reduce((a, v) => a + (v || 0), 0)`
	topBefore, err := chromedp.Run(bctx, chromedp.Evaluate[float64](stackTop))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(bctx,
		chromedp.Click(chromedp.JSPath(`[...window.herdbench.charts.outcomes.plots[0].root.querySelectorAll(".u-legend .u-series")].find(r => r.querySelector(".u-label").textContent === "ok")`)),
		chromedp.Evaluate[chromedp.Void](`new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)))`, chromedp.EvalAwaitPromise),
	); err != nil {
		t.Fatal(err)
	}
	stacked, err := chromedp.Run(bctx, chromedp.Evaluate[[]any](`(() => {
		const ps = window.herdbench.charts.outcomes.plots;
		return [`+stackTop+`, ps.map(u => u.series.find(s => s.label === "ok").show)];
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if top, _ := stacked[0].(float64); top >= topBefore {
		t.Errorf("hiding the ok layer of the outcomes left the stack's top at %v (was %v)", top, topBefore)
	}
	if shows, _ := stacked[1].([]any); len(shows) < min(2, cohorts) || slices.Contains(shows, any(true)) {
		t.Errorf("after hiding ok in the first cohort's outcomes, the panels show it: %v; want it hidden in every panel", stacked[1])
	}

	// A double click zooms every time chart out; a mouse drag across a
	// cohort panel zooms every time chart to the span dragged over.
	drag := checkDragZoom(t, bctx)
	// update, which a live page calls as its timelines grow, redraws the
	// chart from new counts and keeps the span shown.
	updated, err := chromedp.Run(bctx, chromedp.Evaluate[[]float64](`(() => {
		const hb = window.herdbench, c = hb.charts.attempts_1s, u = c.plots[0];
		const top = () => Math.max(...u.data.slice(1).flat().filter(v => v != null));
		const before = top(), span = [u.scales.x.min, u.scales.x.max];
		c.update(hb.series.map(a => a.map(v => 2 * v)));
		return [before, top(), span[0], u.scales.x.min, span[1], u.scales.x.max];
	})()`))
	if err != nil {
		t.Fatal(err)
	}

	// The listener runs on the goroutine that reads the tab's messages, in
	// order, so every event sent before the answers above has been seen.
	bcancel()
	checkSelfContained(t, seen, fileURL)
	if drag.OutBin < zoom.Bin || drag.Out[0] > 1e-9 || drag.Out[1] < drag.Duration-0.5 {
		t.Errorf("after a double click the attempts chart shows %v s in %.3f s bins; want the whole run (%.0f s) in bins no narrower than a zoomed view's", drag.Out, drag.OutBin, drag.Duration)
	}
	for id, r := range drag.Ranges {
		if math.Abs(r[0]-drag.Want[0]) > drag.Tolerance || math.Abs(r[1]-drag.Want[1]) > drag.Tolerance {
			t.Errorf("after a drag over %.3f–%.3f s, chart %s shows %.3f–%.3f s: it did not follow the zoom", drag.Want[0], drag.Want[1], id, r[0], r[1])
		}
	}
	if len(updated) != 6 || updated[1] != 2*updated[0] || updated[2] != updated[3] || updated[4] != updated[5] {
		t.Errorf("update with every count doubled: peak %v → %v, span %v–%v → %v–%v; want the peak doubled, the span kept", updated[0], updated[1], updated[2], updated[4], updated[3], updated[5])
	}
	if w := drag.Zoomed[1] - drag.Zoomed[0]; math.Abs(drag.Panned[0]-(drag.Zoomed[0]-w/10)) > w/100 || math.Abs((drag.Panned[1]-drag.Panned[0])-w) > 1e-6 {
		t.Errorf("a shift + drag of a tenth of the panel from %.3f–%.3f s panned to %.3f–%.3f s; want it moved back by a tenth of its width, as wide", drag.Zoomed[0], drag.Zoomed[1], drag.Panned[0], drag.Panned[1])
	}
	if len(drag.Ranges) < 2 {
		t.Errorf("only %d time charts reported their range after the drag", len(drag.Ranges))
	}

	out := os.Getenv("HERDBENCH_SCREENSHOT")
	if out == "" {
		out = filepath.Join(t.ArtifactDir(), "report.png")
	}
	base := strings.TrimSuffix(out, ".png")
	for name, shot := range map[string][]byte{out: full, base + "-first-screen.png": first, base + "-zoomed.png": zoomed} {
		if err := os.WriteFile(name, shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshots of %s: %s, %s-first-screen.png, %s-zoomed.png", page, out, base, base)

	if want > 0 && len(boxes) != want {
		t.Errorf("%d charts on the page, want %d", len(boxes), want)
	}
	if len(boxes) == 0 {
		t.Error("no charts on the page")
	}
	for _, b := range boxes {
		switch {
		case b.Interactive && (b.Width < 600 || b.Height < 150 || b.Canvases < 1 || b.Legends < 1):
			t.Errorf("interactive chart %s did not render: %.0f×%.0f px, %d canvases, %d legend rows", b.ID, b.Width, b.Height, b.Canvases, b.Legends)
		case !b.Interactive && (b.Width < 600 || b.Height < 150 || b.Paths < 10 || b.Texts < 5):
			t.Errorf("chart %s did not render: %.0f×%.0f px, %d paths, %d texts", b.ID, b.Width, b.Height, b.Paths, b.Texts)
		}
	}
	if len(boxes) > 0 && !boxes[0].Interactive {
		t.Errorf("the first chart, %s, is not drawn by uPlot", boxes[0].ID)
	}

	t.Logf("zoomed onto the wave at %.2f s: %d bins of %.3f s visible", zoom.Wave, len(zoom.Xs), zoom.Bin)
	if math.Abs(zoom.Visible-0.2) > 1e-6 {
		t.Errorf("the attempts chart shows %.4f s after zooming to 0.2 s", zoom.Visible)
	}
	if zoom.Bin != 0.01 {
		t.Errorf("zoomed to 200 ms, the attempts chart draws %.3f s bins, want the recorded 0.01 s", zoom.Bin)
	}
	if n := len(zoom.Xs); n < 19 || n > 21 {
		t.Errorf("zoomed to 200 ms, %d bins are visible (%v), want about 20", n, zoom.Xs)
	}
	for i := 1; i < len(zoom.Xs); i++ {
		if d := zoom.Xs[i] - zoom.Xs[i-1]; math.Abs(d-0.01) > 1e-6 {
			t.Errorf("bins at %.3f and %.3f s are %.4f s apart, want 0.01", zoom.Xs[i-1], zoom.Xs[i], d)
		}
	}
	for i, m := range zoom.Panels {
		if math.Abs(m-zoom.Lo) > 1e-6 {
			t.Errorf("cohort panel %d of attempts_100ms starts at %.3f s, did not follow the zoom to %.3f s", i, m, zoom.Lo)
		}
	}
	if len(hidden) < 2 || hidden[0] != true || hidden[1] != false {
		t.Errorf("after clicking the second cohort in the legend, the series shown are %v; want it hidden and the first shown", hidden)
	}
}

// firstScreen is where the report's first screen puts its verdict and
// its attempts chart, and what that chart shows first.
type firstScreen struct {
	Verdict   float64            `json:"verdict"`   // the verdict's bottom, px from the top (0: none)
	PlotTop   float64            `json:"plotTop"`   // the attempts chart's plot
	PlotBot   float64            `json:"plotBot"`   // its bottom
	Height    float64            `json:"height"`    // the window's
	Lo        float64            `json:"lo"`        // the range shown, seconds
	Hi        float64            `json:"hi"`        //
	Bin       float64            `json:"bin"`       // its bins, seconds
	Duration  float64            `json:"duration"`  // the run's
	FaultAt   float64            `json:"faultAt"`   // the first fault's start (-1: none)
	FaultTill float64            `json:"faultTill"` // its end
	Peaks     map[string]float64 `json:"peaks"`     // each cohort's tallest bin in the range shown
}

// checkFirstScreen: the first screen of a report, at 1400×900 before any
// scrolling, shows the verdict and, under it, the attempts chart whole,
// zoomed on the first fault at bins where no-jitter's waves stand above
// full jitter's (500 ms bins made full jitter look tallest). Measured by
// the elements' positions in the page, not by pixels.
func checkFirstScreen(t *testing.T, bctx context.Context, page string) {
	t.Helper()
	fs, err := chromedp.Run(bctx, chromedp.Evaluate[firstScreen](`(() => {
		const c = window.herdbench.charts.attempts_1s, u = c.plots[0];
		const v = document.querySelector("#verdict .verdict-line");
		const plot = u.over.getBoundingClientRect();
		const f = (c.spec.panels[0].faults || [])[0];
		const lo = u.scales.x.min, hi = u.scales.x.max, peaks = {};
		u.series.slice(1).forEach((s, i) => {
			let top = 0;
			u.data[0].forEach((x, k) => { if (x >= lo - 1e-9 && x < hi - 1e-9) top = Math.max(top, u.data[i + 1][k] || 0); });
			peaks[s.label] = top;
		});
		return {verdict: v ? v.getBoundingClientRect().bottom : 0, plotTop: plot.top, plotBot: plot.bottom, height: window.innerHeight,
			lo, hi, bin: c.bin_s(), duration: c.spec.duration_s, faultAt: f ? f.at_s : -1, faultTill: f ? f.at_s + f.for_s : -1, peaks};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: first screen of %.0f px: verdict to %.0f px, the attempts chart's plot %.0f–%.0f px, showing %.2f–%.2f s of %.0f s in %.3f s bins; tallest bins %v",
		page, fs.Height, fs.Verdict, fs.PlotTop, fs.PlotBot, fs.Lo, fs.Hi, fs.Duration, fs.Bin, fs.Peaks)
	if fs.PlotBot > fs.Height || fs.PlotTop < fs.Verdict {
		t.Errorf("the attempts chart's plot is at %.0f–%.0f px, the verdict ends at %.0f px: want the verdict, then the chart, within the first %.0f px", fs.PlotTop, fs.PlotBot, fs.Verdict, fs.Height)
	}
	if fs.FaultAt < 0 {
		return
	}
	if fs.Lo > fs.FaultAt || fs.Hi < fs.FaultTill || fs.Hi-fs.Lo > 0.9*fs.Duration || fs.Bin > 0.05 {
		t.Errorf("the attempts chart first shows %.2f–%.2f s of %.0f s in %.3f s bins; want it zoomed on the first fault (%.2f–%.2f s) in bins of 50 ms or less", fs.Lo, fs.Hi, fs.Duration, fs.Bin, fs.FaultAt, fs.FaultTill)
	}
	nj, okN := fs.Peaks["no-jitter"]
	fj, okF := fs.Peaks["full-jitter"]
	if okN && okF && nj <= fj {
		t.Errorf("in the first view no-jitter's tallest bin is %.0f/s, full jitter's %.0f/s: want no-jitter's waves to stand above", nj, fj)
	}
}

// dragCheck is what the page shows after checkDragZoom.
type dragCheck struct {
	Duration  float64              `json:"duration"`
	Out       []float64            `json:"out"` // the attempts chart's range after the double click
	OutBin    float64              `json:"outBin"`
	Want      []float64            `json:"want"`   // the span dragged over
	Ranges    map[string][]float64 `json:"ranges"` // every time chart's range after the drag
	Tolerance float64              `json:"tolerance"`
	Zoomed    []float64            `json:"-"` // after the drag
	Panned    []float64            `json:"-"` // after a shift + drag of a tenth of the panel to the right
}

// checkDragZoom double-clicks the first cohort panel of the waves chart,
// then drags across its second fifth, with Chromium's own mouse events.
func checkDragZoom(t *testing.T, bctx context.Context) dragCheck {
	t.Helper()
	type box struct{ Left, Top, Width, Height float64 }
	b, err := chromedp.Run(bctx, chromedp.Evaluate[box](`(() => {
		const over = window.herdbench.charts.attempts_100ms.plots[0].over;
		over.scrollIntoView({block: "center"});
		const r = over.getBoundingClientRect();
		return {Left: r.left, Top: r.top, Width: r.width, Height: r.height};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	y := b.Top + b.Height/2
	x1, x2 := b.Left+0.2*b.Width, b.Left+0.4*b.Width
	settle := chromedp.Evaluate[chromedp.Void](`new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)))`, chromedp.EvalAwaitPromise)
	if err := chromedp.Do(bctx,
		chromedp.MouseClickXY(x1, y),
		chromedp.MouseClickXY(x1, y, chromedp.ClickCount(2)),
		settle,
	); err != nil {
		t.Fatal(err)
	}
	var d dragCheck
	before, err := chromedp.Run(bctx, chromedp.Evaluate[dragCheck](fmt.Sprintf(`(() => {
		const hb = window.herdbench, h = hb.charts.attempts_1s, u = hb.charts.attempts_100ms.plots[0];
		const px = %f, a = u.posToVal(%f, "x"), b = u.posToVal(%f, "x");
		return {duration: h.spec.duration_s, out: [h.plots[0].scales.x.min, h.plots[0].scales.x.max], outBin: h.bin_s(),
			want: [a, b], tolerance: 2 * (u.scales.x.max - u.scales.x.min) / px};
	})()`, b.Width, x1-b.Left, x2-b.Left)))
	if err != nil {
		t.Fatal(err)
	}
	d = before
	if err := chromedp.Do(bctx,
		chromedp.MouseEvent(chromedp.MousePressed, x1, y, chromedp.ButtonLeft, chromedp.ClickCount(1)),
		chromedp.MouseEvent(chromedp.MouseMoved, (x1+x2)/2, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(chromedp.MouseMoved, x2, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(chromedp.MouseReleased, x2, y, chromedp.ButtonLeft, chromedp.ClickCount(1)),
		settle,
	); err != nil {
		t.Fatal(err)
	}
	// Shift + drag pans: dragging the content right by a tenth of the
	// panel shows the span a tenth of its width earlier, as wide.
	span := func() []float64 {
		r, err := chromedp.Run(bctx, chromedp.Evaluate[[]float64](`(() => { const x = window.herdbench.charts.attempts_1s.plots[0].scales.x; return [x.min, x.max]; })()`))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	zoomed := span()
	shift := chromedp.ButtonModifiers(chromedp.ModifierShift)
	if err := chromedp.Do(bctx,
		chromedp.MouseEvent(chromedp.MousePressed, x1, y, chromedp.ButtonLeft, chromedp.ClickCount(1), shift),
		chromedp.MouseEvent(chromedp.MouseMoved, x1+0.1*b.Width, y, chromedp.ButtonLeft, shift),
		chromedp.MouseEvent(chromedp.MouseReleased, x1+0.1*b.Width, y, chromedp.ButtonLeft, chromedp.ClickCount(1), shift),
		settle,
	); err != nil {
		t.Fatal(err)
	}
	d.Panned = span()
	d.Zoomed = zoomed
	// Back to the dragged span, for the check of every chart below.
	if _, err := chromedp.Run(bctx, chromedp.Evaluate[bool](fmt.Sprintf(`window.herdbench.charts.attempts_1s.setRange(%f, %f), true`, zoomed[0], zoomed[1]))); err != nil {
		t.Fatal(err)
	}
	d.Ranges, err = chromedp.Run(bctx, chromedp.Evaluate[map[string][]float64](`(() => {
		const out = {};
		for (const c of window.herdbench.groups.time.charts)
			c.plots.forEach((u, i) => out[c.spec.id + "[" + i + "]"] = [u.scales.x.min, u.scales.x.max]);
		return out;
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// maxReportBytes is the most a report.html may weigh: a 1M-client run's
// must still open quickly.
const maxReportBytes = 5 << 20

// The sweep's page in a real browser: its charts against the swept fields
// drawn by uPlot (log axis, error bars), its heat maps as SVG, no error,
// no request.
func TestSweepReportInChromium(t *testing.T) {
	bin := chromiumtest.Path(t, "the real-browser test of report.html")
	dir := sweepFixture(t, map[string][]string{"workload.clients": {"10", "50", "1000"}, "chaos[crash].for": {"1s", "2s", "4s"}},
		[]string{"workload.clients", "chaos[crash].for"}, "")
	if err := RenderDir(dir, Options{Version: "v0.0.0-test", NoPNG: true}); err != nil {
		t.Fatal(err)
	}
	bctx, seen, fileURL, cancel := openInChromium(t, bin, filepath.Join(dir, "report.html"))
	defer cancel()
	type sweepCharts struct {
		Uplot  map[string]int `json:"uplot"` // canvases per interactive chart
		SVG    int            `json:"svg"`
		LogX   bool           `json:"logx"`
		Points int            `json:"points"`
	}
	got, err := chromedp.Run(bctx, chromedp.Evaluate[sweepCharts](`(() => {
		const hb = window.herdbench, uplot = {};
		for (const [id, c] of Object.entries(hb.charts)) uplot[id] = c.el.querySelectorAll("canvas").length;
		const u = hb.charts.sweep_1.plots[0];
		return {uplot, svg: document.querySelectorAll("figure.chart svg").length, logx: u.scales.x.distr === 3,
			points: u.data[0].length};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	checkSelfContained(t, seen, fileURL)
	out := filepath.Join(t.ArtifactDir(), "sweep.png")
	if s := os.Getenv("HERDBENCH_SCREENSHOT"); s != "" {
		out = strings.TrimSuffix(s, ".png") + "-sweep.png"
	}
	if err := os.WriteFile(out, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	if got.Uplot["sweep_1"] == 0 || got.Uplot["sweep_2"] == 0 || len(got.Uplot) != 2 {
		t.Errorf("uPlot charts on the sweep's page: %v; want sweep_1 and sweep_2 drawn", got.Uplot)
	}
	if got.SVG != 5 {
		t.Errorf("%d SVG charts, want the 5 heat maps", got.SVG)
	}
	if !got.LogX || got.Points != 3 {
		t.Errorf("sweep_1 against clients 10, 50, 1000: log x %v, %d points; want a log axis of 3", got.LogX, got.Points)
	}
}

// A folder without .hlog files (an older herdbench's) has no latency over
// time to draw: the page shows that chart's empty axes and still draws
// every other chart, without an error.
func TestReportWithoutHistogramsInChromium(t *testing.T) {
	bin := chromiumtest.Path(t, "the real-browser test of report.html")
	dir := fixture(t, filepath.Join(t.TempDir(), "run"), 1, 0)
	for _, name := range []string{"no-jitter.hlog", "full-jitter.hlog"} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := RenderDir(dir, Options{Version: "v0.0.0-test", NoPNG: true}); err != nil {
		t.Fatal(err)
	}
	bctx, seen, fileURL, cancel := openInChromium(t, bin, filepath.Join(dir, "report.html"))
	defer cancel()
	ids, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`Object.keys(window.herdbench.charts)`))
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	checkSelfContained(t, seen, fileURL)
	if slices.Contains(ids, "latency_over_time") || !slices.Contains(ids, "attempts_1s") {
		t.Errorf("charts drawn by uPlot: %v; want the attempts, and the empty latency over time left to its SVG", ids)
	}
}
