package chromiumtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Path is the browser binary: $HERDBENCH_CHROMIUM, or chromium,
// chromium-browser or google-chrome on PATH. Without one the test skips,
// saying how to get one; what names the test for that message.
func Path(t testing.TB, what string) string {
	t.Helper()
	if p := os.Getenv("HERDBENCH_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skipf("no Chromium: install the Debian package chromium (apt-get install chromium) or set HERDBENCH_CHROMIUM to a Chrome binary to run %s", what)
	return ""
}

// Log collects what a tab did, from its event stream (Listen).
type Log struct {
	mu       sync.Mutex
	requests []string
	problems []string
}

// Listen takes one of the tab's events: give it to chromedp.WithListener.
func (b *Log) Listen(ev any) {
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

// Reset forgets what was seen so far.
func (b *Log) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.requests, b.problems = nil, nil
}

// Check fails t for every problem the tab reported and every request
// allowed refuses; why says what a page must load instead (for the
// message). Call it after the tab is done.
func (b *Log) Check(t testing.TB, allowed func(url string) bool, why string) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		t.Errorf("the browser reported: %s", p)
	}
	for _, u := range b.requests {
		if !allowed(u) {
			t.Errorf("the page made a request to %s; %s", u, why)
		}
	}
	if len(b.requests) == 0 {
		t.Error("no request was seen: the network log is not being recorded")
	}
}

// shortTempDir is a folder of t's own, removed when t ends, with a short
// path: os.TempDir's, then a few letters.
func shortTempDir(t testing.TB) string {
	dir, err := os.MkdirTemp("", "cr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// Start starts headless Chromium bin for at most 90 s, its tab's events
// going to seen, and returns the tab's context and what stops the browser.
func Start(t testing.TB, bin string, seen *Log) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox, // CI containers run as root, where Chromium's sandbox cannot start
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		// Its singleton sockets go to a folder of the test's own, not the
		// shared $TMPDIR; a short one: a socket's path holds at most 107
		// bytes, which t.TempDir's (it names the test) overran.
		chromedp.Env("TMPDIR="+shortTempDir(t)),
		chromedp.Flag("disable-component-update", true),
	)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	bctx, bcancel := chromedp.NewContext(actx, chromedp.WithListener(seen.Listen))
	return bctx, func() { bcancel(); acancel(); cancel() }
}
