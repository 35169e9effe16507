// Package chromiumtest is what the real-browser tests share: finding a
// headless Chromium (or skipping without one), starting it for a test, and
// collecting what a tab did (its requests, console errors and warnings,
// uncaught exceptions, log entries) to fail the test on any of them.
//
// The report's test (results/report) and the live page's (cmd/herdbench)
// use it; it imports chromedp, which only tests may.
package chromiumtest
