package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/spoken"
	"github.com/herdbench/herdbench/proxy"
	"github.com/herdbench/herdbench/recording"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/spf13/pflag"
)

func runList(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("list", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: herdbench list

Lists the scenarios built into herdbench, each name with its description
(wrapped on a terminal, one line each into a pipe). Run one by name:
  herdbench scenario outage
Write your own by copying one, edit it and check it:
  herdbench scenario outage --print > my.yaml
  herdbench validate my.yaml
Every run also saves the scenario as run, defaults filled in, as
scenario.yaml in its results folder.
`)
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "herdbench list: takes no arguments, got %q; to check a scenario file use 'herdbench validate FILE'\n", fs.Arg(0))
		return exitUsage
	}
	bs, err := scenarios.Builtins()
	if err != nil {
		fmt.Fprintln(stderr, "herdbench:", err)
		return exitFailed
	}
	width := 0
	for _, b := range bs {
		width = max(width, len(b.Name))
	}
	// On a terminal the descriptions wrap under themselves; into a pipe
	// each scenario keeps one line, its name first, for scripts
	// (herdbench list | awk '{print $1}').
	wrap := 1 << 20
	if isTerminal(stdout) {
		wrap = listColumns - width - 2
	}
	for _, b := range bs {
		lines := wrapWords(b.Description, wrap)
		fmt.Fprintf(stdout, "%-*s  %s\n", width, b.Name, lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(stdout, "%*s  %s\n", width, "", l)
		}
	}
	return exitOK
}

// listColumns is the width herdbench list holds its lines to, as --help's.
const listColumns = 80

// wrapWords breaks text into lines of at most width columns at spaces (a
// word longer than width gets a line of its own).
func wrapWords(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	return append(lines, line)
}

func runValidate(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("validate", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: herdbench validate FILE...

Checks scenario files (or built-in names) without running anything: YAML
syntax, unknown fields, types, and what the values mean. Every problem is
listed at once, each with its line and field path. A scenario with a sweep
is checked at every point, and a problem only some points have names them.

A scenario without strategies is valid for herdbench target and proxy
alone (their chaos plan, and thresholds on the traffic they record).

Examples:
  herdbench validate my.yaml
  herdbench validate *.yaml              # several files: each one's problems
  herdbench validate runs/outage-20261201T200000Z/scenario.yaml

Exit code 0 when every file is valid, 2 otherwise.
`)
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "herdbench validate: name at least one scenario file")
		fs.Usage()
		return exitUsage
	}
	code := exitOK
	for _, arg := range fs.Args() {
		op, err := scenarios.Open(arg, scenarios.Overrides{})
		if err != nil {
			if line, ok := validServerOnly(arg); ok {
				fmt.Fprintln(stdout, line)
				continue
			}
			if errors.Is(err, scenarios.ErrNotFound) {
				fmt.Fprint(stderr, "herdbench validate: ")
			}
			fmt.Fprintln(stderr, err)
			code = exitUsage
			continue
		}
		plans := op.Plans
		p := plans[0]
		faults := 0
		if p.Chaos != nil {
			faults = len(p.Chaos.Faults())
		}
		sweep := ""
		if len(p.Sweep) > 0 {
			sweep = fmt.Sprintf(", a sweep of %d points, each checked", len(plans))
		}
		fmt.Fprintf(stdout, "%s: ok: %s, %s, %s, %s%s\n", arg, counted(len(p.Strategies), "strategy", "strategies"), counted(faults, "fault", "faults"), p.Duration, workloadSize(p), sweep)
	}
	return code
}

// workloadSize says what load a plan's workload puts on each cohort, with
// the defaults filled in: "closed workload of 100 clients", "open workload
// of 200 arrivals/s"; its kind alone when a sweep varies the size.
func workloadSize(p *scenarios.Plan) string {
	w := p.Workload
	for _, a := range p.Sweep {
		if a.Path == "workload.clients" || a.Path == "workload.rate" {
			return w.Kind.String() + " workload"
		}
	}
	if w.Kind == clients.Open {
		return fmt.Sprintf("%s workload of %g arrivals/s", w.Kind, w.Rate)
	}
	return fmt.Sprintf("%s workload of %s", w.Kind, counted(w.Clients, "client", "clients"))
}

// validServerOnly reports whether the scenario arg, which the swarm
// refused, has no strategies and is a valid scenario for herdbench target
// or proxy (a chaos plan and thresholds for their recording), and says so.
func validServerOnly(arg string) (string, bool) {
	op, err := scenarios.Open(arg, scenarios.Overrides{Server: true})
	if err != nil || len(op.File.Strategies) > 0 {
		return "", false
	}
	p := op.Plans[0]
	faults := 0
	if p.Chaos != nil {
		faults = len(p.Chaos.Faults())
	}
	servers := "herdbench target and proxy"
	if err := proxy.CheckPlan(p.Chaos); err != nil {
		servers = "herdbench target (not proxy: " + err.Error() + ")"
	}
	msg := fmt.Sprintf("%s: ok for %s: %s, %s, %s (no strategies: herdbench scenario needs at least one)", arg, servers, counted(faults, "fault", "faults"), counted(len(p.Thresholds), "threshold", "thresholds"), p.Duration)
	for _, th := range p.Thresholds {
		// What a recording cannot judge, as the servers warn of it.
		if why := recording.Unmeasurable(th.Metric, false); why != "" {
			msg += fmt.Sprintf("\n  note: threshold %q cannot judge a recording: %s", th.Expr, why)
		}
	}
	return msg, true
}

// parseFlags parses args; done is true when the command should return code
// at once (help asked for, or bad flags).
// Help goes to stdout (it was asked for); errors go to the flag set's
// output (stderr) with a pointer to --help.
func parseFlags(fs *pflag.FlagSet, args []string, stdout io.Writer) (code int, done bool) {
	if c, ok := stdout.(*flagCapture); ok {
		c.fs = fs // asked for its flags (completion.go): do nothing
		return exitOK, true
	}
	stderr := fs.Output()
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" {
			fs.SetOutput(stdout)
		}
	}
	err := fs.Parse(args)
	if errors.Is(err, pflag.ErrHelp) {
		return exitOK, true
	}
	if err != nil {
		fmt.Fprintf(stderr, "herdbench %s: %v\nRun 'herdbench %s --help' for its flags.\n", fs.Name(), err, fs.Name())
		return exitUsage, true
	}
	return 0, false
}

// counted writes n and the noun, singular for one: "1 strategy", "2 faults".
func counted(n int, one, many string) string { return spoken.Count(n, one, many) }
