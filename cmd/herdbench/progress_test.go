package main

import (
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
)

// The text beside a cohort's bar says what is true of the interval: a
// stall completes nothing (no share of successes to show, not the last
// one seen) while its requests hang in flight, and the end says the
// cohort's own success ratio, not its last interval's.
func TestCohortText(t *testing.T) {
	before := results.Live{Attempts: 1000, OK: 990, Requests: 900, Succeeded: 850, Failed: 10, InFlight: 16}
	for _, c := range []struct {
		name      string
		prev, cur results.Live
		dt        time.Duration
		end       bool
		want      string
	}{
		{"normal", before, results.Live{Attempts: 1500, OK: 1440, Requests: 1300, Succeeded: 1240, Failed: 20, InFlight: 16}, 500 * time.Millisecond, false,
			"  1000 done/s  90.0% ok     16 in flight"},
		{"stall", before, results.Live{Attempts: 1000, OK: 990, Requests: 1200, Succeeded: 850, Failed: 10, InFlight: 300}, 500 * time.Millisecond, false,
			"     0 done/s      — ok    300 in flight"},
		{"all failing", before, results.Live{Attempts: 1250, OK: 990, Requests: 1200, Succeeded: 850, Failed: 40, InFlight: 5}, 500 * time.Millisecond, false,
			"   500 done/s   0.0% ok      5 in flight"},
		{"the first snapshot", results.Live{}, results.Live{}, 0, false,
			"     0 done/s      — ok      0 in flight"},
		// The last interval was all successes; the cohort's own figure is
		// what the table will say: 4054 of the 4054 that ended, 141
		// asleep in a backoff.
		{"end", results.Live{Attempts: 6000, OK: 5000}, results.Live{Attempts: 6100, OK: 5100, Requests: 4195, Succeeded: 4054, InFlight: 3}, 500 * time.Millisecond, true,
			"done: 4195 requests, 100.0% success, 141 unfinished"},
		{"end, some failed", results.Live{}, results.Live{Attempts: 300, OK: 200, Requests: 100, Succeeded: 60, Failed: 20}, time.Second, true,
			"done: 100 requests, 75.0% success, 20 unfinished"},
		{"end, nothing ended", results.Live{}, results.Live{Attempts: 30, Requests: 30, InFlight: 30}, time.Second, true,
			"done: 30 requests, — success, 30 unfinished"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := cohortText(c.prev, c.cur, c.dt, c.end); got != c.want {
				t.Errorf("cohortText = %q, want %q", got, c.want)
			}
		})
	}
}
