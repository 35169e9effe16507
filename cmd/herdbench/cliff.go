package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/herdbench/herdbench/cliff"
	"github.com/herdbench/herdbench/cliff/drive"
	"github.com/herdbench/herdbench/internal/slowmo"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/spf13/pflag"
)

const cliffHelp = `Usage: herdbench cliff NAME|FILE --vary PATH=LO..HI [--vary PATH=LO..HI] [flags]
       herdbench cliff NAME|FILE --no-return STRATEGY [flags]

Finds, in virtual time, how much a fleet can take: for each strategy, the
value of a field (a fault's length, the arrival rate, the client count, a
budget's share: any field --set names) beyond which it stops recovering
within the run (its recovery_s is null), with a 95% confidence interval
over seeds. It bisects the field's grid seed by seed instead of running
every value (a fraction of a --set sweep's runs), adds seeds until the
interval is narrow, and with a second --vary traces the boundary over that
field too. Seed k is repetition k's, as --runs draws them from the root
seed, so a --set sweep with --runs repeats any run it made.

Varying a budget's field is budget sizing: it also reports the success of
the requests that ended during the fault at the most permissive setting
at which every seed recovered, and at the range's ends.

--no-return STRATEGY finds the point of no return of that strategy's run
(with --seed and --set as given; it must collapse): the earliest instant
after which collapse is 95% certain, by continuing the run's state at
instants during and after the fault many times, with fresh randomness and
the trigger removed.

--confirm runs each one-field boundary on sockets, just inside and just
outside it, each with its verdict (slow motion allowed).

The results folder (<out>/<scenario>-<time>-cliff) holds cliff.json,
probes.csv (every run), scenario.yaml and report.html, whose phase map draws
every cell probed: recovered, collapsed or uncertain. Ctrl-C stops at once
and writes what was found, marked partial.

Examples:
  herdbench cliff metastable --vary 'chaos[blip].for=0.5s..14s'
  herdbench cliff metastable --vary 'chaos[blip].for=0.5s..14s' --vary workload.rate=60..160 --strategies naive,full-jitter
  herdbench cliff metastable --strategies naive --set 'strategies[naive].budget.kind=envoy' \
      --set 'strategies[naive].budget.scope=cohort' --vary 'strategies[naive].budget.budget_percent=1..100'
  herdbench cliff metastable --no-return naive --seed 7
  herdbench cliff outage --vary 'chaos[crash].for=0.5s..8s' --strategies no-jitter --confirm

Flags:
`

type cliffFlags struct {
	vary, set, strategies []string
	seed                  uint64
	seeds, maxSeeds       int
	lines, workers        int
	width                 string
	noReturn              string
	rep, continuations    int
	instants              string
	confirm               bool
	slow                  int
	out                   string
	json                  bool
	noPNG                 bool
}

func parseCliff(args []string, stdout, stderr io.Writer) (*cliffFlags, *pflag.FlagSet, int, bool) {
	f := &cliffFlags{}
	fs := pflag.NewFlagSet("cliff", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringArrayVar(&f.vary, "vary", nil, "a field to search over and its range, PATH=LO..HI (or LO..HI/STEP): durations, counts or numbers; once, or twice to trace the boundary over a second field")
	fs.StringArrayVar(&f.set, "set", nil, "a field's value for every run, PATH=VALUE (as 'herdbench scenario --set' with one value): the trigger for budget sizing, a budget to add")
	fs.StringSliceVar(&f.strategies, "strategies", nil, "search only these strategies, comma-separated (default: every strategy; with a strategy's field in --vary, that one)")
	fs.Uint64Var(&f.seed, "seed", 0, "the root seed (default: the scenario's, else a fresh one); seed k of the search is repetition k's")
	fs.IntVar(&f.seeds, "seeds", cliff.DefaultSeeds, "seeds every boundary starts with")
	fs.IntVar(&f.maxSeeds, "max-seeds", cliff.DefaultMaxSeeds, "the most seeds a boundary gets while its 95% interval is wider than --width")
	fs.StringVar(&f.width, "width", "", "the widest 95% interval wanted, in the first field's unit, e.g. 0.5s (default: 5% of its range, at least 2 steps)")
	fs.IntVar(&f.lines, "lines", cliff.DefaultLines, "with two fields, the most values of the second the boundary is traced at")
	fs.StringVar(&f.noReturn, "no-return", "", "find the point of no return of this strategy's run (it must collapse)")
	fs.IntVar(&f.rep, "rep", 0, "with --no-return, the run's repetition: its seed is repetition k's of the root seed (0: the root seed itself)")
	fs.IntVar(&f.continuations, "continuations", cliff.DefaultContinuations, "with --no-return, continuations from each instant probed (60 is the fewest that can make collapse 95% certain)")
	fs.StringVar(&f.instants, "instants", "", "with --no-return, the instants to look at, FROM..TO/STEP (default: from the first fault's start to halfway between the last one's end and the run's end)")
	fs.BoolVar(&f.confirm, "confirm", false, "run each one-field boundary on sockets, just inside and just outside it, each with its verdict")
	fs.IntVar(&f.slow, "slow-motion", 1, fmt.Sprintf("with --confirm, live the real runs K times slower on the wall clock (1 to %d), as 'herdbench scenario --slow-motion'", slowmo.Max))
	fs.StringVarP(&f.out, "out", "o", "runs", "folder to write the results folder into")
	fs.IntVar(&f.workers, "workers", 0, "simulated runs at once (default: one per core)")
	fs.BoolVar(&f.json, "json", false, "print cliff.json on stdout instead of the table")
	fs.BoolVar(&f.noPNG, "no-png", false, "write report.html only, no PNG copies of the charts")
	fs.SortFlags = false
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), cliffHelp)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), "\nExit codes: 0 done; 1 a run or the results folder failed; 2 bad usage or an invalid scenario (nothing ran); 130 interrupted (what was found is written, marked partial).\n")
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return nil, fs, code, true
	}
	return f, fs, exitOK, false
}

// cliffJob is what the flags ask for, checked: the scenario opened, the
// search and the point of no return set up.
type cliffJob struct {
	f      *cliffFlags
	op     *scenarios.Opened
	fixed  []scenarios.Axis
	search *drive.Search
	nr     *drive.NoReturn
}

// planCliff reads the flags and the scenario; a problem is the user's,
// said with what to do.
func planCliff(f *cliffFlags, fs *pflag.FlagSet) (*cliffJob, error) {
	if fs.NArg() != 1 {
		return nil, errors.New("name one scenario (a built-in by name, or a file), e.g. herdbench cliff metastable --vary 'chaos[blip].for=1s..14s'")
	}
	if len(f.vary) == 0 && f.noReturn == "" {
		return nil, errors.New("give --vary PATH=LO..HI (the cliff search) or --no-return STRATEGY (the point of no return), or both")
	}
	if len(f.vary) > 2 {
		return nil, fmt.Errorf("--vary is given %d times: the search varies one field, or traces over two", len(f.vary))
	}
	if f.slow < 1 || f.slow > slowmo.Max {
		return nil, fmt.Errorf("--slow-motion %d: live the scenario from 1 (real speed) to %d times slower", f.slow, slowmo.Max)
	}
	j := &cliffJob{f: f}
	for _, s := range f.set {
		a, err := scenarios.ParseSet(s)
		if err != nil {
			return nil, fmt.Errorf("--set %w", err)
		}
		if len(a.Values) != 1 {
			return nil, fmt.Errorf("--set %s: give one value; the field the search varies goes in --vary", s)
		}
		j.fixed = append(j.fixed, a)
	}
	o := scenarios.Overrides{Set: j.fixed}
	if fs.Changed("seed") {
		o.Seed = &f.seed
	}
	op, err := scenarios.Open(fs.Arg(0), o)
	if err != nil {
		return nil, err
	}
	j.op = op
	if len(f.vary) > 0 {
		if j.search, err = j.planSearch(); err != nil {
			return nil, err
		}
	}
	if f.noReturn != "" {
		if j.nr, err = j.planNoReturn(); err != nil {
			return nil, err
		}
	}
	return j, nil
}

func (j *cliffJob) planSearch() (*drive.Search, error) {
	f := j.f
	sp := cliff.Spec{Seeds: f.seeds, MaxSeeds: f.maxSeeds, Lines: f.lines}
	if f.seeds < 6 || f.maxSeeds < f.seeds || f.maxSeeds > 1024 {
		return nil, fmt.Errorf("--seeds %d --max-seeds %d: a 95%% interval needs at least 6 seeds, and --max-seeds at least --seeds, at most 1024", f.seeds, f.maxSeeds)
	}
	x, err := cliff.ParseAxis(f.vary[0])
	if err != nil {
		return nil, err
	}
	sp.X = x
	if len(f.vary) == 2 {
		y, err := cliff.ParseAxis(f.vary[1])
		if err != nil {
			return nil, err
		}
		sp.Y = &y
	}
	if f.width != "" {
		if sp.Width, err = widthOf(f.width, x); err != nil {
			return nil, err
		}
	}
	sp.Strategies = f.strategies
	if len(sp.Strategies) == 0 {
		sp.Strategies = searchedStrategies(j.op.Plans[0], x.Path)
	}
	sp.Cost = strings.Contains(x.Path, ".budget.")
	sr := &drive.Search{Scenario: j.op, Fixed: j.fixed, Spec: sp, Workers: f.workers}
	if err := sr.Check(); err != nil {
		return nil, err
	}
	if f.confirm && sp.Y != nil {
		return nil, errors.New("--confirm runs a one-field boundary on sockets; with two --vary there is a curve, not two sides: drop one")
	}
	return sr, nil
}

// searchedStrategies are the strategies a search covers by default: the
// one a strategy's field names, else every one.
func searchedStrategies(p *scenarios.Plan, path string) []string {
	for i := range p.Strategies {
		name := p.Strategies[i].Name
		if strings.HasPrefix(path, "strategies["+name+"].") {
			return []string{name}
		}
		if strings.HasPrefix(path, "strategies["+strconv.Itoa(i)+"].") {
			return []string{name}
		}
	}
	var out []string
	for i := range p.Strategies {
		out = append(out, p.Strategies[i].Name)
	}
	return out
}

// widthOf reads --width in x's unit.
func widthOf(s string, x cliff.Axis) (float64, error) {
	if x.Unit == cliff.Duration {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return 0, fmt.Errorf("--width %s: give a duration more than 0, as %s's range is, e.g. --width 0.5s", s, x.Path)
		}
		return d.Seconds(), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) {
		return 0, fmt.Errorf("--width %s: give a number more than 0, in %s's unit, e.g. --width %s", s, x.Path, x.Format(4*x.Step))
	}
	return v, nil
}

func (j *cliffJob) planNoReturn() (*drive.NoReturn, error) {
	f := j.f
	if f.continuations < 10 || f.continuations > 10_000 {
		return nil, fmt.Errorf("--continuations %d: give 10 to 10000 (60 is the fewest that can make collapse 95%% certain)", f.continuations)
	}
	if f.rep < 0 {
		return nil, fmt.Errorf("--rep %d: a repetition counts from 0", f.rep)
	}
	p, err := drive.Compile(j.op, j.fixed)
	if err != nil {
		return nil, err
	}
	nr := &drive.NoReturn{Plan: p, Strategy: f.noReturn, Rep: f.rep, Workers: f.workers, Spec: cliff.NoReturnSpec{Runs: f.continuations}}
	if f.instants != "" {
		a, err := cliff.ParseAxis("--instants=" + f.instants)
		if err != nil || a.Unit != cliff.Duration {
			return nil, fmt.Errorf("--instants %s: write FROM..TO or FROM..TO/STEP in durations, e.g. 5s..15s/100ms", f.instants)
		}
		for i := range a.Len() {
			nr.Spec.Instants = append(nr.Spec.Instants, time.Duration(a.Value(i)*float64(time.Second)))
		}
		if last := nr.Spec.Instants[len(nr.Spec.Instants)-1]; last >= p.Duration {
			return nil, fmt.Errorf("--instants %s: the run ends at %s; look at instants before it", f.instants, p.Duration)
		}
	} else {
		nr.Spec.Instants = drive.Instants(p)
	}
	if _, err := nr.Check(); err != nil {
		return nil, err
	}
	return nr, nil
}

// runCliff runs the cliff command: plan, search, point of no return,
// confirmation, then the results folder and the terminal.
func runCliff(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	var dir string
	defer func() {
		if v := recover(); v != nil {
			code = internalError(stderr, v, debug.Stack(), dir)
		}
	}()
	f, fs, code, done := parseCliff(args, stdout, stderr)
	if done {
		return code
	}
	j, err := planCliff(f, fs)
	if err != nil {
		fmt.Fprintln(stderr, "herdbench cliff:", err)
		return exitUsage
	}
	doc, werr := j.run(ctx, stderr)
	dir, err = writeCliff(doc, j, f)
	if err != nil {
		fmt.Fprintln(stderr, "herdbench cliff:", err)
		return exitFailed
	}
	if f.json {
		b, _ := doc.Document.Encode()
		_, _ = stdout.Write(b)
	} else if err := renderCliffTerminal(stdout, doc.Document); err != nil {
		return exitFailed
	}
	fmt.Fprintln(stdout, "results:", dir)
	fmt.Fprintln(stdout, "report:", dir+"/report.html")
	switch {
	case ctx.Err() != nil:
		return exitSignal
	case werr != nil:
		fmt.Fprintln(stderr, "herdbench cliff:", werr)
		return exitFailed
	}
	return exitOK
}
