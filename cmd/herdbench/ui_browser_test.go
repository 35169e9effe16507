package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
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

func chromium(t *testing.T) string {
	if p := os.Getenv("HERDBENCH_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium: install the Debian package chromium or set HERDBENCH_CHROMIUM to run the live page's browser test")
	return ""
}

// pageLog collects what a tab did.
type pageLog struct {
	mu       sync.Mutex
	requests []string
	problems []string
}

func (b *pageLog) listen(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		b.requests = append(b.requests, ev.Request.URL)
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			b.problems = append(b.problems, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		what := d.Text
		if d.Exception != nil {
			what += " " + d.Exception.Description
		}
		b.problems = append(b.problems, fmt.Sprintf("exception: %s at %s:%d", what, d.URL, d.LineNumber+1))
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
			b.problems = append(b.problems, fmt.Sprintf("%s %s: %s %s", ev.Entry.Source, ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
		}
	}
}

func (b *pageLog) reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.requests, b.problems = nil, nil
}

// check fails t for every problem the tab reported and every request
// that was not to origin.
func (b *pageLog) check(t *testing.T, origin string) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		t.Errorf("the browser reported: %s", p)
	}
	for _, u := range b.requests {
		if !strings.HasPrefix(u, origin) {
			t.Errorf("the live page made a request to %s; it must load nothing but from its own address", u)
		}
	}
	if len(b.requests) == 0 {
		t.Error("no request seen: the network log is not being recorded")
	}
}

// browser starts headless Chromium for the test.
func browser(t *testing.T, seen *pageLog) context.Context {
	bin := chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox, // CI containers run as root, where Chromium's sandbox cannot start
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-component-update", true),
	)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx, chromedp.WithListener(seen.listen))
	t.Cleanup(bcancel)
	return bctx
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
	var seen pageLog
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
			done <- run(context.Background(), []string{"scenario", scenario, "--ui", "127.0.0.1:0", "--out", t.TempDir(), "--seed", "1"}, io.Discard, &stderr)
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
		// The screenshot near the end of the run, the recovery in it.
		pollPage(t, bctx, `Number(document.body.dataset.frames) > 44`, "the run's end")
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
		seen.check(t, strings.TrimSuffix(page, "/"))
	})

	t.Run("target", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		seen.reset()
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
		seen.check(t, strings.TrimSuffix(page, "/"))
	})
}
