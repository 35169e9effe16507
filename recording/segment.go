package recording

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/spoken"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
)

// Segment is a recording's results: what a results folder holds, with
// every cohort's figures summarized as the swarm's are.
type Segment struct {
	Output folder.Output
}

// unmeasuredAlways are the figures no recording can tell: which attempts
// make up one request, and what the clients' policies decided, are not on
// the wire; a proxy sees no service's queue.
var unmeasuredAlways = []string{"latency_ms.request", "budget_denied", "breaker_rejected", "throttled", "max_open_breakers", "wasted_work"}

// unmeasuredUnnumbered are the figures a recording tells only from its
// attempts' numbers (--attempt-header).
var unmeasuredUnnumbered = []string{"requests", "success_ratio", "amplification", "unfinished"}

// Unmeasurable says why a recording writes metric (a threshold's, e.g.
// "latency_ms.request.p99") as null, so that a gate on it can never judge
// the traffic: "" when it can be measured. numbered is whether the
// recording reads attempt numbers.
func Unmeasurable(metric string, numbered bool) string {
	in := func(list []string) bool {
		for _, u := range list {
			if metric == u || strings.HasPrefix(metric, u+".") {
				return true
			}
		}
		return false
	}
	switch {
	case in(unmeasuredAlways):
		return "no recording can tell it, it is not on the wire"
	case !numbered && in(unmeasuredUnnumbered):
		return "it needs each attempt's number, read with --attempt-header"
	}
	return ""
}

// Snapshot returns the results of the current recording so far, up to
// now, while it goes on; ErrNothingRecorded when it has no attempt yet.
func (r *Recording) Snapshot() (Segment, error) {
	s := r.cur.Load()
	if s == nil || !s.recorded() {
		return Segment{}, ErrNothingRecorded
	}
	return r.segmentOf(s, time.Now(), false), nil
}

// End ends the recording (its server has stopped) and returns the
// results of its current window up to now; ErrNothingRecorded when it has
// no attempt. Nothing is recorded after it. Each cohort's live recorders
// are let go as soon as its results are copied from them, so the end
// holds about one window's worth of recorders at a time, not two.
func (r *Recording) End() (Segment, error) {
	r.mu.Lock()
	s := r.cur.Swap(nil)
	r.mu.Unlock()
	if s == nil || !s.recorded() {
		return Segment{}, ErrNothingRecorded
	}
	seg := r.segmentOf(s, time.Now(), true)
	// The collector paces itself on the heap of its last cycle, when the
	// live recorders were in it (tens of megabytes a cohort, if mostly
	// untouched pages): without a cycle now, the garbage of writing the
	// folder (its compressed logs, its report) could grow to as much
	// again before the next, in pages that are touched.
	runtime.GC()
	return seg, nil
}

// Unstarted returns the attempts that arrived while no plan had started
// (with --hold, before POST /control/start): they are in no results.
func (r *Recording) Unstarted() int64 { return r.unstarted.Load() }

// segmentOf summarizes s up to end; with release, each cohort's live
// recorders are let go once copied (End).
func (r *Recording) segmentOf(s *segment, end time.Time, release bool) Segment {
	span := min(max(end.Sub(s.t0), results.Bucket), s.window)
	var faults []results.FaultWindow
	var w results.Window
	refused := false
	if r.o.Faults != nil {
		for i, f := range r.o.Faults(s.t0, s.t0.Add(span)) {
			refused = refused || !chaos.EffectOf(f.Fault).Outage.Listening()
			faults = append(faults, results.FaultWindow{Name: f.Name, Kind: f.Kind, AtS: f.At.Seconds(), ForS: f.For.Seconds()})
			if i == 0 || f.At < w.FirstStart {
				w.FirstStart = f.At
			}
			w.LastEnd = max(w.LastEnd, f.End())
		}
	}
	sum := &results.Summary{
		Scenario: r.o.Scenario, Description: r.o.Description, Mode: "recorded", Seed: r.o.Seed,
		Version: r.o.Version, Started: s.t0.UTC(), DurationS: span.Seconds(), Faults: faults,
		Recorded: r.provenance(s),
	}
	if sum.Faults == nil {
		sum.Faults = []results.FaultWindow{}
	}
	out := folder.Output{Summary: sum, Scenario: r.o.ScenarioYAML}
	var unnumbered, cut int64
	var capped []string
	for i := range s.cells {
		c := s.cells[i].Load()
		if c == nil {
			continue
		}
		cut += c.cut.Load()
		name := r.cohorts.name(i)
		run, rec, apart, ok := c.summarize(name, span, w)
		if release {
			s.cells[i].Store(nil)
		}
		if !ok {
			continue
		}
		if run.Capped {
			capped = append(capped, name)
		}
		if apart > 0 {
			sum.Recorded.UnnumberedApart = append(sum.Recorded.UnnumberedApart, results.KeyCount{Key: name, Attempts: apart})
		}
		unnumbered += c.unnumbered.Load()
		sum.Runs = append(sum.Runs, run.Run)
		out.Cohorts = append(out.Cohorts, results.Cohort{Strategy: name, Rec: rec})
	}
	sum.Recorded.AttemptsUnnumbered = unnumbered
	sum.Recorded.CutAtEnd = cut
	sum.Recorded.Notes = r.notes(unnumbered, sum.Recorded.UnnumberedApart)
	if cut > 0 {
		sum.Recorded.Notes = append(sum.Recorded.Notes, fmt.Sprintf("%s in flight when the run ended (at %s on the plan's clock) were closed by %s within %s of it: cut short by the run's end, not timed out, so they are in no figure (cut_at_end), as a swarm's own results leave out the attempts its end cuts short.",
			spoken.Count(cut, "attempt", "attempts"), time.Duration(r.run.Load()), clientsWord(cut), CutGrace))
	}
	if refused {
		sum.Recorded.Notes = append(sum.Recorded.Notes, "A refuse outage acted: the connections it refused never reached this server, so their attempts are in no figure (requests, unfinished and amplification count only the attempts that arrived).")
	}
	if len(capped) > 0 {
		sum.Recorded.Notes = append(sum.Recorded.Notes, "More requests succeeded here than started here for "+strings.Join(capped, ", ")+
			": their first tries never reached this server (refused, or sent before the recording began), so success_ratio, the successes over the requests seen to start, is capped at 100%.")
	}
	return Segment{Output: out}
}

// cohortRun is a cohort's figures in a recording, and whether its
// success_ratio was capped (recordedRatio).
type cohortRun struct {
	results.Run
	Capped bool
}

// summarize returns the figures of the cell's cohort name up to span, and
// its recorder: its numbered attempts', with apart the unnumbered ones
// counted apart from them; or, without numbered attempts, the unnumbered
// ones', with the figures that need a number unmeasured. ok is false for a
// cohort with no attempt.
func (c *cell) summarize(name string, span time.Duration, w results.Window) (run cohortRun, rec *results.Recorder, apart int64, ok bool) {
	shown, hasApart := c.shown()
	rec = shown.Upto(span)
	if rec.Live().Attempts == 0 {
		return cohortRun{}, nil, 0, false
	}
	numbered := c.unnumbered.Load() == 0 || hasApart
	if hasApart {
		apart = c.unnumbered.Load()
	}
	run.Run = results.Summarize(results.Cohort{Strategy: name, Rec: rec}, w)
	run.Unmeasured = append([]string(nil), unmeasuredAlways...)
	if !numbered {
		run.Unmeasured = append(run.Unmeasured, unmeasuredUnnumbered...)
	}
	if !numbered || c.unidentified.Load() > 0 {
		run.Unmeasured = append(run.Unmeasured, "transport_resends") // which attempt repeats which is not on the wire
	}
	failedKnown := numbered && c.withoutMax.Load() == 0
	if !failedKnown {
		run.Unmeasured = append(run.Unmeasured, "failed")
		if !run.IsUnmeasured("unfinished") {
			run.Unmeasured = append(run.Unmeasured, "unfinished")
		}
	}
	run.Capped = recordedRatio(&run.Run, failedKnown)
	return run, rec, apart, true
}

// recordedRatio sets a recording's success_ratio (r's figures as
// Summarize gives them) and reports whether it capped it. With failed
// known (every attempt's header said its client's last attempt), it is a
// run's: succeeded / (succeeded + failed). Without, a failure is not on
// the wire, so it is the successes over the requests seen to start here
// (first tries), which passes 1 when first tries never arrived (a refuse
// outage, a recording begun mid-request): capped at 1. Requests
// unmeasured (no attempt numbers) leave it unmeasured.
func recordedRatio(r *results.Run, failedKnown bool) (capped bool) {
	switch {
	case r.IsUnmeasured("success_ratio"):
		return false
	case failedKnown:
		r.SuccessRatio = results.SuccessRatioOf(r.Succeeded, r.Failed)
		return false
	case r.Requests == 0 && r.Succeeded == 0:
		r.SuccessRatio = nil
		return false
	case r.Succeeded >= r.Requests:
		one := 1.0
		r.SuccessRatio = &one
		return r.Succeeded > r.Requests
	}
	r.SuccessRatio = results.SuccessRatioOf(r.Succeeded, r.Requests-r.Succeeded)
	return false
}

// provenance says where segment s's figures come from.
func (r *Recording) provenance(s *segment) *results.Recorded {
	return &results.Recorded{
		By: r.o.By, Address: r.o.Address, Upstream: r.o.Upstream,
		Times:         "each attempt counts at its arrival; its latency is from its arrival to the end of its answer, as this server saw it (a client's own latency adds the network both ways)",
		CohortBy:      r.o.CohortBy.String(),
		MaxCohorts:    r.o.MaxCohorts,
		Other:         r.cohorts.busiestOther(10),
		AttemptHeader: r.o.Attempts.Name,
		Segment:       s.number,
		PlanOffsetS:   s.offset.Seconds(),
	}
}

// notes says in words what the figures cannot tell; apart are the
// unnumbered attempts counted apart from their cohorts' figures.
func (r *Recording) notes(unnumbered int64, apart []results.KeyCount) []string {
	var out []string
	var counted int64
	for _, k := range apart {
		counted += k.Attempts
	}
	switch {
	case r.o.Attempts.Name == "":
		out = append(out, "No attempt header was read (--attempt-header), so which attempts are retries is unknown: requests, unfinished, amplification and success_ratio are null, and the attempts are in none of the timeline's first/retry columns.")
	case counted > 0:
		names := make([]string, len(apart))
		for i, k := range apart {
			names[i] = fmt.Sprintf("%s %d", k.Key, k.Attempts)
		}
		out = append(out, fmt.Sprintf("%s had no readable %s header (a load balancer's health checks, a client that does not send it): they are counted apart (unnumbered_apart: %s) and are in none of their cohorts' figures, which are those of the numbered attempts.",
			spoken.Count(counted, "attempt", "attempts"), r.o.Attempts.Name, strings.Join(names, ", ")))
		if unnumbered > counted {
			out = append(out, "Cohorts whose attempts all lacked a readable "+r.o.Attempts.Name+" header have null requests, unfinished, amplification and success_ratio, and those attempts are in none of the timeline's first/retry columns.")
		}
	case unnumbered > 0:
		out = append(out, "Some attempts had no readable "+r.o.Attempts.Name+" header: requests, unfinished, amplification and success_ratio are null for their cohorts, and those attempts are in none of the timeline's first/retry columns.")
	}
	out = append(out, "A server cannot see which attempts make up one request, nor when a client gives up (but for amz-sdk-request's max) or what its retry policies decide: latency_ms.request and the policy figures are null, and so are failed and unfinished where no max was read; there success_ratio is the successes over the requests seen to start (first tries), at most 100%, rather than over the requests that ended.")
	return out
}

// clientsWord is "its client" for one attempt, "their clients" for more.
func clientsWord(n int64) string {
	if n == 1 {
		return "its client"
	}
	return "their clients"
}
