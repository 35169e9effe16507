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
)

// Exit codes, documented in the README and in --help.
const (
	exitOK     = 0 // success
	exitFailed = 1 // the run failed (could not start, could not write results)
	exitUsage  = 2 // bad flags, or an invalid scenario: nothing ran
	// exitThresholds: the run completed, its results are written, and at
	// least one of the scenario's thresholds failed.
	exitThresholds = 3
	// exitSignal: interrupted (Ctrl-C or SIGTERM); the results written are
	// marked partial. Also a second interrupt's immediate exit.
	exitSignal = 130
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

func herdbenchVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "v0.1.0-dev"
}

func main() {
	ctx, release := interruptible(context.Background(), os.Stderr, os.Exit)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	release()
	os.Exit(code)
}

const usage = `herdbench: a load-test and chaos harness for retry storms.

Plain exponential backoff makes clients that failed together retry together:
a synchronized wave that knocks down the service that was recovering.
herdbench runs a swarm of clients with different retry strategies against a
fault-injecting target and shows the waves, side by side, measured.

Usage:
  herdbench scenario NAME|FILE [flags]   run a scenario and compare its strategies
  herdbench report DIR...                re-render a results folder's report, or overlay several
  herdbench validate FILE...             check scenario files without running them
  herdbench list                         list the built-in scenarios
  herdbench target [flags]               run the fault-injecting target on its own (game days)
  herdbench proxy --upstream URL [flags] put a chaos proxy in front of a real service
  herdbench version                      print the version

Start here:
  herdbench scenario outage              the stampede: 15 s, or a minute on fewer than 4 cores

Run 'herdbench COMMAND --help' for a command's flags.

Exit codes: 0 ok; 1 the run failed; 2 bad usage or an invalid scenario;
3 a threshold failed; 130 interrupted (results written, marked partial).
`

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "scenario", "run":
		return runScenario(ctx, args[1:], stdout, stderr)
	case "report":
		return runReport(args[1:], stdout, stderr)
	case "validate":
		return runValidate(args[1:], stdout, stderr)
	case "list":
		return runList(args[1:], stdout, stderr)
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
			case "scenario", "run", "report", "validate", "list", "target", "proxy", "version":
				return run(ctx, []string{args[1], "--help"}, stdout, stderr)
			}
		}
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "herdbench: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}
