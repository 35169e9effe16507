// Command testcost measures what herdbench costs a contributor on this
// machine: the first build of the binary from an empty build cache (what a
// fresh clone's first go run waits), the test command without and with the
// race detector from a warm cache (each run once untimed first, so only
// the tests' own time is measured), and the packages and tests that take
// longest (from go test -json).
//
//	go run ./bench/testcost                       # all three (a quarter of an hour to an hour on a busy 2-core machine)
//	go run ./bench/testcost -steps build          # the cold build alone
//	go run ./bench/testcost -steps test -slowest 15
//
// Wall time is the command's; CPU time is the kernel's accounting of the
// go command and everything it waited for (compilers, linkers, test
// binaries). Its closing tables are written to docs/measured/testcost.json
// and .md (the commands) and slowtests.json and .md (the slowest packages
// and tests of the last test run), with the date, machine, load and
// command (-record "" writes none); docs/performance.md's current figures
// are synced from them. Run it from the repository's root. Nothing goes
// over the network but what go test itself fetches.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/herdbench/herdbench/bench/internal/measured"
)

// steps are the commands measured, by name, in their order.
var steps = []struct {
	name, what string
	warm       []string // run untimed first (nil: nothing), so the build cache is warm
	cmd        []string
	emptyCache bool
}{
	{"build", "the first build of the binary from an empty build cache", nil,
		[]string{"go", "build", "-o", os.DevNull, "./cmd/herdbench"}, true},
	{"test", "go test ./... from a warm cache", []string{"go", "test", "-count=1", "-run=^$", "./..."},
		[]string{"go", "test", "-count=1", "-json", "./..."}, false},
	{"race", "go test -race ./... from a warm cache (the README's and CI's test command)", []string{"go", "test", "-race", "-count=1", "-run=^$", "./..."},
		[]string{"go", "test", "-race", "-count=1", "-json", "./..."}, false},
}

func main() {
	which := flag.String("steps", "build,test,race", "the steps, comma-separated: build, test, race")
	slowest := flag.Int("slowest", 10, "how many of the slowest packages and tests to list")
	rec := measured.Flag()
	flag.Parse()
	if err := run(strings.Split(*which, ","), *slowest, rec); err != nil {
		fmt.Fprintln(os.Stderr, "testcost:", err)
		os.Exit(1)
	}
}

func run(which []string, slowest int, rec *measured.Recorder) error {
	chosen := map[string]bool{}
	for _, w := range which {
		found := false
		for _, s := range steps {
			found = found || s.name == w
		}
		if !found {
			return fmt.Errorf("-steps: no step %q (build, test, race)", w)
		}
		chosen[w] = true
	}
	t := measured.Table{Name: "testcost", Title: "What a contributor waits: the first build, and the test command without and with the race detector",
		Columns: []string{"step", "command", "wall s", "CPU s", "load before", "result"},
		Notes: []string{"Warm: the same command was run once before with -run=^$ (everything built, no test run), so only the tests' own time is measured.",
			"CPU is the go command's and everything it waited for (compilers, linkers, test binaries), from the kernel's accounting."}}
	var last []byte // the last test run's go test -json output
	for _, s := range steps {
		if !chosen[s.name] {
			continue
		}
		m, out, err := measure(s.warm, s.cmd, s.emptyCache)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		if s.name != "build" {
			last = out
		}
		t.Rows = append(t.Rows, []string{s.name, strings.Join(shown(s.cmd), " "), fmt.Sprintf("%.0f", m.wall.Seconds()), fmt.Sprintf("%.0f", m.cpu.Seconds()), fmt.Sprintf("%.1f", m.load), m.result})
		fmt.Fprintf(os.Stderr, "testcost: %s: %s: wall %s, CPU %s, %s\n", s.name, s.what, m.wall.Round(time.Second), m.cpu.Round(time.Second), m.result)
	}
	if err := rec.Finish("testcost", t, os.Stdout); err != nil {
		return err
	}
	if last == nil {
		return nil
	}
	pkgs, tests := Slowest(last, slowest)
	st := measured.Table{Name: "slowtests", Title: "The slowest packages and tests of the test command",
		Columns: []string{"kind", "name", "s"},
		Notes:   []string{"From the last test run above (go test -json): a package's time is its test binary's, a test's its own (parallel subtests overlap)."}}
	for _, p := range pkgs {
		st.Rows = append(st.Rows, []string{"package", p.Name, fmt.Sprintf("%.1f", p.Seconds)})
	}
	for _, e := range tests {
		st.Rows = append(st.Rows, []string{"test", e.Name, fmt.Sprintf("%.1f", e.Seconds)})
	}
	return rec.Finish("testcost", st, os.Stdout)
}

// shown is a command as a user types it: -json and -count=1 are this
// bench's, not the user's.
func shown(cmd []string) []string {
	var out []string
	for _, a := range cmd {
		if a != "-json" && a != "-count=1" && a != "-o" && a != os.DevNull {
			out = append(out, a)
		}
	}
	return out
}

type sample struct {
	wall, cpu time.Duration
	load      float64
	result    string
}

// measure runs warm (if any) untimed, then cmd, timed, and returns its wall
// time, CPU time and outcome, and its standard output.
func measure(warm, cmd []string, emptyCache bool) (sample, []byte, error) {
	var env []string
	if emptyCache {
		dir, err := os.MkdirTemp("", "testcost-gocache-")
		if err != nil {
			return sample{}, nil, err
		}
		defer os.RemoveAll(dir)
		env = append(os.Environ(), "GOCACHE="+dir)
	}
	if warm != nil {
		w := exec.Command(warm[0], warm[1:]...)
		w.Stderr = os.Stderr
		if err := w.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "testcost: %s: %v (measured all the same)\n", strings.Join(warm, " "), err)
		}
	}
	c := exec.Command(cmd[0], cmd[1:]...)
	c.Env = env
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, os.Stderr
	s := sample{load: measured.Load(), result: "passed"}
	start := time.Now()
	err := c.Run()
	s.wall = time.Since(start)
	if c.ProcessState == nil {
		return s, nil, err
	}
	if err != nil {
		s.result = "failed: " + failures(out.Bytes())
	}
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return s, out.Bytes(), nil
}
