package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/internal/slowmo"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/results/report"
	"github.com/herdbench/herdbench/results/terminal"
)

// The end of a scenario command is one path, the same for one run and for
// a sweep of client counts (a point each). engine.Execute has assembled
// every point's summary alike (each cohort's figures, with stats over the
// repetitions, the thresholds checked over all of them, a shard's marks
// and the thresholds it leaves to the merge): this only reads it. Then:
//
//  1. write: the results folder's data, into a hidden folder
//  2. report: report.html and the PNGs, drawn from that data
//  3. publish: the hidden folder renamed into place, whole
//  4. terminal: the answer (each verdict in a sentence, the comparison
//     table in brief, the sparklines, the thresholds in brief, the
//     results folder: at most 20 lines at 120 columns for the main job),
//     and with --explain everything else: every table in full, what the
//     figures mean, the self-check and its advice (on stderr with --json,
//     which puts summary.json on stdout)
//  5. --junit's report and --json's summary
//  6. exit code: 130 if interrupted, 1 if a file or the figures could not
//     be written, else 3 if a threshold failed anywhere
//
// The shape decides only which files the folder holds (a run's, with its
// report, or a sweep's: sweep.csv and a summary per point) and which table
// shows the figures (a run's comparison, or the sweep's means).

// answerColumns is the width the answer a run ends with holds to.
const answerColumns = 120

// ending is what a scenario command ran: one point, or one per client
// count of a sweep, each with its summary.
type ending struct {
	points  []engine.Point
	sweep   bool
	command string // the subcommand that ran it, "scenario" or "merge", for its messages
	explain bool   // --explain: every table and what the figures mean, after the answer
	// allow is --allow-untrustworthy: a verdict not trustworthy sets no
	// exit code.
	allow bool
	// stop, when set, drops the results folder if it ends before the
	// folder is published: a merge's interrupt, after which nothing is
	// written (the shards are still there to merge again). A scenario's
	// interrupt writes what was recorded instead: nil.
	stop context.Context
}

// errStopped is save's error when ending.stop ended first: nothing written.
var errStopped = errors.New("interrupted; nothing was written")

// finish ends the run of command ("scenario" or "merge") and returns the
// exit code. dir is set once the results folder is in place. stop is
// ending.stop: nil but for a merge.
func finish(stdout, stderr io.Writer, command string, f *scenarioFlags, points []engine.Point, sweep bool, dir *string, stop ...context.Context) int {
	e := &ending{points: points, sweep: sweep, command: command, explain: f.explain, allow: f.allowUntrustworthy}
	if len(stop) > 0 {
		e.stop = stop[0]
	}
	summaries := e.summaries()
	var werr error
	*dir, werr = e.save(f)
	if errors.Is(werr, errStopped) {
		fmt.Fprintf(stderr, "herdbench %s: %v\n", command, werr)
		return exitSignal
	}
	// Every line of the ending goes through one of these: the first write
	// that fails is kept, and said at the end instead of being lost.
	errw := &stickyWriter{w: stderr}
	text := errw // with --json, stdout is the JSON's alone
	if !f.json {
		text = &stickyWriter{w: stdout}
	}
	serr := e.show(text)
	e.warn(errw)
	oerr := writeOutputs(f, e, stdout)
	if oerr != nil {
		fmt.Fprintln(errw, "herdbench:", oerr)
	}
	if werr != nil {
		fmt.Fprintln(errw, "herdbench:", werr)
		if *dir == "" {
			e.rescue(f, errw)
			return exitFailed
		}
	}
	if *dir != "" {
		fmt.Fprintln(text, "results:", *dir)
		if page := reportIn(*dir); page != "" {
			fmt.Fprintln(text, "report:", page)
		}
	}
	// show's error is its writer's: the first write that failed.
	terr := errors.Join(cmp.Or(text.err, serr), errw.err)
	if text.err != nil && text != errw {
		fmt.Fprintln(errw, "herdbench: the figures could not be written out:", text.err)
	}
	if (werr != nil || oerr != nil || terr != nil) && !summaries[0].Partial {
		return exitFailed
	}
	return exitCodeOf(summaries, f.allowUntrustworthy, e.saysExit5(), errw)
}

// stickyWriter writes to w until a write fails, then writes nothing more
// and keeps that first error (err), so a sequence of writes can be
// checked once at its end.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	s.err = err
	return n, err
}

// reportIn returns the path of the results folder dir's report.html, the
// file to open, as 'herdbench report' names it; "" when the report could
// not be drawn.
func reportIn(dir string) string {
	page := filepath.Join(dir, "report.html")
	if st, err := os.Stat(page); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	return page
}

// summaries are the points' summaries, in order.
func (e *ending) summaries() []*results.Summary {
	out := make([]*results.Summary, len(e.points))
	for i, p := range e.points {
		out[i] = p.Output.Summary
	}
	return out
}

// label names a point on the terminal: "" for a run,
// "workload.clients=20" for a sweep's.
func (e *ending) label(s *results.Summary) string {
	if !e.sweep {
		return ""
	}
	return results.PointLabel(s.Point)
}

// save writes the results folder into a hidden folder, draws its report
// there and renames it into place only once complete: a run killed
// meanwhile leaves no results folder without its report. A report that
// fails to draw leaves the data, complete, in place (herdbench report DIR
// draws it again) and returns the error.
func (e *ending) save(f *scenarioFlags) (string, error) {
	first := e.points[0].Output.Summary
	suffix := ""
	if sh := first.Shard; sh != nil {
		suffix = sh.FolderSuffix() // every shard of a run may write into one folder
	}
	path, err := folder.FolderIn(f.out, first.Scenario, first.Started, suffix)
	if err != nil {
		return "", err
	}
	st, err := folder.Stage(path)
	if err != nil {
		return "", err
	}
	if err := e.write(st.Dir); err != nil {
		st.Discard()
		return "", err
	}
	if e.stopped() {
		st.Discard()
		return "", errStopped
	}
	rerr := e.report(st.Dir, f)
	if e.stopped() {
		st.Discard()
		return "", errStopped
	}
	dir, err := st.Publish()
	if err != nil {
		return "", err
	}
	if rerr != nil && (len(e.points[0].Output.Cohorts) > 0 || e.sweep && !first.Partial) {
		rerr = fmt.Errorf("drawing the report: %s; the data is in place, 'herdbench report %s' draws it again", strings.ReplaceAll(rerr.Error(), st.Dir, dir), dir)
	}
	return dir, rerr
}

// stopped reports whether ending.stop has ended.
func (e *ending) stopped() bool { return e.stop != nil && e.stop.Err() != nil }

// rescue keeps the figures of a run whose results folder could not be
// written (a disk that filled up meanwhile): summary.json, or a sweep's
// summaries as a JSON list, into the first of rescueDirs that takes it,
// else on stderr; and says where.
func (e *ending) rescue(f *scenarioFlags, stderr io.Writer) {
	first := e.points[0].Output.Summary
	var data []byte
	var err error
	if e.sweep {
		data, err = json.MarshalIndent(e.summaries(), "", "  ")
	} else {
		data, err = folder.EncodeSummary(first)
	}
	if err != nil {
		fmt.Fprintln(stderr, "herdbench: the summary could not be encoded either:", err)
		return
	}
	name := folder.DirName(first.Scenario, first.Started) + ".summary.json"
	for _, d := range rescueDirs(f.out) {
		path := filepath.Join(d, name)
		if err := folder.WriteFileAtomic(path, data); err == nil {
			fmt.Fprintf(stderr, "herdbench: the figures are saved in %s (the summary alone: the timelines, histograms and report were lost)\n", path)
			return
		}
	}
	fmt.Fprintf(stderr, "herdbench: the summary could not be saved anywhere; here it is:\n%s\n", data)
}

// rescueDirs are where rescue tries to save a summary: the temporary
// folder (often another file system than --out), then --out's parent.
func rescueDirs(out string) []string {
	return []string{os.TempDir(), filepath.Dir(filepath.Clean(out))}
}

// write writes the folder's data: a run's files, or a sweep's.
func (e *ending) write(dir string) error {
	if e.sweep {
		return folder.WriteSweep(dir, e.summaries(), e.points[0].Plan.Resolved)
	}
	return folder.Write(dir, e.points[0].Output)
}

// report draws report.html and the PNGs from the data in dir: a run's, or
// a sweep's (its figures against the swept fields) once a point finished.
func (e *ending) report(dir string, f *scenarioFlags) error {
	switch {
	case e.sweep && e.points[0].Output.Summary.Partial:
		return errors.New("no report: the sweep was interrupted before its first point finished; its summary holds what was recorded")
	case e.sweep:
	case len(e.points[0].Output.Cohorts) == 0:
		// A simulation interrupted before every cohort's first run
		// ended keeps no timelines: its figures are all there is.
		return errors.New("no report: the simulation was interrupted before its timelines were complete; summary.json holds the figures of the runs that ended")
	}
	return renderReport(dir, report.Options{Version: herdbenchVersion(), NoPNG: f.noPNG})
}

// show prints the answer on w: whether the figures are partial, each
// verdict, the run's tables or the sweep's, then every point's thresholds;
// it returns the first error writing them.
func (e *ending) show(w io.Writer) error {
	summaries := e.summaries()
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	for _, s := range summaries {
		if n := terminal.PartialNotice(s); n != "" {
			if _, err := fmt.Fprintln(w, n); err != nil {
				return err
			}
			break
		}
	}
	if err := e.showVerdicts(w); err != nil {
		return err
	}
	stats := func(w io.Writer, ss []*results.Summary) error { return terminal.RenderStatsBrief(w, ss, answerColumns) }
	if e.explain {
		stats = terminal.RenderStatsTable
	}
	if e.sweep {
		if err := stats(w, summaries); err != nil {
			return err
		}
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
	} else if err := printRun(w, &e.points[0].Output, e.explain, stats); err != nil {
		return err
	}
	render := terminal.RenderThresholdsBrief
	switch {
	case e.explain:
		render = terminal.RenderThresholds
	case e.saysExit5():
		render = untrustedThresholds
	}
	// The points' checks a blank line apart, the results folder's line
	// right under the last (the answer holds to 20 lines).
	sep := ""
	for _, s := range summaries {
		if len(s.Thresholds) == 0 {
			continue
		}
		if _, err := fmt.Fprint(w, sep+thresholdsLead(e.label(s), s)); err != nil {
			return err
		}
		if err := render(w, s.Thresholds); err != nil {
			return err
		}
		sep = "\n"
	}
	return nil
}

// saysExit5 reports whether the answer's thresholds line says that the
// run exits 5 (untrustedThresholds): a single run's, not trustworthy,
// with thresholds, without --allow-untrustworthy or --explain.
func (e *ending) saysExit5() bool {
	s := e.summaries()[0]
	return !e.sweep && !e.explain && !e.allow && !s.Verdict.Trusted() && len(s.Thresholds) > 0
}

// untrustedThresholds is the answer's thresholds line of a run whose
// verdict is not trustworthy: one line, with the exit code, since
// figures that cannot be taken at their word judge no threshold
// (--explain lists them).
func untrustedThresholds(w io.Writer, rs []results.ThresholdResult) error {
	what := fmt.Sprintf("all %d passed", len(rs))
	if n := results.ThresholdsFailed(rs); n > 0 {
		what = fmt.Sprintf("%d of %d FAILED", n, len(rs))
	}
	_, err := fmt.Fprintf(w, "thresholds: %s, on figures not trustworthy: exit code %d (--allow-untrustworthy: %d)\n",
		what, exitUntrustworthy, cmp.Or(min(results.ThresholdsFailed(rs), 1)*exitThresholds, exitOK))
	return err
}

// showVerdicts prints each point's verdict (a real run's), a sweep's with
// its point's label, then a blank line; nothing in virtual time.
func (e *ending) showVerdicts(w io.Writer) error {
	some := false
	for _, s := range e.summaries() {
		lead := ""
		if l := e.label(s); l != "" {
			lead = l + ": "
		}
		if err := terminal.RenderVerdict(w, s, lead, answerColumns); err != nil {
			return err
		}
		some = some || s.Verdict != nil
	}
	if !some {
		return nil
	}
	_, err := fmt.Fprintln(w)
	return err
}

// thresholdsLead is what goes before a summary's "thresholds: ..." line:
// the sweep point's label, and for an interrupted run that its checks saw
// only the part recorded ("partial run, to 3.7s of 10s: "), so that a
// pass at the bottom of the output is not read as the whole run's.
func thresholdsLead(label string, s *results.Summary) string {
	var parts []string
	if label != "" {
		parts = append(parts, label)
	}
	if s.Partial {
		p := "partial run"
		if s.EndedS != nil {
			p += fmt.Sprintf(", to %.1fs of %gs", *s.EndedS, s.DurationS)
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, ", ") + ": "
}

// warn prints on stderr what the figures need said beside them: an
// interrupted run, cohorts that never succeeded, and with --explain a
// harness that could not keep up, why and what would; for every point.
func (e *ending) warn(stderr io.Writer) {
	summaries := e.summaries()
	for _, s := range summaries {
		if s.Partial {
			fmt.Fprintln(stderr, interruptedLine(e.command))
			break
		}
	}
	for i, s := range summaries {
		at, what := "", "these figures"
		if l := e.label(s); l != "" {
			at, what = " at "+l, "the figures at "+l
		}
		warnNoSuccess(stderr, s, at, e.points[i].Plan != nil && e.points[i].Plan.GRPC)
		if !e.explain {
			continue // the verdict says it in a sentence
		}
		slowable := engine.CheckSlowMotion(e.points[i].Plan, engine.Options{Mode: engine.Mode{SlowMotion: 2}}) == nil
		warnHarness(stderr, s, what, slowable)
	}
}

// interruptedLine says on stderr that command's results are partial: the
// scenario command was interrupted, or for a merge one of its shards was
// (the merged figures end where it stopped).
func interruptedLine(command string) string {
	if command == "merge" {
		return "herdbench merge: a shard was interrupted; the merged results end where it stopped and are marked partial"
	}
	return "herdbench " + command + ": interrupted; the results cover what was recorded and are marked partial"
}

// exitCodeOf maps a finished run to the exit code: interrupted beats a
// verdict not trustworthy (unless allowed: --allow-untrustworthy), which
// beats failed thresholds: a threshold read on figures that cannot be
// taken at their word says nothing of the strategy. The exit's line is
// left out where the answer said it (said: untrustedThresholds).
func exitCodeOf(summaries []*results.Summary, allow, said bool, stderr io.Writer) int {
	failed, checked, untrusted := 0, 0, 0
	for _, s := range summaries {
		if s.Partial {
			return exitSignal
		}
		failed += results.ThresholdsFailed(s.Thresholds)
		checked += len(s.Thresholds)
		if !s.Verdict.Trusted() {
			untrusted++
		}
	}
	where, verdict := "", "the verdict is not trustworthy"
	if len(summaries) > 1 {
		where = fmt.Sprintf(" over the %d points of the sweep", len(summaries))
		verdict = fmt.Sprintf("the verdict of %d of the %d points of the sweep is not trustworthy", untrusted, len(summaries))
	}
	switch {
	case untrusted > 0 && !allow:
		if !said {
			fmt.Fprintf(stderr, "herdbench: %s (exit code %d; --allow-untrustworthy: %d)\n", verdict, exitUntrustworthy, cmp.Or(min(failed, 1)*exitThresholds, exitOK))
		}
		return exitUntrustworthy
	case failed > 0:
		fmt.Fprintf(stderr, "herdbench: %d of %d threshold checks failed%s (exit code %d)\n", failed, checked, where, exitThresholds)
		return exitThresholds
	}
	return exitOK
}

// printRun prints a single run's figures: the comparison table in brief
// (in full with explain), the tiers' and repetitions' tables (stats) where
// the run has them and the sparklines; with explain also the policies, the
// reading of the figures and the self-check. It returns the first error
// writing them.
func printRun(w io.Writer, out *folder.Output, explain bool, stats func(io.Writer, []*results.Summary) error) error {
	s := out.Summary
	timelines := make([]results.Timeline, len(out.Cohorts))
	for i, c := range out.Cohorts {
		timelines[i] = c.Rec.Timeline(results.Bucket)
	}
	nameW := len("faults")
	for _, r := range s.Runs {
		nameW = max(nameW, len(r.Strategy))
	}
	table := func(w io.Writer, s *results.Summary) error { return terminal.RenderBrief(w, s, answerColumns) }
	if explain {
		table = terminal.RenderTable
	}
	steps := []func() error{
		func() error {
			if s.Repetitions <= 1 {
				return nil
			}
			_, err := fmt.Fprintf(w, "The first of %d repetitions (seed %d); mean ± sd over all of them below.\n", s.Repetitions, s.Seed)
			return err
		},
		func() error { return table(w, s) },
		blankLine(w),
		func() error {
			if len(s.Runs) == 0 || len(s.Runs[0].Tiers) == 0 {
				return nil
			}
			if explain {
				return joinBlank(w, terminal.RenderTiers(w, s))
			}
			return joinBlank(w, terminal.RenderTiersBrief(w, s, answerColumns))
		},
		func() error {
			if r := s.Runs; s.Repetitions <= 1 && (len(r) == 0 || r[0].Calls == nil && r[0].CompletionS == nil) {
				return nil
			}
			return joinBlank(w, stats(w, []*results.Summary{s}))
		},
		func() error {
			if !explain {
				return nil
			}
			return terminal.RenderPolicies(w, s)
		},
		func() error {
			return joinBlank(w, terminal.RenderSparklines(w, s, timelines, min(100, answerColumns-nameW-1)))
		},
	}
	if explain {
		steps = append(steps, func() error { return printExplanations(w, s) })
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// printExplanations prints what the figures mean (results.Explain), a
// bullet each, and the self-check's line.
func printExplanations(w io.Writer, s *results.Summary) error {
	for _, line := range results.Explain(s) {
		if _, err := fmt.Fprintln(w, "- "+line); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	if line := results.SelfCheckLine(s); line != "" {
		_, err := fmt.Fprintf(w, "%s\n\n", line)
		return err
	}
	return nil
}

// blankLine is a step that prints a blank line.
func blankLine(w io.Writer) func() error {
	return func() error {
		_, err := fmt.Fprintln(w)
		return err
	}
}

// joinBlank prints a blank line after a table unless writing it failed
// (err).
func joinBlank(w io.Writer, err error) error {
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w)
	return err
}

// warnNoSuccess says so when a cohort sent attempts and none succeeded: a
// target that is down or a wrong URL, rather than a result to compare. at
// names a sweep's point (" at 20 clients"), "" for a run; grpc says the
// target speaks gRPC (the plan's, as the summary does not record it), so
// the warning speaks of the gRPC status its clients saw.
func warnNoSuccess(w io.Writer, s *results.Summary, at string, grpc bool) {
	for _, r := range s.Runs {
		if r.Attempts == 0 || r.Outcomes["ok"] > 0 {
			continue
		}
		top, n := results.Outcome(0), int64(-1)
		for o := results.Outcome(0); o < results.NumOutcomes; o++ {
			if v := r.Outcomes[o.String()]; v > n {
				top, n = o, v
			}
		}
		where := "the embedded target"
		if s.Target != "" {
			where = s.Target
		}
		most, answer := fmt.Sprintf("%s: %d", top, n), "answering 2xx"
		if grpc {
			if g := grpcOutcomeWords[top]; g != "" {
				most += ", " + g
			}
			answer = "ending calls with status OK"
		}
		fmt.Fprintf(w, "herdbench: warning: not one of %s's %d attempts%s succeeded (most were %s); is %s up and %s?\n", r.Strategy, r.Attempts, at, most, where, answer)
	}
}

// grpcOutcomeWords says in gRPC's terms what a gRPC client saw of an
// attempt with each outcome (clients.GRPCOutcome reads the codes so).
var grpcOutcomeWords = [results.NumOutcomes]string{
	results.HTTP5xx: "gRPC status UNAVAILABLE, INTERNAL, UNKNOWN or another failure of the server",
	results.HTTP429: "gRPC status RESOURCE_EXHAUSTED",
	results.HTTP4xx: "gRPC status UNIMPLEMENTED, INVALID_ARGUMENT or another of the caller's mistakes",
	results.Timeout: "DEADLINE_EXCEEDED",
	results.Refused: "UNAVAILABLE: no connection to the target",
	results.Reset:   "UNAVAILABLE: the connection went under the call",
}

// warnHarness says so when a real run's self-check found the harness too
// late for the scenario's timescales: its figures describe the machine as
// much as the strategies.
func warnHarness(w io.Writer, s *results.Summary, what string, slowable bool) {
	h := s.Harness
	if h == nil || h.Trustworthy {
		return
	}
	fmt.Fprintf(w, "herdbench: warning: the machine could not keep up, so %s are not trustworthy (\"trustworthy\": false in summary.json):\n", what)
	for _, line := range h.Warnings {
		fmt.Fprintln(w, "  - "+line)
	}
	fmt.Fprintln(w, "  Run it on a quieter machine, with fewer clients or cohorts (--strategies), or in virtual time (--sim), which is never late.")
	if on, nice := autogroup(); on && nice >= 0 {
		fmt.Fprintf(w, "  This machine shares its cores between sessions first (kernel.sched_autogroup_enabled = 1; this session's autogroup nice %d), so nice alone does not lift herdbench above other sessions' work: run it in a session of its own at a lower autogroup nice (setsid sh -c 'echo -10 > /proc/self/autogroup && exec herdbench ...', as root), or stop the other work.\n", nice)
	}
	if sp := h.SpreadMS; sp != nil && h.LimitMS > 0 && sp.P99 > h.LimitMS {
		// The crash's spread has a floor of its own: the sockets. --cohorts
		// apart is advice only where the cohorts shared the machine.
		apart := ""
		if !s.CohortsApart && len(s.Runs) > 1 {
			apart = ", or --cohorts apart"
		}
		fmt.Fprintf(w, "  A crash's clients learn of it one after the other, as fast as this machine's cores take the resets and reconnects (go run ./bench/stampede -crash 1000 measures that floor): more cores or fewer clients per machine (split the run: --shard)%s tighten it.\n", apart)
		// The model's second opinion may need more than the waves' width
		// says (a figure that hangs on a millisecond): the advice takes the
		// larger, so its two lines never disagree with the warnings above.
		need := 0
		for _, r := range s.Runs {
			need = max(need, r.LatenessNeeds)
		}
		k, waves := needFactor(sp.P99, h.LimitMS, need)
		fmt.Fprintln(w, "  "+spreadNeeds(h.LimitMS, h.CPU.Cores, k, waves))
		if slowable {
			fmt.Fprintln(w, "  "+slowNeeds(k, s.SlowMotion, s.DurationS))
		}
	}
}

// autogroup reports whether the kernel shares the cores between sessions
// (autogroups) before processes, and this process's autogroup's nice: a
// process's own nice then counts only against its own session. Tests
// replace it.
var autogroup = func() (on bool, nice int) {
	b, err := os.ReadFile("/proc/sys/kernel/sched_autogroup_enabled")
	if err != nil || strings.TrimSpace(string(b)) != "1" {
		return false, 0
	}
	g, err := os.ReadFile("/proc/self/autogroup") // "/autogroup-793 nice 0"
	if err != nil {
		return false, 0
	}
	f := strings.Fields(string(g))
	if len(f) != 3 || f[1] != "nice" {
		return false, 0
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return false, 0
	}
	return true, n
}

// needFactor is how many times less late than here a run's harness must
// be, for a run whose clients learned of a crash over p99 ms (its spread)
// with its waves held within limit ms: p99 / limit, rounded up (the
// spread grows with the clients each core wakes and reconnects); or model,
// the factor the model's second opinion needs for the figures to hold
// (results.Run.LatenessNeeds, 0 if none), where that is larger (a figure
// that hangs on a millisecond). waves is the first of the two, which
// holds the waves alone. Both pieces of advice read k, so they never
// disagree.
func needFactor(p99, limit float64, model int) (k, waves int) {
	waves = int(math.Ceil(p99 / limit))
	return max(waves, model), waves
}

// spreadNeeds says what a run needs for its waves (within limit ms) and
// figures to hold: k (needFactor) times this machine's cores, or as many
// shards of this machine, or a k times smaller crowd; where k is the
// model's and more than waves (the factor that holds the waves alone), it
// says so.
func spreadNeeds(limit float64, cores, k, waves int) string {
	what := fmt.Sprintf("To hold its waves this run needs its clients to learn of a crash within %s, %d× tighter than here", trimMS(limit), k)
	if k > waves {
		what = fmt.Sprintf("To hold its figures this run needs a harness %d× less late than here (the model's second opinion; its clients learning of a crash within %s, %d× tighter, holds only its waves)", k, trimMS(limit), waves)
	}
	c := "its cores"
	if cores > 0 {
		c = fmt.Sprintf("%d cores", k*cores)
	}
	return fmt.Sprintf("%s: about %s (%d× this machine's) for these clients, or the clients split into %d shards on machines like this one (--shard 0/%d ... %d/%d), or a %d× smaller crowd.",
		what, c, k, k, k, k-1, k, k)
}

// slowNeeds says what slow motion would make a run's harness k times less
// late (needFactor), at slow motion already (0: real speed): the harness's
// spread does not slow down, so a factor k times the run's tightens it
// that much in the scenario's time.
func slowNeeds(k, already int, durationS float64) string {
	k = min(max(1, already)*k, slowmo.Max)
	wall := time.Duration(float64(k) * durationS * float64(time.Second)).Round(time.Second)
	return fmt.Sprintf("Or on this machine, in slow motion: --slow-motion %d lives each second of the scenario %d times longer, so the harness's spread is %d× smaller in the scenario's time (one run of it then lasts about %s).", k, k, k, wall)
}

func trimMS(ms float64) string { return strconv.FormatFloat(ms, 'f', -1, 64) + "ms" }
