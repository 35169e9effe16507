package scenarios

import (
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/results/folder"
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
	MaxNameBytes = folder.MaxNameBytes
	// MaxClients bounds the clients of each cohort (closed and oneshot
	// workloads), in the file and on the command line.
	MaxClients = 10_000_000
	// MinRate and MaxRate bound an open workload's arrivals per second.
	MinRate = 0.001
	MaxRate = 10_000_000
	// MaxConcurrency and MaxQueue bound the target's slots and queue.
	MaxConcurrency = 1_000_000
	MaxQueue       = 10_000_000
	// MaxContention bounds what each request in service adds to a new
	// one's service time (target.contention).
	MaxContention = time.Second
	// MaxMultiplier bounds a backoff's growth per failed attempt.
	MaxMultiplier = 100
	// MaxAttempts bounds a strategy's max_attempts (or unlimited).
	MaxAttempts = 1_000_000
	// MaxFaults, MaxStrategies and MaxThresholds bound the lists of a
	// scenario.
	MaxFaults     = 1000
	MaxStrategies = 100
	// MaxRequests is the most requests a mix holds.
	MaxRequests   = 1000
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

// nameProblem says what is wrong with a scenario's name, or "": the one
// rule of every name that becomes a results folder's (folder.NameProblem).
func nameProblem(name string) string { return folder.NameProblem(name) }

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

// describeRune names a character for a message.
func describeRune(r rune) string { return folder.DescribeRune(r) }

// durationText writes a range's bound: "24h" rather than "24h0m0s".
func durationText(d fmt.Stringer) string {
	return strings.TrimSuffix(strings.TrimSuffix(d.String(), "0s"), "0m")
}
