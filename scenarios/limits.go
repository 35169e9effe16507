package scenarios

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/herdbench/herdbench/internal/dist"
)

// The ranges validation enforces, beyond what each field means. They keep
// every run bounded: no count or time a scenario can name overflows, and
// none asks for memory no machine has (the memory a run needs is also
// estimated before it starts; see engine.EstimateMemory). docs/limits.md
// lists them.
const (
	// MaxDuration bounds every duration of a scenario: the run's, a
	// fault's start and length, waits, timeouts, windows and the
	// parameters of distributions.
	MaxDuration = dist.MaxDuration
	// MaxNameBytes bounds a scenario's name (it names the results folder)
	// and a strategy's (it names its cohort's files).
	MaxNameBytes = 200
	// MaxClients bounds the clients of each cohort (closed and oneshot
	// workloads), in the file and on the command line.
	MaxClients = 10_000_000
	// MinRate and MaxRate bound an open workload's arrivals per second.
	MinRate = 0.001
	MaxRate = 10_000_000
	// MaxConcurrency and MaxQueue bound the target's slots and queue.
	MaxConcurrency = 1_000_000
	MaxQueue       = 10_000_000
	// MaxMultiplier bounds a backoff's growth per failed attempt.
	MaxMultiplier = 100
	// MaxAttempts bounds a strategy's max_attempts (or unlimited).
	MaxAttempts = 1_000_000
	// MaxFaults, MaxStrategies and MaxThresholds bound the lists of a
	// scenario.
	MaxFaults     = 1000
	MaxStrategies = 100
	MaxThresholds = 1000
	// MaxTiers bounds a chain of tiers: with 4 attempts at each caller,
	// 8 tiers already put 4^8 = 65,536 attempts at the bottom per request.
	MaxTiers = 8
	// MaxRuns bounds the repetitions of each cohort (--runs, runs), and
	// MaxSweepPoints the client counts of a sweep (--clients, sweep.clients).
	MaxRuns        = 10_000
	MaxSweepPoints = 1000
	// MaxFileBytes bounds a scenario file.
	MaxFileBytes = 1 << 20
)

// nameProblem says what is wrong with a scenario's name, or "". The name
// becomes a folder name (<name>-<UTC time>), so it holds only letters,
// digits, '-', '_' and '.', and does not start with '.' (a hidden folder)
// or '-' (read as a flag in shell commands).
func nameProblem(name string) string {
	const fix = "the name becomes the results folder's name, so write letters, digits, '-', '_' and '.' only, e.g. my-outage"
	switch {
	case name == "":
		return "missing; give the scenario a name (it names the results folder)"
	case len(name) > MaxNameBytes:
		return fmt.Sprintf("%d bytes long; a name has at most %d (it names the results folder), e.g. my-outage", len(name), MaxNameBytes)
	case name[0] == '.' || name[0] == '-':
		return fmt.Sprintf("%q starts with %q; %s", name, name[:1], fix)
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' && r != '.' {
			return fmt.Sprintf("%q holds %s; %s", name, describeRune(r), fix)
		}
	}
	return ""
}

// labelProblem says what is wrong with a strategy's name, or "". It labels
// the cohort in tables, CSV files and file names: any printable text, at
// most MaxNameBytes.
func labelProblem(name string) string {
	if len(name) > MaxNameBytes {
		return fmt.Sprintf("%d bytes long; a strategy's name labels its cohort and has at most %d, e.g. full-jitter", len(name), MaxNameBytes)
	}
	for _, r := range name {
		if !unicode.IsPrint(r) && r != ' ' {
			return fmt.Sprintf("%q holds %s; a strategy's name labels its cohort in tables and files, so write printable text, e.g. full-jitter", name, describeRune(r))
		}
	}
	return ""
}

// describeRune names a character for a message: printable ones quoted,
// the others by code.
func describeRune(r rune) string {
	switch {
	case r == ' ':
		return "a space"
	case r == utf8.RuneError:
		return "bytes that are not UTF-8 text"
	case unicode.IsPrint(r):
		return fmt.Sprintf("%q", r)
	case r == '\n' || r == '\r':
		return "a line break"
	}
	return fmt.Sprintf("the control character %U", r)
}

// durationText writes a range's bound: "24h" rather than "24h0m0s".
func durationText(d fmt.Stringer) string {
	return strings.TrimSuffix(strings.TrimSuffix(d.String(), "0s"), "0m")
}
