// Command verdict measures how often a real run's verdict is right: its
// calibration corpus. It runs every built-in scenario and every scenario
// of bench/physics/ for real, on the machine as it is and beside CPU hogs
// (`yes > /dev/null`, -hogs of them), at real speed and in slow motion
// (-slow), -rounds times, and then the main job, `herdbench scenario
// outage.yaml` as a user types it, -main times each way. For every run
// (every point of a sweep) it records the verdict, whether the run's
// headline figures were within their bands of the simulator's at the
// resolution the verdict read them (results.Bands), what the self-check's
// limits alone would have said, whether the model given the run's own
// lateness agreed with it, whether the built-in's headline held, the wall
// time and the load average; and writes them (-data, JSON) and a Markdown
// page of them (-out): the confusion table, the main job's figures, and
// every run, with the date, the machine, the load and this command.
//
//	go run ./bench/verdict
//	go run ./bench/verdict -render    # the page again from -data, nothing run
//
// The runs are the real CLI, built from this tree (or -herdbench PATH).
// Conditions alternate within a round, so each sees the same machine. The
// hogs start right before a run and are killed (by PID) right after it,
// and die with this command. All load goes to 127.0.0.1 and every run
// stops by itself; Ctrl-C stops the run under way and writes what was
// measured.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/herdbench/herdbench/bench/internal/cli"
	"github.com/herdbench/herdbench/scenarios"
)

func main() {
	c := config{}
	flag.IntVar(&c.Rounds, "rounds", 1, "rounds of the corpus: each runs every scenario in every condition once")
	flag.IntVar(&c.Hogs, "hogs", 2, "CPU hogs (yes > /dev/null) beside the runs of the hog conditions")
	flag.StringVar(&c.Slow, "slow", "2", "the --slow-motion of the corpus's slow-motion conditions (a factor, or auto)")
	flag.IntVar(&c.Main, "main", 10, "runs of the main job (herdbench scenario outage.yaml) on the machine as it is, and as many beside the hogs")
	flag.StringVar(&c.Scenarios, "scenarios", "", "scenarios of the corpus, comma-separated (default: every built-in and bench/physics/*.yaml)")
	flag.StringVar(&c.MainArgs, "main-args", "", "more arguments for the main job, space-separated, to measure another way of running it (e.g. \"--cohorts together --slow-motion 8\")")
	appendTo := flag.Bool("append", false, "add the runs to those -data holds (another -main-args, more rounds) instead of starting afresh")
	hb := flag.String("herdbench", "", "the herdbench binary (default: built from this tree into a temporary folder)")
	keep := flag.String("keep", "", "keep the results folders in this folder (default: a temporary folder, removed at the end)")
	data := flag.String("data", "docs/verdict-corpus.json", "where the measurements go (JSON), and -render reads them")
	out := flag.String("out", "docs/verdict-corpus.md", "the page of the measurements (Markdown)")
	render := flag.Bool("render", false, "only draw -out again from -data; run nothing")
	flag.Parse()
	if err := run(c, *hb, *keep, *data, *out, *render, *appendTo); err != nil {
		fmt.Fprintln(os.Stderr, "verdict:", err)
		os.Exit(1)
	}
}

// config is what the corpus ran: its flags, as recorded with it.
type config struct {
	Rounds    int    `json:"rounds"`
	Hogs      int    `json:"hogs"`
	Slow      string `json:"slow"`
	Main      int    `json:"main"`
	Scenarios string `json:"scenarios,omitempty"`
	MainArgs  string `json:"main_args,omitempty"`
}

func run(c config, hb, keep, dataPath, outPath string, render, appendTo bool) error {
	var before corpus
	if render || appendTo {
		b, err := os.ReadFile(dataPath)
		if err == nil {
			err = json.Unmarshal(b, &before)
		}
		if err != nil {
			return fmt.Errorf("reading -data: %w", err)
		}
		if before.Command != "" && len(before.Commands) == 0 {
			before.Commands, before.Command = []string{before.Command}, ""
		}
		if render {
			return writePage(outPath, &before)
		}
	}
	dir, bin, remove, err := cli.Workdir("herdbench-verdict-", hb)
	if err != nil {
		return err
	}
	defer remove()
	if keep != "" {
		dir = keep
	}
	names, err := corpusScenarios(c.Scenarios)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cp := &corpus{Config: c, Commands: []string{commandLine()}, Machine: machine(), Started: time.Now().UTC()}
	if appendTo {
		cp = &before
		cp.Commands = append(cp.Commands, commandLine())
	}
	r := &runner{bin: bin, dir: dir, hogs: c.Hogs, log: os.Stderr}
	save := func() error {
		cp.Ended = time.Now().UTC()
		b, err := json.MarshalIndent(cp, "", "  ")
		if err == nil {
			err = os.WriteFile(dataPath, append(b, '\n'), 0o644)
		}
		if err != nil {
			return err
		}
		return writePage(outPath, cp)
	}
	for round := 0; round < c.Rounds && ctx.Err() == nil; round++ {
		for _, name := range names {
			for _, cond := range conditions(c) {
				if ctx.Err() != nil {
					break
				}
				cp.Runs = append(cp.Runs, r.corpusRun(ctx, name, cond)...)
			}
		}
		if err := save(); err != nil {
			return err
		}
	}
	for i := 0; i < c.Main && ctx.Err() == nil; i++ {
		for _, h := range []int{0, c.Hogs} {
			if ctx.Err() == nil {
				cp.Main = append(cp.Main, r.mainRun(ctx, h, strings.Fields(c.MainArgs)))
			}
		}
		if err := save(); err != nil {
			return err
		}
	}
	return save()
}

// condition is one way the corpus runs a scenario: beside hogs or not,
// at real speed or in slow motion.
type condition struct {
	hogs int
	slow string // --slow-motion
}

// conditions are the corpus's four, alternating.
func conditions(c config) []condition {
	return []condition{{0, "1"}, {c.Hogs, "1"}, {0, c.Slow}, {c.Hogs, c.Slow}}
}

// corpusScenarios are the scenarios named, or every built-in and every
// file of bench/physics/.
func corpusScenarios(list string) ([]string, error) {
	if list != "" {
		return strings.Split(list, ","), nil
	}
	all, err := scenarios.Builtins()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, b := range all {
		names = append(names, b.Name)
	}
	files, err := filepath.Glob("bench/physics/*.yaml")
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no bench/physics/*.yaml: run from the repository's root")
	}
	return append(names, files...), nil
}

// commandLine is how this command was run, as the page shows it.
func commandLine() string {
	args := append([]string{"go run ./bench/verdict"}, os.Args[1:]...)
	return strings.Join(args, " ")
}

// logf writes a progress line.
func logf(w io.Writer, format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
