package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/spf13/pflag"
)

// addOutputFlags adds the flags that choose what a finished run writes
// besides its results folder: the ones CI reads.
func addOutputFlags(fs *pflag.FlagSet, f *scenarioFlags) {
	fs.StringVar(&f.junit, "junit", "", "also write the thresholds as a JUnit XML report to this file, for CI systems: a test case per threshold per cohort, failures with the value measured")
	fs.BoolVar(&f.json, "json", false, "print summary.json on stdout (the tables and messages go to stderr); for a sweep, a JSON array of every point's summary")
	fs.BoolVar(&f.explain, "explain", false, "after the answer (the verdict, the comparison in brief, the sparklines, the results folder), print everything else: every table in full with the simulator's figures given this run's lateness (sim, late), the policies, what each figure means and what moved it, and the self-check with its advice")
	fs.BoolVar(&f.allowUntrustworthy, "allow-untrustworthy", false, fmt.Sprintf("a real run whose verdict is not trustworthy exits %d, and is a failed test case in --junit's report; with this flag it exits as if trustworthy (0, or 3 for a failed threshold) and the case is skipped", exitUntrustworthy))
}

// checkJUnitPath checks, before the run, that --junit's file can be
// written where it is named: its folder exists and it is not a folder.
func checkJUnitPath(path string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a folder; name the file to write, e.g. %s", path, filepath.Join(path, "herdbench-junit.xml"))
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("the folder %s of %s: %w", dir, path, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	return nil
}

// writeOutputs writes what --junit and --json ask for, once the run's
// thresholds are checked; stdout gets the JSON.
func writeOutputs(f *scenarioFlags, e *ending, stdout io.Writer) error {
	summaries := e.summaries()
	var errs []error
	if f.junit != "" {
		data, err := encodeJUnit(summaries, e.label, f.allowUntrustworthy)
		if err == nil {
			err = folder.WriteFileAtomic(f.junit, data)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("--junit %s: %w", f.junit, err))
		}
	}
	if f.json {
		var out bytes.Buffer
		if e.sweep {
			out.WriteString("[\n")
		}
		for i, s := range summaries {
			data, err := folder.EncodeSummary(s)
			if err != nil {
				errs = append(errs, fmt.Errorf("--json: %w", err))
				break
			}
			if i > 0 {
				out.WriteString(",\n")
			}
			out.Write(bytes.TrimRight(data, "\n"))
		}
		if e.sweep {
			out.WriteString("\n]")
		}
		out.WriteByte('\n')
		if _, err := stdout.Write(out.Bytes()); err != nil {
			errs = append(errs, fmt.Errorf("--json: %w", err))
		}
	}
	return errors.Join(errs...)
}

// printScenario is --print: the scenario's YAML as written (a built-in's,
// or a file's) on stdout, so a user can copy and edit it. Flags that
// would change the run are refused: --print shows the file, not a run.
func printScenario(fs *pflag.FlagSet, stdout, stderr io.Writer) int {
	var others []string
	fs.Visit(func(fl *pflag.Flag) {
		if fl.Name != "print" {
			others = append(others, "--"+fl.Name)
		}
	})
	if len(others) > 0 {
		fmt.Fprintf(stderr, "herdbench scenario: --print prints the scenario's file as written and runs nothing; %s would change a run: drop them\n", strings.Join(others, ", "))
		return exitUsage
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "herdbench scenario --print: name one scenario (a built-in name or a file), got %d arguments\nRun 'herdbench list' for the built-in scenarios.\n", fs.NArg())
		return exitUsage
	}
	op, err := scenarios.Open(fs.Arg(0), scenarios.Overrides{})
	if op == nil { // not found: a file with problems is printed as written
		fmt.Fprintln(stderr, "herdbench scenario:", err)
		return exitUsage
	}
	if _, err := stdout.Write(op.Source); err != nil {
		fmt.Fprintln(stderr, "herdbench scenario --print:", err)
		return exitFailed
	}
	return exitOK
}

// builtinNote says, when a scenario named like a file (outage.yaml) was
// found only as a built-in (op, as opened), that the built-in runs, and how
// to get a file of it to edit; "" otherwise.
func builtinNote(arg string, op *scenarios.Opened) string {
	if !strings.HasSuffix(arg, ".yaml") && !strings.HasSuffix(arg, ".yml") || op == nil || !op.Builtin {
		return ""
	}
	b := strings.TrimSuffix(filepath.Base(arg), filepath.Ext(arg))
	return fmt.Sprintf("there is no file %s here, so the built-in scenario %s runs (to edit it: herdbench scenario %s --print > %s)", arg, b, b, arg)
}
