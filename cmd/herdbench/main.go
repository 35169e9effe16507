// Command herdbench is a load-test and chaos harness for retry storms: it
// runs scenarios that compare client retry strategies against a
// fault-injecting target and measures the synchronized retry waves.
//
// The command is thin: it parses flags, calls the packages that do the work,
// draws progress, and maps errors to exit codes.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"syscall"

	"github.com/herdbench/herdbench/scenarios"
)

// Exit codes, documented in the README and in --help.
const (
	exitOK = 0 // success
	// exitFailed: the run failed (could not start, could not write
	// results), or herdbench itself did (an internal error: a bug).
	exitFailed = 1
	// exitUsage: bad flags, an invalid scenario, or a run refused before
	// it started (a remote target, too little memory or open files, an
	// --out that cannot be written or is too full): nothing ran. Go's
	// runtime exits with 2 when it crashes: crashNotUsage makes such a
	// crash end with SIGABRT instead, and a recovered panic exits 1.
	exitUsage = 2
	// exitThresholds: the run completed, its results are written, and at
	// least one of the scenario's thresholds failed.
	exitThresholds = 3
	// exitUntrustworthy: the run completed, its results are written, and
	// its verdict is not trustworthy: a headline figure left its band of
	// the simulator's, or could have (results.Verdict). It beats
	// exitThresholds: a threshold read on such figures says nothing.
	// --allow-untrustworthy opts out. (4 is a shard's late start,
	// exitLate.)
	exitUntrustworthy = 5
	// exitSignal: interrupted (Ctrl-C or SIGTERM); the results written are
	// marked partial. Also a second interrupt's immediate exit.
	exitSignal = 130
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

// herdbenchVersion is the version this binary was built as: -ldflags'
// main.version, else the module's version from the build info (what `go
// install github.com/herdbench/herdbench/cmd/herdbench@v1.2.3` records),
// else a development build named by its commit when Go recorded one.
func herdbenchVersion() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return devVersion
	}
	return versionOf(bi)
}

const devVersion = "v0.1.0-dev"

func versionOf(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return devVersion
	}
	v := devVersion + "+" + rev[:min(12, len(rev))]
	if dirty {
		v += ".dirty"
	}
	return v
}

func main() {
	crashNotUsage()
	ctx, release := interruptible(context.Background(), os.Args[1:], os.Stderr, os.Exit)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	release()
	os.Exit(code)
}

// crashNotUsage makes a crash of the Go runtime itself (its "fatal error:
// out of memory" above all, which no recover catches) end the process
// with SIGABRT rather than with exit code 2, which herdbench promises for
// bad input only: the shell then reports 134. The runtime prints every
// goroutine's stack first. No core file is written (its soft limit is set
// to 0: a core of a run that ran out of memory would be as large), unless
// GOTRACEBACK is set, which then decides both.
func crashNotUsage() {
	if os.Getenv("GOTRACEBACK") != "" {
		return
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_CORE, &lim) == nil && lim.Cur != 0 {
		lim.Cur = 0
		_ = syscall.Setrlimit(syscall.RLIMIT_CORE, &lim)
	}
	debug.SetTraceback("crash")
}

const usage = `herdbench: a load-test and chaos harness for retry storms.

Plain exponential backoff makes clients that failed together retry together:
a synchronized wave that knocks down the service that was recovering.
herdbench runs a swarm of clients with different retry strategies against a
fault-injecting target and shows the waves, side by side, measured.

Usage:
  herdbench scenario NAME|FILE [flags]   run a scenario and compare its strategies
  herdbench cliff NAME|FILE --vary PATH=LO..HI
                                         find where each strategy stops recovering, in virtual time
  herdbench report DIR...                re-render a results folder's report, or overlay several
  herdbench validate FILE...             check scenario files without running them
  herdbench list                         list the built-in scenarios
  herdbench target [flags]               run the fault-injecting target on its own (game days)
  herdbench proxy --upstream URL [flags] put a chaos proxy in front of a real service
  herdbench merge DIR...                 combine the results of a run's shards (--shard K/N)
  herdbench k8s FILE --shards N --target URL
                                         print a Kubernetes Job that runs the scenario's shards
  herdbench completion bash|zsh|fish     print a shell completion script
  herdbench version                      print the version

Start here:
  herdbench scenario outage              the stampede: 15 s, or a minute on fewer than 4 cores

Run 'herdbench COMMAND --help' for a command's flags.

Exit codes: 0 ok; 1 the run failed, or an internal error (a bug, reported
on stderr); 2 bad usage, an invalid scenario or a refused run (nothing ran);
3 a threshold failed; 4 too late for --start-at (nothing sent); 130
interrupted (results written, marked partial). Killed by SIGABRT (134 in a
shell): the Go runtime itself failed, e.g. out of memory.
`

// run is main without the process: it returns the exit code. A panic
// becomes an internal error (exit 1) with its report on stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if v := recover(); v != nil {
			code = internalError(stderr, v, debug.Stack(), "")
		}
	}()
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "scenario", "run":
		return runScenario(ctx, args[1:], stdout, stderr)
	case "report":
		return runReport(ctx, args[1:], stdout, stderr)
	case "cliff":
		return runCliff(ctx, args[1:], stdout, stderr)
	case "validate":
		return runValidate(args[1:], stdout, stderr)
	case "list":
		return runList(args[1:], stdout, stderr)
	case "merge":
		return runMerge(ctx, args[1:], stdout, stderr)
	case "k8s":
		return runK8s(args[1:], stdout, stderr)
	case "completion":
		return runCompletion(args[1:], stdout, stderr)
	case "target":
		return runTarget(ctx, args[1:], stdout, stderr)
	case "proxy":
		return runProxy(ctx, args[1:], stdout, stderr)
	case "version", "--version", "-v":
		if len(args) > 1 && args[0] == "version" {
			if args[1] == "--help" || args[1] == "-h" {
				fmt.Fprint(stdout, "Usage: herdbench version\n\nPrints herdbench's version.\n")
				return exitOK
			}
			fmt.Fprintf(stderr, "herdbench version: takes no arguments, got %q\n", args[1])
			return exitUsage
		}
		fmt.Fprintln(stdout, "herdbench", herdbenchVersion())
		return exitOK
	case "help", "--help", "-h":
		if len(args) > 1 && args[0] == "help" {
			// herdbench help COMMAND is COMMAND --help.
			switch args[1] {
			case "scenario", "run", "cliff", "report", "validate", "list", "target", "proxy", "merge", "k8s", "completion", "version":
				return run(ctx, []string{args[1], "--help"}, stdout, stderr)
			case "help", "--help", "-h":
			default:
				hint := ""
				if m, near := scenarios.Closest(args[1], commandNames()); near {
					hint = fmt.Sprintf(" (did you mean %q?)", m)
				}
				fmt.Fprintf(stderr, "herdbench help: no command %q%s; run 'herdbench --help' for the commands\n", args[1], hint)
				return exitUsage
			}
		}
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	if m, near := scenarios.Closest(args[0], commandNames()); near {
		// A typo: name the command meant rather than bury it under the usage.
		fmt.Fprintf(stderr, "herdbench: unknown command %q (did you mean %q?); run 'herdbench --help' for the commands\n", args[0], m)
		return exitUsage
	}
	fmt.Fprintf(stderr, "herdbench: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}

// internalError reports a panic, a bug in herdbench, and returns exit code
// 1: what happened, the stack, where the results recorded so far are (dir,
// if any were written) and how to report it.
func internalError(stderr io.Writer, v any, stack []byte, dir string) int {
	fmt.Fprintf(stderr, "\nherdbench: internal error: %v\n\nThis is a bug in herdbench %s, not a problem with your scenario or target.\n", v, herdbenchVersion())
	if dir != "" {
		fmt.Fprintf(stderr, "The results recorded until then are in %s (marked partial).\n", dir)
	}
	fmt.Fprintf(stderr, "Please report it with the command you ran, the scenario file (or the results folder's scenario.yaml) and this message:\n\n%s\n", stack)
	return exitFailed
}
