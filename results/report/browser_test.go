package report

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// The real-browser test: headless Chromium opens report.html from disk, and
// the test fails on any console error or warning, any uncaught exception,
// any network request other than the file itself, or a chart that did not
// render. It saves a full-page screenshot.
//
// Environment:
//   HERDBENCH_CHROMIUM        the browser binary (default: chromium,
//                             chromium-browser or google-chrome on PATH);
//                             without one the test skips.
//   HERDBENCH_REPORT          a report.html to check instead of one rendered
//                             from the test fixture, e.g. a real run's.
//   HERDBENCH_SCREENSHOT      where to save the screenshot (default: the
//                             test's artifact dir: go test -artifacts).

func chromiumPath(t *testing.T) string {
	if p := os.Getenv("HERDBENCH_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium: install the Debian package chromium (apt-get install chromium) or set HERDBENCH_CHROMIUM to a Chrome binary to run the real-browser test of report.html")
	return ""
}

// browserLog collects what the page did, from the tab's event stream.
type browserLog struct {
	mu       sync.Mutex
	requests []string
	problems []string
}

func (b *browserLog) listen(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		b.requests = append(b.requests, ev.Request.URL)
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
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

type chartBox struct {
	ID     string  `json:"id"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	Paths  int     `json:"paths"`
	Texts  int     `json:"texts"`
}

func TestReportInChromium(t *testing.T) {
	bin := chromiumPath(t)
	page := os.Getenv("HERDBENCH_REPORT")
	want := 0
	if page == "" {
		r := loadFixture(t, 1, 0, "browser")
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
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	fileURL := (&url.URL{Scheme: "file", Path: abs}).String()

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox, // CI containers run as root, where Chromium's sandbox cannot start
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-component-update", true),
	)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	defer acancel()
	var seen browserLog
	bctx, bcancel := chromedp.NewContext(actx, chromedp.WithListener(seen.listen))
	defer bcancel()

	if err := chromedp.Do(bctx,
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(fileURL),
		chromedp.WaitReady(chromedp.CSS("footer")),
	); err != nil {
		t.Fatalf("opening %s in %s: %v", fileURL, bin, err)
	}
	boxes, err := chromedp.Run(bctx, chromedp.Evaluate[[]chartBox](`Array.from(document.querySelectorAll("figure[data-chart]")).map(f => {
		const svg = f.querySelector("svg");
		const r = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
		return {id: f.dataset.chart, width: r.width, height: r.height,
			paths: svg ? svg.querySelectorAll("path").length : 0,
			texts: svg ? svg.querySelectorAll("text").length : 0};
	})`))
	if err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	// The listener runs on the goroutine that reads the tab's messages, in
	// order, so every event sent before the answers above has been seen.
	bcancel()

	out := os.Getenv("HERDBENCH_SCREENSHOT")
	if out == "" {
		out = filepath.Join(t.ArtifactDir(), "report.png")
	}
	if err := os.WriteFile(out, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of %s: %s", page, out)

	seen.mu.Lock()
	defer seen.mu.Unlock()
	for _, p := range seen.problems {
		t.Errorf("the browser reported: %s", p)
	}
	for _, u := range seen.requests {
		if u != fileURL {
			t.Errorf("the report made a request to %s; it must be self-contained (no network, no other files)", u)
		}
	}
	if len(seen.requests) == 0 {
		t.Error("no request for the report itself was seen: the network log is not being recorded")
	}
	if want > 0 && len(boxes) != want {
		t.Errorf("%d charts on the page, want %d", len(boxes), want)
	}
	if len(boxes) == 0 {
		t.Error("no charts on the page")
	}
	for _, b := range boxes {
		if b.Width < 600 || b.Height < 150 || b.Paths < 10 || b.Texts < 5 {
			t.Errorf("chart %s did not render: %.0f×%.0f px, %d paths, %d texts", b.ID, b.Width, b.Height, b.Paths, b.Texts)
		}
	}
}
