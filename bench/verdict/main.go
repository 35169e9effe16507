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
// time and the load average; and writes them (-data, JSON), a page of
// every run (-out), and the confusion table and the main job's figures as
// the generated file docs/measured/verdict.md (bench/internal/measured),
// with the date, the machine, the load and the commands.
//
//	go run ./bench/verdict                                   # the corpus and the main job
//	go build -o /tmp/hb ./cmd/herdbench && go run ./bench/verdict -herdbench /tmp/hb -append -rounds 0 -main 10
//	go run ./bench/verdict -rejudge DIR                      # the runs judged again, nothing run
//	go run ./bench/verdict -render                           # the pages again from -data
//
// -rejudge judges the runs -data holds again with this tree's verdict,
// from the results folders DIR keeps (the -keep they ran with): the
// simulator is deterministic per plan and seed (rejudge.go).
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
	"github.com/herdbench/herdbench/bench/internal/measured"
	"github.com/herdbench/herdbench/scenarios"
)

func main() {
	c, o := config{}, options{}
	flag.IntVar(&c.Rounds, "rounds", 1, "rounds of the corpus: each runs every scenario in every condition once")
	flag.IntVar(&c.Hogs, "hogs", 2, "CPU hogs (yes > /dev/null) beside the runs of the hog conditions")
	flag.StringVar(&c.Slow, "slow", "2", "the --slow-motion of the corpus's slow-motion conditions (a factor, or auto)")
	flag.IntVar(&c.Main, "main", 10, "runs of the main job (herdbench scenario outage.yaml) on the machine as it is, and as many beside the hogs")
	flag.StringVar(&c.Scenarios, "scenarios", "", "scenarios of the corpus, comma-separated (default: every built-in and bench/physics/*.yaml)")
	flag.StringVar(&c.MainArgs, "main-args", "", "more arguments for the main job, space-separated, to measure another way of running it (e.g. \"--cohorts together --slow-motion 8\")")
	flag.BoolVar(&o.appendTo, "append", false, "add the runs to those -data holds (another -main-args, more rounds, the main job) instead of starting afresh")
	flag.StringVar(&o.hb, "herdbench", "", "the herdbench binary (default: built from this tree into a temporary folder)")
	flag.StringVar(&o.keep, "keep", "", "keep the results folders in this folder (default: a temporary folder, removed at the end)")
	flag.StringVar(&o.data, "data", "docs/measured/verdict/runs.json", "where the measurements go (JSON), and -render and -rejudge read them")
	flag.StringVar(&o.out, "out", "docs/measured/verdict/runs.md", "the page of every run (Markdown)")
	flag.BoolVar(&o.render, "render", false, "only draw the pages again from -data; run nothing")
	flag.StringVar(&o.rejudge, "rejudge", "", "judge again, with this tree's verdict, the runs -data holds from the results folders this folder keeps (the -keep they ran with), and draw the pages; run nothing")
	o.rec = measured.Flag()
	flag.Parse()
	if err := run(c, o); err != nil {
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

// options are the command's other flags: where things go, and what to do.
type options struct {
	hb, keep, data, out, rejudge string
	render, appendTo             bool
	rec                          *measured.Recorder
}

func run(c config, o options) error {
	var before corpus
	if o.render || o.appendTo || o.rejudge != "" {
		b, err := os.ReadFile(o.data)
		if err == nil {
			err = json.Unmarshal(b, &before)
		}
		if err != nil {
			return fmt.Errorf("reading -data: %w", err)
		}
		if before.Command != "" && len(before.Commands) == 0 {
			before.Commands, before.Command = []string{before.Command}, ""
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch {
	case o.render:
		return writePages(o, &before)
	case o.rejudge != "":
		if err := rejudgeAll(ctx, &before, o.rejudge); err != nil {
			return err
		}
		before.Rejudged = append(before.Rejudged, rejudging{Command: commandLine(), At: time.Now().UTC().Truncate(time.Second)})
		return save(o, &before)
	}
	dir, bin, remove, err := cli.Workdir("herdbench-verdict-", o.hb)
	if err != nil {
		return err
	}
	defer remove()
	if o.keep != "" {
		dir = o.keep
	}
	names, err := corpusScenarios(c.Scenarios)
	if err != nil {
		return err
	}
	cp := &corpus{Config: c, Commands: []string{commandLine()}, Machine: machine(), Started: time.Now().UTC()}
	r := &runner{bin: bin, dir: dir, hogs: c.Hogs, log: os.Stderr}
	if o.appendTo {
		cp = &before
		cp.Commands = append(cp.Commands, commandLine())
		r.n = assignFolders(cp) // the new runs' folders numbered on
	}
	return measure(ctx, c, o, cp, r, names)
}

// measure runs the corpus's rounds, then the main job, saving after each
// round and each pair of main jobs.
func measure(ctx context.Context, c config, o options, cp *corpus, r *runner, names []string) error {
	for round := 0; round < c.Rounds && ctx.Err() == nil; round++ {
		for _, name := range names {
			for _, cond := range conditions(c) {
				if ctx.Err() != nil {
					break
				}
				cp.Runs = append(cp.Runs, r.corpusRun(ctx, name, cond)...)
			}
		}
		cp.Ended = time.Now().UTC()
		if err := save(o, cp); err != nil {
			return err
		}
	}
	began, done := time.Now(), 0
	for i := 0; i < c.Main && ctx.Err() == nil; i++ {
		for _, h := range []int{0, c.Hogs} {
			if ctx.Err() != nil {
				break
			}
			left := ""
			if done > 0 {
				each := time.Since(began) / time.Duration(done)
				left = fmt.Sprintf(", about %s left", (each * time.Duration(2*c.Main-done)).Round(time.Minute))
			}
			logf(r.log, "main job %d of %d, %d hogs beside it%s:", i+1, c.Main, h, left)
			cp.Main = append(cp.Main, r.mainRun(ctx, h, strings.Fields(c.MainArgs)))
			done++
		}
		cp.Ended = time.Now().UTC()
		if err := save(o, cp); err != nil {
			return err
		}
	}
	cp.Ended = time.Now().UTC()
	return save(o, cp)
}

// save writes cp to -data and draws the pages.
func save(o options, cp *corpus) error {
	b, err := json.MarshalIndent(cp, "", "  ")
	if err == nil {
		err = os.MkdirAll(filepath.Dir(o.data), 0o755)
	}
	if err == nil {
		err = os.WriteFile(o.data, append(b, '\n'), 0o644)
	}
	if err != nil {
		return err
	}
	return writePages(o, cp)
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
