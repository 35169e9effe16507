package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/herdbench/herdbench/internal/chromiumtest"
)

// The live page in a real browser: headless Chromium opens --ui's page
// during a short real run against the embedded target, and on a held
// target presses Start. Any console error or warning (a Content-Security-
// Policy violation is one), any uncaught exception or any request to
// another origin fails the test.
//
// Environment:
//   HERDBENCH_CHROMIUM         the browser binary (default: chromium,
//                              chromium-browser or google-chrome on PATH);
//                              without one the test skips.
//   HERDBENCH_LIVE_SCREENSHOT  where to save the screenshot of the
//                              scenario's page (default: the test's
//                              artifact dir: go test -artifacts).

var livePageRE = regexp.MustCompile(`live page on (http://\S+/)`)

// browser starts headless Chromium for the test, its tab's events going to
// seen.
func browser(t *testing.T, seen *chromiumtest.Log) context.Context {
	bctx, cancel := chromiumtest.Start(t, chromiumtest.Path(t, "the live page's browser test"), seen)
	t.Cleanup(cancel)
	// Start the browser now, not at the first navigation: on a busy
	// machine its start takes seconds, which a short run's page, closed
	// at the run's end, would not wait for.
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	return bctx
}

// checkSameOrigin fails t for every problem the tab reported and every
// request that was not to origin.
func checkSameOrigin(t *testing.T, seen *chromiumtest.Log, origin string) {
	t.Helper()
	seen.Check(t, func(u string) bool { return strings.HasPrefix(u, origin) }, "the live page must load nothing but from its own address")
}

// pollPage evaluates js every 50 ms until it is true.
func pollPage(t *testing.T, ctx context.Context, js, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the page never showed %s (%s)", what, js)
}

const attemptsJS = `Number((document.querySelector("#verdict tbody tr") || {dataset: {}}).dataset.attempts || 0)`

func TestLivePageInChromium(t *testing.T) {
	var seen chromiumtest.Log
	bctx := browser(t, &seen)

	t.Run("scenario", func(t *testing.T) {
		scenario := writeScenario(t, `name: live
duration: 5s
workload:
  clients: 40
target:
  concurrency: 8
strategies:
  - name: no-jitter
    backoff: exponential
    base: 50ms
  - name: full-jitter
    backoff: full
    base: 50ms
chaos:
  - name: down
    kind: outage
    mode: "503"
    at: 1500ms
    for: 1500ms
`)
		var stderr syncBuffer
		done := make(chan int, 1)
		go func() {
			done <- run(context.Background(), []string{"scenario", scenario, "--ui", "127.0.0.1:0", "--out", t.TempDir(), "--seed", "1", "--allow-untrustworthy"}, io.Discard, &stderr)
		}()
		page := stderr.waitFor(t, livePageRE)
		if err := chromedp.Do(bctx, chromedp.EmulateViewport(1280, 1400), chromedp.Navigate(page)); err != nil {
			t.Fatal(err)
		}
		pollPage(t, bctx, attemptsJS+" > 0", "attempts")
		first, err := chromedp.Run(bctx, chromedp.Evaluate[float64](attemptsJS))
		if err != nil {
			t.Fatal(err)
		}
		// Read again later in the run: the figure must have grown while
		// the run goes (the page is live, not a snapshot).
		pollPage(t, bctx, fmt.Sprintf("%s > %v && Number(document.body.dataset.frames) > 30", attemptsJS, first), "more attempts")
		n, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll("#charts .uplot canvas").length`))
		if err != nil {
			t.Fatal(err)
		}
		if n != 4 { // a chart per cohort, requests ended, in flight
			t.Errorf("%d charts drawn, want 4", n)
		}
		pollPage(t, bctx, `document.querySelectorAll("#timeline .bar").length === 1 && document.querySelector("#timeline .now") !== null`, "the fault plan with a now mark")
		pollPage(t, bctx, `document.getElementById("controls").hidden`, "no buttons on a scenario's page")
		// The screenshot near the end of the run, the recovery in it: a
		// frame per tick, but a busy machine drops ticks (a Ticker does), so
		// the end is the frame that says the run is done.
		pollPage(t, bctx, `Number(document.body.dataset.frames) > 44 || document.body.dataset.done === "true"`, "the run's end")
		shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		out := os.Getenv("HERDBENCH_LIVE_SCREENSHOT")
		if out == "" {
			out = filepath.Join(t.ArtifactDir(), "live.png")
		}
		if err := os.WriteFile(out, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot of the live page: %s", out)
		if code := <-done; code != exitOK && code != exitThresholds {
			t.Fatalf("exit code %d; output:\n%s", code, stderr.String())
		}
		checkSameOrigin(t, &seen, strings.TrimSuffix(page, "/"))
	})

	t.Run("target", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		seen.Reset()
		var stderr syncBuffer
		done := make(chan int, 1)
		go func() {
			done <- run(ctx, []string{"target", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--ui", "127.0.0.1:0", "--hold", "--no-record", "--exit-after", "60s"}, io.Discard, &stderr)
		}()
		page := stderr.waitFor(t, livePageRE)
		if err := chromedp.Do(bctx, chromedp.Navigate(page)); err != nil {
			t.Fatal(err)
		}
		pollPage(t, bctx, `document.body.dataset.running === "false" && !document.getElementById("controls").hidden`, "a held plan and its buttons")
		if err := chromedp.Do(bctx, chromedp.Click(chromedp.CSS("#start"))); err != nil {
			t.Fatal(err)
		}
		pollPage(t, bctx, `document.body.dataset.running === "true" && document.getElementById("answer").textContent.includes("plan running")`, "the plan running after Start")
		if !strings.Contains(stderr.String(), "control: chaos plan started now") {
			t.Errorf("the target did not log the start:\n%s", stderr.String())
		}
		cancel()
		if code := <-done; code != exitOK {
			t.Errorf("exit code %d; output:\n%s", code, stderr.String())
		}
		checkSameOrigin(t, &seen, strings.TrimSuffix(page, "/"))
	})
}
