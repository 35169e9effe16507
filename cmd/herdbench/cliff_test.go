package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/cliff"
)

// TestCliffUsage: what herdbench cliff refuses before any run, each with
// exit 2 and a message that says what to do.
func TestCliffUsage(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"cliff"}, "name one scenario"},
		{[]string{"cliff", "metastable"}, "give --vary"},
		{[]string{"cliff", "metastable", "--vary", "chaos[blip].for=1s"}, "LO..HI"},
		{[]string{"cliff", "metastable", "--vary", "chaos[blip].for=3s..1s"}, "must go up"},
		{[]string{"cliff", "metastable", "--vary", "a=1..2", "--vary", "b=1..2", "--vary", "c=1..2"}, "3 times"},
		{[]string{"cliff", "metastable", "--vary", "chaos[blip].for=1s..40s"}, "chaos[blip].for=40s"},
		{[]string{"cliff", "metastable", "--vary", "chaos[blip].for=1s..9s", "--strategies", "nope"}, `no strategy "nope"`},
		{[]string{"cliff", "metastable", "--vary", "chaos[blip].for=1s..9s", "--set", "workload.rate=50,60"}, "give one value"},
		{[]string{"cliff", "metastable", "--vary", "chaos[blip].for=1s..9s", "--vary", "workload.rate=50..150", "--confirm"}, "--confirm runs a one-field boundary"},
		{[]string{"cliff", "metastable", "--vary", "chaos[blip].for=1s..9s", "--seeds", "3"}, "at least 6 seeds"},
		{[]string{"cliff", "metastable", "--vary", "chaos[blip].for=1s..9s", "--width", "fast"}, "--width fast"},
		{[]string{"cliff", "no-such-scenario", "--vary", "x=1..2"}, "no-such-scenario"},
		{[]string{"cliff", "metastable", "--no-return", "naive", "--instants", "5s..40s"}, "the run ends at"},
		{[]string{"cliff", "metastable", "--no-return", "grpc"}, "recovers"},
		{[]string{"cliff", "metastable", "--no-return", "nope"}, `no strategy "nope"`},
	}
	for _, c := range cases {
		code, _, errOut := runCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// TestCliffWritesItsFolder: a small search prints each strategy's
// boundary and writes cliff.json (which --json prints), probes.csv,
// scenario.yaml and the report with its phase map.
func TestCliffWritesItsFolder(t *testing.T) {
	out := t.TempDir()
	args := []string{"cliff", "metastable", "--vary", "chaos[blip].for=1s..7s/1s", "--strategies", "naive,grpc", "--seeds", "6", "--max-seeds", "6", "--seed", "7", "-o", out}
	code, stdout, stderr := runCLI(t, args...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"naive", "grpc", "none: recovers", "simulated runs", "results: ", "report: "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the output lacks %q:\n%s", want, stdout)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "metastable-*-cliff"))
	if len(dirs) != 1 {
		t.Fatalf("folders %v", dirs)
	}
	for _, f := range []string{"cliff.json", "probes.csv", "scenario.yaml", "report.html", "phase_map.png"} {
		if _, err := os.Stat(filepath.Join(dirs[0], f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	data, _ := os.ReadFile(filepath.Join(dirs[0], "cliff.json"))
	doc, err := cliff.Decode(data)
	if err != nil || doc.Search == nil || !doc.Search.Done || doc.Seed != 7 || doc.Partial {
		t.Fatalf("cliff.json: %v %+v", err, doc)
	}
	if l := doc.Search.Strategies[0].Lines[0]; !l.Found || l.Median < 2 || l.Median > 6 {
		t.Errorf("naive's boundary %+v", l)
	}
	page, _ := os.ReadFile(filepath.Join(dirs[0], "report.html"))
	if !bytes.Contains(page, []byte(`data-phasemap="phase_map"`)) || !bytes.Contains(page, []byte("herdbench-phasemap")) {
		t.Error("the report has no phase map")
	}
	code, stdout, _ = runCLI(t, append(args, "--json")...)
	js, _, _ := strings.Cut(stdout, "\nresults: ")
	if code != exitOK {
		t.Fatalf("--json: exit %d", code)
	}
	if d, err := cliff.Decode([]byte(js)); err != nil || d.Search.Runs != doc.Search.Runs {
		t.Errorf("--json: %v", err)
	}
}

// TestCliffInterrupted: an interrupt before the first round ends writes
// what was found, marked partial, and exits 130.
func TestCliffInterrupted(t *testing.T) {
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"cliff", "metastable", "--vary", "chaos[blip].for=1s..7s", "--strategies", "naive", "-o", out, "--no-png"}, &stdout, &stderr)
	if code != exitSignal {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "metastable-*-cliff"))
	if len(dirs) != 1 {
		t.Fatalf("folders %v", dirs)
	}
	data, _ := os.ReadFile(filepath.Join(dirs[0], "cliff.json"))
	doc, err := cliff.Decode(data)
	if err != nil || !doc.Partial || doc.Search.Done {
		t.Fatalf("cliff.json: %v, partial %v", err, doc != nil && doc.Partial)
	}
	if !strings.Contains(stdout.String(), "interrupted") {
		t.Errorf("the output does not say it was interrupted:\n%s", stdout.String())
	}
}

// TestCliffNoReturn: --no-return writes the point of no return of a
// collapsing run into cliff.json, the table and the report.
func TestCliffNoReturn(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "cliff", "metastable", "--no-return", "naive", "--seed", "7", "--instants", "8s..12s/1s", "--continuations", "10", "-o", out)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "point of no return of naive's run (seed 7") {
		t.Errorf("the output:\n%s", stdout)
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "metastable-*-cliff"))
	if len(dirs) != 1 {
		t.Fatalf("folders %v", dirs)
	}
	data, _ := os.ReadFile(filepath.Join(dirs[0], "cliff.json"))
	doc, err := cliff.Decode(data)
	if err != nil || doc.NoReturn == nil || len(doc.NoReturn.Points) < 2 || doc.NoReturn.Continuations != 10 || doc.Search != nil {
		t.Fatalf("cliff.json: %v %+v", err, doc)
	}
	if _, err := os.Stat(filepath.Join(dirs[0], "no_return.png")); err != nil {
		t.Error(err)
	}
}
