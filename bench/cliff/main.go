// Command cliff measures herdbench's cliff search through the real CLI and
// writes the figures, each with its command, the time and the load
// average, as generated files (docs/measured/cliff.json and .md, with
// the date, machine, load and command; -record "" writes none):
//
//	go run ./bench/cliff                          # every part, in order
//	go run ./bench/cliff -only agree,huang -record /tmp/cliff
//
// The parts (-only, comma-separated):
//
//	agree     on metastable and on the outage, the search against a --set
//	          sweep of the whole grid with as many --runs: runs made, wall
//	          time, each strategy's boundary and the sweep's, and how many of
//	          the search's runs the sweep's same run agrees with
//	noreturn  the point of no return of naive's run of metastable (seed 7)
//	budget    budget sizing on metastable's naive: Envoy's budget_percent,
//	          Finagle's percent_can_retry (with Finagle's defaults, which are
//	          Gateway API's retryConstraint's), gRPC's token_ratio
//	huang     the replay of Huang et al.'s retry rig (examples/huang-retry.yaml)
//	confirm   real runs on sockets either side of metastable's boundaries
//
// Everything runs on this machine: virtual time, and for confirm the
// embedded target on 127.0.0.1, bounded by the scenario's duration.
// herdbench is built from this tree (run from the repository's root) or
// -herdbench PATH.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/herdbench/herdbench/bench/internal/cli"
	"github.com/herdbench/herdbench/bench/internal/measured"
	"github.com/herdbench/herdbench/cliff"
	"github.com/herdbench/herdbench/results/folder"
)

// row is one measured figure: what, the figure, and how it was measured.
type row struct {
	what, figure string
	command      string
	when         string // the time and the load average before and after
}

type bench struct {
	hb, dir string
	rows    []row
	slow    int
}

var parts = []struct {
	name string
	run  func(b *bench) error
}{
	{"agree", (*bench).agree},
	{"noreturn", (*bench).noReturn},
	{"budget", (*bench).budget},
	{"huang", (*bench).huang},
	{"confirm", (*bench).confirm},
}

func main() {
	herdbench := flag.String("herdbench", "", "the herdbench binary to measure (default: built from this tree)")
	only := flag.String("only", "agree,noreturn,budget,huang,confirm", "the parts to run, comma-separated")
	slow := flag.Int("slow-motion", 1, "confirm's real runs in slow motion (herdbench cliff --slow-motion)")
	rec := measured.Flag()
	flag.Parse()
	if err := run(*herdbench, strings.Split(*only, ","), rec, *slow); err != nil {
		fmt.Fprintln(os.Stderr, "cliff:", err)
		os.Exit(2)
	}
}

func run(herdbench string, only []string, rec *measured.Recorder, slow int) error {
	dir, hb, remove, err := cli.Workdir("cliff-", herdbench)
	if err != nil {
		return err
	}
	defer remove()
	b := &bench{hb: hb, dir: dir, slow: slow}
	for _, name := range only {
		found := false
		for _, p := range parts {
			if p.name == name {
				found = true
				if err := p.run(b); err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
			}
		}
		if !found {
			return fmt.Errorf("-only: no part %q", name)
		}
	}
	return rec.Finish("cliff", b.table(), os.Stdout)
}

// loadavg is the 1-minute load average now.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

// herdbench runs the CLI with args and returns its stdout, the wall time
// and when it ran (the time, the load before and after).
func (b *bench) herdbench(args ...string) (string, time.Duration, string, error) {
	before, start := loadavg(), time.Now()
	cmd := exec.Command(b.hb, args...)
	var stdout strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, os.Stderr
	fmt.Fprintln(os.Stderr, "$ herdbench", strings.Join(args, " "))
	err := cmd.Run()
	wall := time.Since(start)
	when := fmt.Sprintf("%s, load %s to %s", start.UTC().Format("2006-01-02 15:04"), before, loadavg())
	if err != nil {
		return stdout.String(), wall, when, fmt.Errorf("herdbench %s: %w", strings.Join(args, " "), err)
	}
	return stdout.String(), wall, when, nil
}

// resultsDir is the folder a command's output names after "results: ".
func resultsDir(stdout string) (string, error) {
	for _, l := range strings.Split(stdout, "\n") {
		if d, ok := strings.CutPrefix(l, "results: "); ok {
			return strings.TrimSpace(d), nil
		}
	}
	return "", fmt.Errorf("no results folder in the output")
}

// cliffRun runs herdbench cliff with args and reads its cliff.json.
func (b *bench) cliffRun(args ...string) (*cliff.Document, string, time.Duration, string, error) {
	args = append([]string{"cliff"}, append(args, "-o", b.dir, "--no-png")...)
	stdout, wall, when, err := b.herdbench(args...)
	if err != nil {
		return nil, "", 0, "", err
	}
	dir, err := resultsDir(stdout)
	if err != nil {
		return nil, "", 0, "", err
	}
	data, err := folder.ReadRegular(filepath.Join(dir, "cliff.json"), 64<<20)
	if err != nil {
		return nil, "", 0, "", err
	}
	d, err := cliff.Decode(data)
	return d, dir, wall, when, err
}

// command writes args as a shell command line.
func command(args ...string) string {
	var out []string
	for _, a := range args {
		if strings.ContainsAny(a, "[]*? ,") {
			a = "'" + a + "'"
		}
		out = append(out, a)
	}
	return "herdbench " + strings.Join(out, " ")
}

// table is the bench's figures, a row each with its command and when it
// ran.
func (b *bench) table() measured.Table {
	t := measured.Table{Name: "cliff", Title: "The cliff search, measured",
		Columns: []string{"measured", "figure", "command", "when"},
		Notes: []string{"Every figure is from the command beside it, run then, with the machine's 1-minute load average before and after.",
			"Virtual-time figures do not depend on the load (the seeds fix them); wall times and the real runs on sockets do.",
			"docs/cliff.md says what each part means."}}
	for _, r := range b.rows {
		t.Rows = append(t.Rows, []string{r.what, r.figure, "`" + r.command + "`", r.when})
	}
	return t
}
