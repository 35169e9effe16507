package libraries

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/herdtest"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
)

// simPreset runs the built-in scenario st in herdbench's simulator with
// one strategy, the preset with the scenario's attempt timeout, runs times
// (each with its own seed), and returns the cohort's figures in each.
func simPreset(t *testing.T, st storm, preset string, runs int) []results.Run {
	t.Helper()
	op, err := scenarios.Open(st.name, scenarios.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	name, data := op.Filename, op.Source
	i := bytes.Index(data, []byte("\nstrategies:"))
	if i < 0 {
		t.Fatalf("%s has no strategies section", name)
	}
	data = fmt.Appendf(withoutThresholds(data[:i:i]), "\nstrategies:\n  - name: %s\n    preset: %s\n    timeout: %s\n", preset, preset, st.timeout)
	ov := scenarios.Overrides{Seed: op.File.Seed}
	if st.clients > 0 {
		ov.Set = []scenarios.Axis{{Path: "workload.clients", Values: []string{fmt.Sprint(st.clients)}, Origin: "simPreset"}}
	}
	for _, arg := range st.set {
		a, err := scenarios.ParseSet(arg)
		if err != nil {
			t.Fatal(err)
		}
		ov.Set = append(ov.Set, a)
	}
	opened, err := scenarios.OpenData(name, data, ov)
	if err != nil {
		t.Fatal(err)
	}
	plans := opened.Plans
	points, err := engine.Execute(context.Background(), plans, engine.Options{Version: "libraries", Mode: engine.Mode{Sim: true, Runs: runs}})
	if err != nil {
		t.Fatal(err)
	}
	if runs <= 1 {
		return points[0].Output.Summary.Runs
	}
	var out []results.Run
	for _, rep := range points[0].Repetitions {
		out = append(out, rep...)
	}
	return out
}

// agreement is a preset held to the library it models.
type agreement struct {
	preset  string
	library string // a Library's Name
}

// agreements are the presets whose design a Go library ships. The
// adaptive retryer is held to the standard preset: its rate limiter
// reacts to throttling errors only, which herdbench's storms (503s,
// resets, refusals, timeouts) never give, so it retries as the standard
// one does.
var agreements = []agreement{
	{"aws-sdk-go-v2-standard", "aws-sdk-go-v2-standard"},
	{"aws-sdk-go-v2-standard", "aws-sdk-go-v2-adaptive"},
	{"grpc", "grpc-go-a6"},
	{"go-retryablehttp", "go-retryablehttp"},
	{"cenkalti-backoff-v4", "backoff-v4"},
	{"cenkalti-backoff-v5", "backoff-v5"},
	{"sethvargo-go-retry-fibonacci", "go-retry-fibonacci"},
}

// mean is the mean of the figures the bands compare, over runs.
type mean struct{ herd, amp, success float64 }

func meanOf(runs []results.Run) mean {
	var m mean
	for _, r := range runs {
		m.herd += r.HerdFactor / float64(len(runs))
		m.amp += r.Amplification / float64(len(runs))
		if r.SuccessRatio != nil {
			m.success += *r.SuccessRatio / float64(len(runs))
		}
	}
	return m
}

// disagreement says how m (a preset's) falls outside the bands around lib
// (its library's): amplification within ±10%, herd factor within ±25%,
// success within ±3 points; "" when it does not.
func disagreement(m, lib mean) string {
	var out []string
	if math.Abs(m.amp-lib.amp) > 0.10*lib.amp {
		out = append(out, fmt.Sprintf("amplification %.2f against %.2f (±10%%)", m.amp, lib.amp))
	}
	if math.Abs(m.herd-lib.herd) > 0.25*lib.herd {
		out = append(out, fmt.Sprintf("herd factor %.2f against %.2f (±25%%)", m.herd, lib.herd))
	}
	if math.Abs(m.success-lib.success) > 0.03 {
		out = append(out, fmt.Sprintf("success %.1f%% against %.1f%% (±3 points)", 100*m.success, 100*lib.success))
	}
	return strings.Join(out, ", ")
}

func library(t *testing.T, name string) Library {
	for _, l := range All() {
		if l.Name == name {
			return l
		}
	}
	t.Fatalf("no library %q", name)
	return Library{}
}

// TestPresetsMatchTheirLibraries holds each preset that names a Go
// library to that library, in virtual time, under the built-in outage
// and metastable scenarios: the preset in herdbench's simulator (the mean
// of 3 seeds) against the library as a herdtest cohort (the mean of 2
// runs; the SDK draws its jitter from crypto/rand, so no two are alike).
// A library upgrade that changes its behaviour, or a preset edited away
// from it, fails here. It also checks that botocore-standard, botocore's
// design with its 1 s first ceiling, is not the Go SDK's, which is why
// aws-sdk-go-v2-standard exists.
func TestPresetsMatchTheirLibraries(t *testing.T) {
	var all []Library // each once, all cohorts of one run
	for _, a := range agreements {
		if l := library(t, a.library); !slices.ContainsFunc(all, func(o Library) bool { return o.Name == l.Name }) {
			all = append(all, l)
		}
	}
	for g, libs := range byProtocol(all) {
		holdPresets(t, libs, stormsOf(g == 1))
	}
}

// withoutThresholds is a scenario's YAML without its top-level thresholds
// section: a built-in's claims name its own strategies, which the preset's
// cohort replaces.
func withoutThresholds(data []byte) []byte {
	i := bytes.Index(data, []byte("\nthresholds:"))
	if i < 0 {
		return data
	}
	rest := data[i+1:]
	end := len(rest)
	for j := bytes.IndexByte(rest, '\n'); j >= 0 && j+1 < len(rest); {
		if c := rest[j+1]; c != ' ' && c != '-' && c != '\n' && c != '#' {
			end = j + 1
			break
		}
		k := bytes.IndexByte(rest[j+1:], '\n')
		if k < 0 {
			break
		}
		j += 1 + k
	}
	return append(data[:i+1:i+1], rest[end:]...)
}

// holdPresets holds the presets of libs's agreements to them under each
// storm.
func holdPresets(t *testing.T, libs []Library, storms []storm) {
	for _, st := range storms {
		byLib := map[string][]results.Run{}
		for range 2 {
			for i, r := range measure(t, st, herdtest.Virtual, libs...) {
				byLib[libs[i].Name] = append(byLib[libs[i].Name], r)
			}
		}
		presets := map[string]mean{}
		for _, a := range agreements {
			if !slices.ContainsFunc(libs, func(l Library) bool { return l.Name == a.library }) {
				continue
			}
			if _, ok := presets[a.preset]; !ok {
				presets[a.preset] = meanOf(simPreset(t, st, a.preset, 3))
			}
			p, lib := presets[a.preset], meanOf(byLib[a.library])
			t.Logf("%s: preset %s: herd %.2f, amplification %.2f, success %.1f%%; library %s: %.2f, %.2f, %.1f%%",
				st.label, a.preset, p.herd, p.amp, 100*p.success, a.library, lib.herd, lib.amp, 100*lib.success)
			if d := disagreement(p, lib); d != "" {
				t.Errorf("%s: preset %s does not model %s: %s", st.label, a.preset, a.library, d)
			}
		}
		if st.name == "outage" {
			old, lib := meanOf(simPreset(t, st, "botocore-standard", 3)), meanOf(byLib["aws-sdk-go-v2-standard"])
			t.Logf("outage: preset botocore-standard: herd %.2f, amplification %.2f, success %.1f%%", old.herd, old.amp, 100*old.success)
			if disagreement(old, lib) == "" {
				t.Errorf("outage: preset botocore-standard (botocore's 1 s ceiling) now agrees with the Go SDK's standard retryer (herd %.2f against %.2f): the two presets may be one again", old.herd, lib.herd)
			}
		}
	}
}
