package results

import (
	"fmt"
	"strings"
)

// Explain returns a few sentences that read the table: what each headline
// metric means and how the cohorts compare on it.
func Explain(s *Summary) []string {
	if len(s.Runs) == 0 {
		return nil
	}
	list := func(f func(r Run) string) string {
		parts := make([]string, len(s.Runs))
		for i, r := range s.Runs {
			parts[i] = r.Strategy + " " + f(r)
		}
		return strings.Join(parts, ", ")
	}
	from := "from the first fault on"
	if len(s.Faults) == 0 {
		from = "from the start"
		if s.Workload == "oneshot" {
			// Every client starts at t = 0 on purpose: that burst is in
			// the first window.
			from = "from the start, the deliberate burst of every client starting at t = 0 included"
		}
	}
	out := []string{
		"success: succeeded / (succeeded + failed), over the requests that ended; unfinished: requests started that had neither succeeded nor failed when the run ended (on the wire, or waiting in a backoff to try again), in neither side of the ratio: " +
			list(func(r Run) string {
				if r.IsUnmeasured("success_ratio") {
					return "?"
				}
				u := fmt.Sprintf("%d unfinished", r.Unfinished)
				if r.IsUnmeasured("unfinished") {
					u = "unfinished unknown"
				}
				return RatioText(r.SuccessRatio) + " (" + u + ")"
			}) + ".",
		"herd factor: how bunched attempts are inside each second " + from + " (1 = independent arrivals, higher = synchronized waves): " +
			list(func(r Run) string { return fmt.Sprintf("%.1f", r.HerdFactor) }) + ".",
	}
	if len(s.Faults) > 0 {
		out = append(out,
			"failed after fault: attempts that failed after the last fault ended, i.e. the recovering service knocked down again: "+
				list(func(r Run) string { return fmt.Sprint(r.FailedAfterFault) })+".",
			"recovery: time from the end of the last fault until every later 1 s window succeeds at least 95%: "+
				list(func(r Run) string {
					if r.RecoveryS == nil {
						return "never (within the run)"
					}
					return fmt.Sprintf("%.2fs", *r.RecoveryS)
				})+".")
	}
	out = append(out, "amplification: attempts per request (1 = no retries): "+
		list(func(r Run) string {
			if r.IsUnmeasured("amplification") {
				return "? (no attempt numbers)"
			}
			return fmt.Sprintf("%.2f", r.Amplification)
		})+".")
	out = append(out, explainTiers(s)...)
	sim, late, wasted := false, false, false
	for _, r := range s.Runs {
		sim = sim || r.Sim != nil
		late = late || r.SimLate != nil
		wasted = wasted || r.BudgetDenied+r.BreakerRejected+r.Throttled+r.MaxOpenBreakers+r.WastedWork > 0
	}
	if sim {
		line := "(sim): under each cohort, the simulator's figures for the same plan and seed in virtual time (the same model, without sockets or scheduler): far from the real row, the machine or the network shaped the real figures."
		if s.Repetitions > 1 {
			line = "(sim mean): under each cohort, the simulator's figures for the same plans and seeds in virtual time (the same model, without sockets or scheduler), the mean over the repetitions; the row above is the first repetition's."
		}
		out = append(out, line)
	}
	if late {
		out = append(out, "(sim, late): the simulator's figures again, its clients learning of each failure as late as this run's did (the spread after the crashes, or the send lag, drawn from this run's own measures): near the real row, the harness's lateness explains what moved; far from the (sim) row, this scenario's figures need a tighter harness (the self-check says which).")
		var told []string
		for _, r := range s.Runs {
			if v := LateVerdict(r); v != "" {
				told = append(told, r.Strategy+" "+v)
			}
		}
		if len(told) > 0 {
			out = append(out, "what moved the real figures from (sim): "+strings.Join(told, "; ")+".")
		}
	}
	if wasted {
		out = append(out, "wasted work: requests the target served after their client had stopped waiting (timed out or gave up): capacity spent on answers nobody read, the mechanism that keeps a metastable failure going: "+
			list(func(r Run) string {
				if r.IsUnmeasured("wasted_work") {
					return "?"
				}
				return fmt.Sprint(r.WastedWork)
			})+".")
	}

	return out
}

// explainTiers says, for a chain of tiers, how much each cohort's retries
// multiplied on their way down.
func explainTiers(s *Summary) []string {
	if len(s.Runs) == 0 || len(s.Runs[0].Tiers) < 2 {
		return nil
	}
	parts := make([]string, len(s.Runs))
	bottom := ""
	for i, r := range s.Runs {
		b := r.Bottom()
		bottom = b.Tier
		parts[i] = fmt.Sprintf("%s %.2f", r.Strategy, b.Amplification)
	}
	return []string{"amplification at the bottom tier (" + bottom + "): attempts that reached it per user request; retries at every tier multiply (4 attempts at each of 3 callers: up to 4^3 = 64): " +
		strings.Join(parts, ", ") + "."}
}

// LateVerdict reads a real cohort's three rows together, by the figures
// of ModelChecks and their tolerances: what moved its figures from the
// simulator's, "" when nothing did or the run has no second opinion.
//
//   - the real row agrees with (sim, late) and not with (sim): the
//     harness's lateness, as measured;
//   - it lies between them: the harness's lateness, or less of it than
//     measured (the model draws every failure's lateness from the crash's
//     spread, the widest of the run's);
//   - it agrees with neither, outside them: more than the harness's
//     lateness;
//   - (sim, late) agrees with (sim) and the real row does not: not the
//     harness's lateness (the machine's other work, the network, the
//     service).
func LateVerdict(r Run) string {
	if r.Sim == nil || r.SimLate == nil {
		return ""
	}
	real := SimFigures(r)
	fromSim := ModelMoved(r.Sim, real)
	if len(fromSim) == 0 {
		return ""
	}
	lateMoved := len(ModelMoved(r.Sim, r.SimLate)) > 0
	fromLate := ModelMoved(r.SimLate, real)
	switch {
	case lateMoved && len(fromLate) == 0:
		return "by this harness's lateness: the model given it agrees with the real row"
	case lateMoved && between(r.Sim, r.SimLate, real):
		return "by this harness's lateness, or less of it than measured: the real row lies between (sim) and (sim, late)"
	case lateMoved:
		return "by more than this harness's lateness: the real row differs even from the model given it (" + strings.Join(fromLate, ", ") + ", against (sim, late))"
	}
	return "not by this harness's lateness, which leaves the model's figures where they were: by the machine's other work, the network or the service (" + strings.Join(fromSim, ", ") + ", against (sim))"
}

// between reports whether each figure of ModelChecks in real lies between
// its values in sim and late, to their tolerance.
func between(sim, late, real Values) bool {
	for _, c := range ModelChecks {
		a, ok1 := sim.Get(c.Name)
		b, ok2 := late.Get(c.Name)
		v, ok3 := real.Get(c.Name)
		if !ok1 || !ok2 || !ok3 {
			continue
		}
		tol := max(c.Rel*a, c.Abs)
		if v < min(a, b)-tol || v > max(a, b)+tol {
			return false
		}
	}
	return true
}
