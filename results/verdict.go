package results

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// The verdict judges a real run by the consequences of its harness's
// lateness, not by the lateness itself: a run is not trustworthy when a
// headline figure left the band in which a real run counts as agreeing
// with the simulator's run of the same plan and seed (Bands), or when it
// could have: when the model given this run's own lateness (the engine's
// second opinion) moves the figure out of its band and the real figure
// agrees with that just as well. Figures of waves are read at the finest
// of Resolutions the run held. Without a model to compare with (a user's
// own cohorts, an external target, a merged split run) the verdict falls
// back on the self-check's limits (Judge).

// Judgement is what a real run's verdict says of its figures.
type Judgement string

// The three judgements of a verdict, from best to worst.
const (
	// Exact: the real figures equal the model's at the finest resolution.
	Exact Judgement = "exact"
	// Holds: every headline figure is within its band of the model's;
	// some finer figure was moved by the harness (the verdict says which).
	Holds Judgement = "holds"
	// NotTrustworthy: a headline figure is outside its band, or could be.
	NotTrustworthy Judgement = "not_trustworthy"
)

// Verdict is a real run's answer to "can I take these figures at their
// word?" (summary.json's "verdict"): one outcome, said in one sentence,
// and the figures that decided it. Absent in virtual time.
type Verdict struct {
	Outcome Judgement `json:"outcome"`
	// Sentence says the outcome in one sentence; for a run that is not
	// trustworthy, what to do about it.
	Sentence string `json:"sentence"`
	// ResolutionMS is the coarsest bucket width, in milliseconds, at which
	// a figure of waves (a cohort's herd factor) was read: each at the
	// finest of Resolutions at which it agreed with the model's (each
	// figure says its own), 10 for an exact run. Absent when no figure of
	// waves was judged (a plan without faults, or no model to compare
	// with).
	ResolutionMS float64 `json:"resolution_ms,omitempty"`
	// SlowMotion is, for a run that is not trustworthy and that slow
	// motion can slow (herdbench's own clients and target), the factor
	// to run it again with: the least at which the model given this run's
	// lateness, that many times smaller, holds its figures (its own
	// factor times the run's). Absent otherwise.
	SlowMotion int `json:"slow_motion,omitempty"`
	// Figures are the comparisons that decided the outcome.
	Figures []VerdictFigure `json:"figures,omitempty"`
}

// VerdictFigure is one figure of one cohort the verdict compared with the
// model's.
type VerdictFigure struct {
	Cohort string   `json:"cohort"`
	Name   string   `json:"name"`
	Real   *float64 `json:"real"`
	Sim    *float64 `json:"sim"`
	// Within is whether Real agrees with Sim: within the figure's band
	// of it, and no better explained by the harness's lateness (Late).
	Within bool `json:"within"`
	// Late is the model's figure given this run's own lateness (the
	// simulator's, its clients as late as this run's); absent when the
	// harness was never late enough to ask.
	Late *float64 `json:"late,omitempty"`
	// ResolutionMS is, for a figure of waves, the bucket width it was
	// read at in milliseconds (10: the summary's own figure).
	ResolutionMS float64 `json:"resolution_ms,omitempty"`
	// Finer marks the same figure at 10 ms where the verdict read it at a
	// coarser resolution: what the harness moved, shown beside what
	// decided.
	Finer bool `json:"finer,omitempty"`
}

// Trusted reports whether v lets its run's figures be taken at their
// word: exact or holds. A nil verdict (virtual time) is trusted.
func (v *Verdict) Trusted() bool { return v == nil || v.Outcome != NotTrustworthy }

// Band is how far a real figure may be from the simulator's for the same
// plan and seed and still count as agreeing with it: by at most Rel of
// the simulator's figure, Abs, or PerAttempt of the simulator's attempts,
// whichever is largest.
type Band struct {
	ModelCheck
	// PerAttempt: a count of attempts grows with the cohort, and its
	// floor with it.
	PerAttempt float64
	// Waves: a figure of synchronized waves in 10 ms buckets, read at the
	// resolution the run held (Resolutions).
	Waves bool
	// Faults: a figure of what follows a fault, judged only in a plan
	// with faults.
	Faults bool
}

// Bands are the headline figures the verdict judges and their bands
// (docs/results.md gives the reasons): the herd factor within 25% (a peak
// of buckets, it moves most), the failures after the fault within 20%
// (and 10 attempts, and half a percent of the cohort's attempts), the
// recovery within 25% (and half a second), the amplification within 10%
// (and 0.05), an OCC target's calls within 15% and a one-shot workload's
// completion within 25% (and half a second). A figure missing from both
// runs is not compared; a recovery missing from one is outside.
var Bands = []Band{
	{ModelCheck: ModelCheck{"herd_factor", 0.25, 0.5}, Waves: true, Faults: true},
	{ModelCheck: ModelCheck{"failed_after_fault", 0.20, 10}, PerAttempt: 0.005, Faults: true},
	{ModelCheck: ModelCheck{"recovery_s", 0.25, 0.5}, Faults: true},
	{ModelCheck: ModelCheck{"amplification", 0.10, 0.05}},
	{ModelCheck: ModelCheck{"calls", 0.15, 0}},
	{ModelCheck: ModelCheck{"completion_s", 0.25, 0.5}},
}

// within reports whether v is within b of ref, where attempts are the
// attempts of ref's run. Both missing agree; one missing does not.
func (b Band) within(v, ref figure, attempts float64) bool {
	if !v.ok || !ref.ok {
		return v.ok == ref.ok
	}
	return math.Abs(v.v-ref.v) <= max(b.Rel*math.Abs(ref.v), b.Abs, b.PerAttempt*attempts)
}

// agrees reports whether a real figure agrees with the simulator's: within
// its band, and, where the model given the harness's lateness left the
// band, not within the band of that too and nearer it than the
// simulator's (a real figure the harness's lateness explains better than
// the strategy).
func (b Band) agrees(real, sim, late figure, attempts float64) bool {
	if !b.within(real, sim, attempts) {
		return false
	}
	if !late.asked || b.within(late, sim, attempts) {
		return true
	}
	return !b.within(real, late, attempts) || math.Abs(real.v-late.v) >= math.Abs(real.v-sim.v)
}

// figure is one value of a figure: ok false when it is missing (a
// recovery that never came); asked false for a model's second opinion
// that was not asked.
type figure struct {
	v         float64
	ok, asked bool
}

func (f figure) ptr() *float64 {
	if !f.ok || math.IsNaN(f.v) {
		return nil
	}
	v := f.v
	return &v
}

// Reading is one cohort's figures as the verdict reads them: its figures
// by name (the view runs[].sim shows: SimFigures) and its herd factor at
// every resolution, NaN at one it does not know (a run judged again from
// a results folder that kept no timeline: a sweep's point), where it
// agrees with nothing.
type Reading struct {
	Figures Values
	Herd    HerdFactors
}

// coarsestKnown returns the index of the coarsest of Resolutions at which
// r knows its herd factor (the finest, 10 ms, it always does).
func (r *Reading) coarsestKnown() int {
	i := len(Resolutions) - 1
	for i > 0 && math.IsNaN(r.Herd[i]) {
		i--
	}
	return i
}

// get returns the figure of band b at resolution res.
func (r *Reading) get(b Band, res int) figure {
	if r == nil {
		return figure{}
	}
	if b.Waves {
		if _, ok := r.Figures.Get(b.Name); !ok {
			return figure{asked: true}
		}
		return figure{v: r.Herd[res], ok: true, asked: true}
	}
	v, ok := r.Figures.Get(b.Name)
	return figure{v: v, ok: ok, asked: true}
}

// Evidence is what the verdict weighs for one cohort of a real run with a
// model: its own figures, the simulator's for the same plan and seed, and
// the simulator's with the lateness this run's harness measured (nil when
// it was never late enough to ask).
type Evidence struct {
	Cohort string
	Real   Reading
	Sim    Reading
	Late   *Reading
}

// Remedy is what a run that is not trustworthy could do instead.
type Remedy struct {
	// Slowable: slow motion can slow it (herdbench's own clients and
	// target: engine.CheckSlowMotion).
	Slowable bool
	// Wall is how long one run of it lasts on the wall clock at real
	// speed (its cohorts apart: all of them).
	Wall time.Duration
	// SlowMotion is the factor to run it again with, slow motion's
	// factor times the run's own (0: none would do, or slow motion cannot
	// slow it): engine's from the model's second opinion.
	SlowMotion int
	// Together: the run's cohorts ran together where --cohorts auto
	// would run them apart (--slow-motion auto chose it): the remedy
	// says --cohorts together, for Wall to hold.
	Together bool
}

// Decide returns the verdict of a real run's summary s, from the evidence
// of each of its cohorts (ev, in any order; none when the run has no model
// to compare with), or nil for a run without a self-check (virtual time).
func Decide(s *Summary, ev []Evidence, rem Remedy) *Verdict {
	if s.Harness == nil {
		return nil
	}
	if len(ev) == 0 {
		return decideByLimits(s, rem)
	}
	j := judge(ev, len(s.Faults) > 0)
	v := &Verdict{Outcome: j.outcome, Figures: j.figures}
	if j.waves {
		v.ResolutionMS = ms(j.res)
	}
	switch j.outcome {
	case Exact:
		v.Sentence = "Exact: every headline figure agrees with the simulator's for the same plan and seed"
		if j.waves {
			v.Sentence += ", the waves at 10 ms"
		}
		v.Sentence += "."
	case Holds:
		v.Sentence = fmt.Sprintf("Holds at %s: every headline figure is within its band of the simulator's, but this harness smeared the waves at 10 ms (%s), so they are read at up to %s (%s).",
			resText(j.res), j.finer, resText(j.res), j.held)
	default:
		v.SlowMotion = rem.SlowMotion
		v.Sentence = "NOT TRUSTWORTHY: " + j.why + "; " + remedy(rem) + "."
	}
	return v
}

// judgement is what judge found.
type judgement struct {
	outcome Judgement
	figures []VerdictFigure
	waves   bool          // a figure of waves was judged
	res     time.Duration // the resolution it was read at
	finer   string        // the worst 10 ms figure of waves, for holds
	held    string        // the same figure at res
	why     string        // what made it not trustworthy
}

// judge compares every cohort's figures with the simulator's.
func judge(ev []Evidence, faults bool) judgement {
	j := judgement{outcome: Exact}
	var bad []string
	for _, b := range Bands {
		if b.Faults && !faults {
			continue
		}
		if b.Waves {
			if text := j.judgeWaves(b, ev); text != "" {
				bad = append(bad, text)
			}
			continue
		}
		for _, e := range ev {
			real, sim, late := e.Real.get(b, 0), e.Sim.get(b, 0), e.Late.get(b, 0)
			if !real.ok && !sim.ok {
				continue // not a figure of this run (calls without an OCC target)
			}
			ok := b.agrees(real, sim, late, attemptsOf(e.Sim))
			j.figures = append(j.figures, VerdictFigure{Cohort: e.Cohort, Name: b.Name, Real: real.ptr(), Sim: sim.ptr(), Late: late.ptr(), Within: ok})
			if !ok {
				bad = append(bad, whyNot(e.Cohort, b, real, sim, late, attemptsOf(e.Sim), 0))
			}
		}
	}
	if len(bad) > 0 {
		j.outcome = NotTrustworthy
		j.why = bad[0]
		if n := len(bad) - 1; n > 0 {
			j.why += fmt.Sprintf(" (and %d more %s)", n, plural(n, "figure", "figures"))
		}
	}
	return j
}

// judgeWaves reads band b's figure of waves of each cohort at the finest
// resolution at which it agrees with the simulator's, and adds it to j's
// figures (and at 10 ms beside it, for a coarser one); j's resolution is
// the coarsest of them. It returns what disagrees at every resolution
// ("" when every cohort's agrees at one).
func (j *judgement) judgeWaves(b Band, ev []Evidence) string {
	j.waves = true
	j.res = Resolutions[0]
	worstOff, why := -1.0, ""
	for _, e := range ev {
		n := attemptsOf(e.Sim)
		at := -1
		for i := range Resolutions {
			if b.agrees(e.Real.get(b, i), e.Sim.get(b, i), e.Late.get(b, i), n) {
				at = i
				break
			}
		}
		read := at
		if at < 0 {
			read = e.Real.coarsestKnown()
		}
		if read > 0 {
			real, sim := e.Real.get(b, 0), e.Sim.get(b, 0)
			j.addWave(b, e, 0, true)
			if off := offBy(real, sim); at > 0 && off > worstOff {
				worstOff = off
				j.finer = fmt.Sprintf("%s's herd factor %s against %s", e.Cohort, valueText(b.Name, real), valueText(b.Name, sim))
				j.held = fmt.Sprintf("%s against %s at %s", valueText(b.Name, e.Real.get(b, at)), valueText(b.Name, e.Sim.get(b, at)), resText(Resolutions[at]))
			}
		}
		j.addWave(b, e, read, false)
		j.res = max(j.res, Resolutions[read])
		if at < 0 && why == "" {
			why = whyNot(e.Cohort, b, e.Real.get(b, read), e.Sim.get(b, read), e.Late.get(b, read), n, Resolutions[read])
		}
	}
	if why == "" && j.res > Resolutions[0] {
		j.outcome = Holds
	}
	return why
}

// addWave adds cohort e's figure of waves at resolution Resolutions[i] to
// j's figures.
func (j *judgement) addWave(b Band, e Evidence, i int, finer bool) {
	real, sim, late := e.Real.get(b, i), e.Sim.get(b, i), e.Late.get(b, i)
	j.figures = append(j.figures, VerdictFigure{Cohort: e.Cohort, Name: b.Name, Real: real.ptr(), Sim: sim.ptr(), Late: late.ptr(),
		Within: b.agrees(real, sim, late, attemptsOf(e.Sim)), ResolutionMS: ms(Resolutions[i]), Finer: finer})
}

// attemptsOf returns a reading's attempts (0 if it has none).
func attemptsOf(r Reading) float64 {
	v, _ := r.Figures.Get("attempts")
	return v
}

// offBy returns how far v is from ref, relative to ref: +Inf when one is
// missing or ref is 0 and v is not.
func offBy(v, ref figure) float64 {
	switch {
	case !v.ok && !ref.ok:
		return 0
	case !v.ok || !ref.ok:
		return math.Inf(1)
	case ref.v == 0 && v.v == 0:
		return 0
	case ref.v == 0:
		return math.Inf(1)
	}
	return math.Abs(v.v/ref.v - 1)
}

// whyNot says why a cohort's figure disagrees: outside its band, or
// within it but no better than within the band of the model given the
// harness's lateness. res is a figure of waves' resolution, 0 otherwise.
func whyNot(cohort string, b Band, real, sim, late figure, attempts float64, res time.Duration) string {
	name := strings.TrimSuffix(strings.ReplaceAll(b.Name, "_", " "), " s")
	at := ""
	if res > 0 { // the coarsest resolution: it disagrees at every one
		at = " even at " + resText(res)
	}
	if !b.within(real, sim, attempts) || !late.asked {
		return fmt.Sprintf("%s's %s%s is %s against the simulator's %s, outside its band", cohort, name, at, valueText(b.Name, real), valueText(b.Name, sim))
	}
	return fmt.Sprintf("%s's %s%s is %s, nearer this harness's lateness (%s in the model) than the simulator's %s", cohort, name, at, valueText(b.Name, real), valueText(b.Name, late), valueText(b.Name, sim))
}

// valueText writes a figure as the summary's table does; "never" for a
// recovery that never came.
func valueText(name string, f figure) string {
	if !f.ok {
		return "never"
	}
	return figureText(name, f.v)
}

// decideByLimits is the verdict of a run without a model to compare with:
// the self-check's limits (Judge) decide, and it is never exact.
func decideByLimits(s *Summary, rem Remedy) *Verdict {
	h := s.Harness
	if h.Trustworthy {
		return &Verdict{Outcome: Holds, Sentence: fmt.Sprintf("Holds: there is no model of this run to compare with, and its harness kept within the lateness this scenario's timescales allow (%s).", lagText(h.LimitMS))}
	}
	what := "the harness could not keep up"
	if len(h.Warnings) > 0 {
		what = strings.TrimSuffix(h.Warnings[0], ".")
	}
	v := &Verdict{Outcome: NotTrustworthy, SlowMotion: rem.SlowMotion}
	v.Sentence = "NOT TRUSTWORTHY: " + what + "; " + remedy(rem) + "."
	return v
}

// remedy says, in a few words, what to do about a run that is not
// trustworthy: run it again in slow motion (with its wall time), or
// where slow motion cannot help, on more cores or with fewer clients.
func remedy(rem Remedy) string {
	if k := rem.SlowMotion; k > 0 {
		wall, flags := time.Duration(k)*rem.Wall, ""
		if rem.Together {
			flags = "--cohorts together "
		}
		return fmt.Sprintf("run it with %s--slow-motion %d (about %s)", flags, k, wall.Round(time.Second))
	}
	return "run it on a quieter machine with more cores, with fewer clients, or in virtual time (--sim)"
}

// resText writes a resolution as "50 ms".
func resText(d time.Duration) string { return fmt.Sprintf("%d ms", d/time.Millisecond) }

// ms returns d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Predict returns the outcome, and the resolution of its figures of
// waves, that the verdict gives a run whose every cohort's figures are
// Real against Sim (Late is not read): given the model's figures with a
// harness's lateness as Real, what a run on a harness that late can
// expect.
func Predict(ev []Evidence, faults bool) (Judgement, time.Duration) {
	plain := make([]Evidence, len(ev))
	for i, e := range ev {
		plain[i] = Evidence{Cohort: e.Cohort, Real: e.Real, Sim: e.Sim}
	}
	j := judge(plain, faults)
	return j.outcome, j.res
}

// MergeVerdicts returns the verdict of a run merged from its shards,
// whose own verdicts are vs, each shard's index in shards: the worst of
// them, its sentence naming its shard (each shard was judged against the
// simulator's run of its own share); nil when some shard has none, for
// the caller to judge the merged run by the self-check's limits.
func MergeVerdicts(vs []*Verdict, shards []int) *Verdict {
	var worst *Verdict
	at := 0
	rank := map[Judgement]int{Exact: 0, Holds: 1, NotTrustworthy: 2}
	for i, v := range vs {
		if v == nil {
			return nil
		}
		if worst == nil || rank[v.Outcome] > rank[worst.Outcome] {
			worst, at = v, i
		}
	}
	if worst == nil {
		return nil
	}
	out := *worst
	switch out.Outcome {
	case Exact:
		out.Sentence = "Exact: every shard's headline figures agree with the simulator's for its share of the run and the same seed."
	default:
		head, rest, _ := strings.Cut(worst.Sentence, ": ")
		out.Sentence = fmt.Sprintf("%s: shard %d: %s", head, shards[at], rest)
	}
	out.Figures = nil
	for i, v := range vs {
		for _, f := range v.Figures {
			f.Cohort = fmt.Sprintf("%s (shard %d)", f.Cohort, shards[i])
			out.Figures = append(out.Figures, f)
		}
	}
	return &out
}

// BandOf returns the band of the headline figure name (Bands).
func BandOf(name string) (Band, bool) {
	for _, b := range Bands {
		if b.Name == name {
			return b, true
		}
	}
	return Band{}, false
}

// Within reports whether v is within b of ref (nil: missing: both missing
// agree, one does not), where attempts are the attempts of ref's run: the
// band alone, as a calibration corpus counts a run within it.
func (b Band) Within(v, ref *float64, attempts float64) bool {
	fig := func(p *float64) figure {
		if p == nil {
			return figure{}
		}
		return figure{v: *p, ok: true}
	}
	return b.within(fig(v), fig(ref), attempts)
}
