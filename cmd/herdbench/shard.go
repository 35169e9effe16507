package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/spf13/pflag"
)

// exitLate: a shard (or a run given --start-at) could not be ready by its
// agreed start, T0; it sent nothing.
const exitLate = 4

// clockRounds is how many round trips a shard makes to measure its clock.
const clockRounds = 8

// maxStartAhead is how far ahead --start-at may be: the shards of a run
// are started for an instant minutes away, not days.
const maxStartAhead = 24 * time.Hour

// aheadText says a wait in days, hours and minutes: "36 years", "2d3h",
// "25h0m".
func aheadText(d time.Duration) string {
	const day, year = 24 * time.Hour, 365 * 24 * time.Hour
	switch {
	case d >= 2*year:
		return fmt.Sprintf("%d years", d/year)
	case d >= 2*day:
		return fmt.Sprintf("%d days", d/day)
	}
	return d.Truncate(time.Minute).String()
}

// shardFlags are the scenario command's flags for one shard of a run
// split over processes or machines.
type shardFlags struct {
	shard   string
	startAt string

	part clients.Part // --shard, parsed; zero without it
	t0   time.Time    // --start-at, parsed; zero without it
}

func (s *shardFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&s.shard, "shard", "", "run shard K of N of the scenario (e.g. 0/3): client i of every cohort when i mod N is K, an open workload's arrivals likewise; needs --start-at and --target, and 'herdbench merge' combines the shards' folders (docs/distributed.md)")
	fs.StringVar(&s.startAt, "start-at", "", "start the run's t = 0 at this UTC instant, RFC 3339 with milliseconds (e.g. 2026-12-01T10:30:00.000Z), the same for every shard, at most a day ahead; a run that cannot be ready by then sends nothing and exits 4")
}

// check parses and checks the flags against the rest of the command's,
// and returns what is wrong, or "".
func (s *shardFlags) check(f *scenarioFlags, fs *pflag.FlagSet) string {
	if s.shard != "" {
		p, err := clients.ParsePart(s.shard)
		if err != nil {
			return "--shard: " + strings.TrimPrefix(err.Error(), clients.ErrPart.Error()+": ")
		}
		s.part = p
	}
	if s.startAt != "" {
		t, err := time.Parse(time.RFC3339Nano, s.startAt)
		switch {
		case err != nil:
			return fmt.Sprintf("--start-at %q is not an RFC 3339 time; write the UTC instant with milliseconds, e.g. %s", s.startAt, time.Now().Add(time.Minute).UTC().Truncate(time.Second).Format("2006-01-02T15:04:05.000Z"))
		case !t.Truncate(time.Millisecond).Equal(t):
			return fmt.Sprintf("--start-at %s has a fraction of a millisecond; give whole milliseconds (results record t = 0 to the millisecond, and the shards' must agree)", s.startAt)
		}
		if ahead := time.Until(t); ahead > maxStartAhead {
			return fmt.Sprintf("--start-at %s is %s ahead; give an instant at most %s ahead (the run would wait, sending nothing, until then: a mistyped date?)", s.startAt, aheadText(ahead), aheadText(maxStartAhead))
		}
		s.t0 = t.UTC()
	}
	return "" // which flags go together: engine.Options.Check
}

// overrides applies the flags to the scenario's compile options.
func (s *shardFlags) overrides(o *scenarios.Overrides) {
	o.Shard = s.part.Of > 0
}

// measureClock measures this machine's clock against the control API of
// the proxy or target, for a shard's results. A failure is said and the
// shard goes on without: its folder then says the clock was not measured.
func (gd *gameDay) measureClock(ctx context.Context, stderr io.Writer) {
	if gd.control == nil {
		return
	}
	r, err := gd.control.Clock(ctx, clockRounds)
	if err != nil {
		fmt.Fprintf(stderr, "herdbench: warning: could not measure this machine's clock against %s: %v\n", gd.flags.chaosControl, err)
		return
	}
	gd.clock = &results.ClockOffset{
		Against:       gd.flags.chaosControl,
		OffsetMS:      float64(r.Offset.Microseconds()) / 1000,
		UncertaintyMS: float64(r.Uncertainty.Microseconds()) / 1000,
		RoundTrips:    r.RoundTrips,
	}
}
