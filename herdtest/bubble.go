package herdtest

import (
	"bytes"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
)

// inBubble runs f in a synctest bubble, as synctest.Test does, but a
// bubble that ends with goroutines of the cohorts' code still in it (a
// request function that never returns, a client library's background
// refresher) returns what those goroutines wait on, for the caller to
// fail its test with, instead of synctest's deadlock panic, which would
// end the whole test binary. Those goroutines stay parked for good: the
// bubble's clock stopped with it.
func inBubble(t *testing.T, f func(t *testing.T)) (leftover string) {
	bubble := "" // "synctest bubble N", as tracebacks name it
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		err, ok := v.(error)
		if !ok || !strings.HasPrefix(err.Error(), "deadlock: ") {
			panic(v)
		}
		leftover = leftBehind(bubble, allStacks())
	}()
	synctest.Test(t, func(t *testing.T) {
		bubble = bubbleOf()
		f(t)
	})
	return ""
}

// allStacks returns every goroutine's stack.
func allStacks() []byte {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 64<<20 {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}

var bubbleName = regexp.MustCompile(`synctest bubble \d+`)

// bubbleOf returns the name of the bubble the calling goroutine runs in,
// from its own stack's header.
func bubbleOf() string {
	buf := make([]byte, 256)
	n := runtime.Stack(buf, false)
	header, _, _ := bytes.Cut(buf[:n], []byte("\n"))
	return string(bubbleName.Find(header))
}

// maxShown is how many goroutines left behind a message shows.
const maxShown = 5

// leftBehind says which goroutines of bubble remain in stacks (runtime.Stack's
// text of every goroutine), each by its state and the first frame of code
// outside the Go runtime and herdtest.
func leftBehind(bubble string, stacks []byte) string {
	var order []string
	count := map[string]int{}
	n := 0
	for _, g := range strings.Split(string(stacks), "\n\n") {
		header, body, _ := strings.Cut(g, "\n")
		if bubble == "" || !strings.Contains(header, bubble+"]") && !strings.Contains(header, bubble+",") {
			continue
		}
		d, ours := describe(header, body)
		if !ours {
			continue // herdtest's own, waiting for the cohorts' code
		}
		if n++; count[d] == 0 {
			order = append(order, d)
		}
		count[d]++
	}
	var shown []string
	for _, d := range order {
		if len(shown) == maxShown {
			shown = append(shown, fmt.Sprintf("... and %d more places", len(order)-maxShown))
			break
		}
		if count[d] > 1 {
			d = fmt.Sprintf("%d goroutines: %s", count[d], d)
		}
		shown = append(shown, d)
	}
	return fmt.Sprintf("%d goroutines of the cohorts' code still running after the run, which can never end: virtual time stopped with the run. "+
		"A request function must return once its ctx ends (pass ctx to its requests and waits), and a goroutine a client starts "+
		"(a library's background refresher, a ticker) must be stopped: close the library's client in a function given to c.Cleanup, "+
		"which herdtest calls at the run's end. Where they wait:\n  %s", n, strings.Join(shown, "\n  "))
}

// describe is one goroutine in a line: its state, where the code that
// waits is and where it was started; ours is false for a goroutine with
// no frame outside the runtime and herdtest.
func describe(header, body string) (line string, ours bool) {
	state := header
	if i, j := strings.Index(header, "["), strings.LastIndex(header, "]"); i >= 0 && j > i {
		state = header[i+1 : j]
		if k := strings.Index(state, ", synctest bubble"); k >= 0 {
			state = state[:k]
		}
	}
	lines := strings.Split(body, "\n")
	where, created := "", ""
	for i := 0; i+1 < len(lines); i += 2 {
		fn, file := strings.TrimSpace(lines[i]), strings.TrimSpace(lines[i+1])
		if strings.HasPrefix(fn, "created by ") {
			fn, _, _ = strings.Cut(strings.TrimPrefix(fn, "created by "), " in goroutine ")
			created = fn + " (" + trimOffset(file) + ")"
			break
		}
		if where == "" && !internalFrame(fn) {
			where = trimArgs(fn) + " (" + trimOffset(file) + ")"
		}
	}
	if where == "" {
		return "", false
	}
	line = state + " in " + where
	if created != "" {
		line += ", started by " + created
	}
	return line, true
}

// trimArgs drops a frame's argument words: pkg.f(0x1, ...) is pkg.f.
func trimArgs(fn string) string {
	if strings.HasSuffix(fn, ")") {
		if i := strings.LastIndex(fn, "("); i > 0 {
			return fn[:i]
		}
	}
	return fn
}

// internalFrame says a frame is the runtime's, the standard library's
// waiting primitives', or herdtest's own.
func internalFrame(fn string) bool {
	for _, p := range []string{"runtime.", "sync.", "time.", "internal/", "github.com/herdbench/herdbench/herdtest.(*client)", "github.com/herdbench/herdbench/herdtest.(*driver)"} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// trimOffset drops a frame's " +0x1c5" program counter offset.
func trimOffset(file string) string {
	if i := strings.LastIndex(file, " +0x"); i >= 0 {
		return file[:i]
	}
	return file
}
