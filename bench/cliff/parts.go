package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/herdbench/herdbench/cliff"
)

// noReturn finds the point of no return of naive's run of metastable.
func (b *bench) noReturn() error {
	args := []string{"metastable", "--no-return", "naive", "--seed", "7"}
	doc, _, wall, when, err := b.cliffRun(args...)
	if err != nil {
		return err
	}
	nr := doc.NoReturn
	runs := 0
	for _, p := range nr.Points {
		runs += p.Runs
	}
	fig := "none: collapse is not 95% certain from any instant probed"
	if nr.Found {
		fig = fmt.Sprintf("**%s** (%s after the blip began at %s; the blip ends at %s): between %s (surely not yet) and %s (surely)",
			secs(nr.Instant), secs(nr.Instant-nr.FaultStart), secs(nr.FaultStart), secs(nr.FaultEnd), secs(nr.Low), secs(nr.High))
	}
	fig += fmt.Sprintf("; %d instants probed, %d continuations, %s", len(nr.Points), runs, wall.Round(100*time.Millisecond))
	b.rows = append(b.rows, row{what: "point of no return of naive's run of metastable (seed 7), continued 60 times an instant with fresh randomness and the blip removed", figure: fig, command: command(append([]string{"cliff"}, args...)...), when: when})
	return nil
}

func secs(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s" }

// budget sizes three budgets for metastable's naive retries at its 6 s
// blip.
func (b *bench) budget() error {
	cases := []struct{ what, kind, vary string }{
		{"Envoy's retry budget (budget_percent; min_retry_concurrency 3)", "envoy", "strategies[naive].budget.budget_percent=1..100"},
		{"Finagle's RetryBudget with its defaults, which are Gateway API's retryConstraint's (GEP-3388: 20% over 10 s, at least 10 a second): percent_can_retry", "finagle", "strategies[naive].budget.percent_can_retry=0.05..5"},
		{"gRPC's retry throttling (token_ratio; max_tokens 10)", "grpc", "strategies[naive].budget.token_ratio=0.01..10"},
	}
	for _, c := range cases {
		args := []string{"metastable", "--strategies", "naive", "--set", "strategies[naive].budget.kind=" + c.kind, "--set", "strategies[naive].budget.scope=cohort", "--vary", c.vary, "--seed", "7"}
		doc, _, wall, when, err := b.cliffRun(args...)
		if err != nil {
			return err
		}
		s := doc.Search
		l := s.Strategies[0].Lines[0]
		fig := fmt.Sprintf("boundary %s (95%% interval %s); every seed recovers up to **%s**", medianText(s.X, l), intervalText(s.X, l), opt(s.X, l.Safe))
		if c := l.Cost; c != nil {
			fig += fmt.Sprintf("; success of the requests begun during the blip: **%s** there, %s at %s, %s at %s (%d seeds, %d runs, %s)",
				pct(c.AtSafe), pct(c.AtLow), s.X.Format(s.X.Lo), pct(c.AtHigh), s.X.Format(s.X.Hi), l.Seeds, s.Runs, wall.Round(100*time.Millisecond))
		}
		b.rows = append(b.rows, row{what: "budget sizing, metastable's naive at its 6 s blip: " + c.what, figure: fig, command: command(append([]string{"cliff"}, args...)...), when: when})
	}
	return nil
}

func opt(x cliff.Axis, v *float64) string {
	if v == nil {
		return "no value"
	}
	return x.Format(*v)
}

func pct(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", 100**v)
}

// huang replays Huang et al.'s retry rig.
func (b *bench) huang() error {
	const rig = "examples/huang-retry.yaml"
	cases := []struct{ what, set, paper string }{
		{"the rig (20% of capacity left, 370 requests a second)", "", "9 s recovers, 10 s stays stuck"},
		{"a milder cut (22.5% left, the paper's baseline)", "chaos[cpu].capacity=0.225", "10 s recovers"},
		{"a 25% lower rate (278 a second, the paper's reduced load)", "workload.rate=278", "10 s recovers"},
	}
	for _, c := range cases {
		args := []string{rig, "--vary", "chaos[cpu].for=1s..20s", "--seed", "7"}
		if c.set != "" {
			args = append(args, "--set", c.set)
		}
		doc, _, wall, when, err := b.cliffRun(args...)
		if err != nil {
			return err
		}
		s := doc.Search
		l := s.Strategies[0].Lines[0]
		b.rows = append(b.rows, row{what: "Huang et al.'s retry rig, the trigger's length: " + c.what + "; the paper: " + c.paper,
			figure: fmt.Sprintf("edge **%s** (95%% interval %s); every seed recovers up to **%s**, every seed collapses from **%s**; %d seeds, %d runs, %s",
				medianText(s.X, l), intervalText(s.X, l), opt(s.X, l.Safe), opt(s.X, l.Doomed), l.Seeds, s.Runs, wall.Round(100*time.Millisecond)),
			command: command(append([]string{"cliff"}, args...)...), when: when})
	}
	args := []string{rig, "--vary", "chaos[cpu].for=1s..20s", "--vary", "workload.rate=250..450/10", "--seeds", "8", "--max-seeds", "16", "--seed", "7"}
	doc, _, wall, when, err := b.cliffRun(args...)
	if err != nil {
		return err
	}
	s := doc.Search
	var pts []string
	for _, l := range s.Strategies[0].Lines {
		pts = append(pts, fmt.Sprintf("%s/s: %s", s.Y.Format(*l.Y), medianText(s.X, l)))
	}
	b.rows = append(b.rows, row{what: "Huang et al.'s retry rig: the edge traced over the arrival rate",
		figure:  strings.Join(pts, "; ") + fmt.Sprintf(" (%d runs, %s)", s.Runs, wall.Round(100*time.Millisecond)),
		command: command(append([]string{"cliff"}, args...)...), when: when})
	return nil
}

// confirm runs metastable's boundaries on sockets.
func (b *bench) confirm() error {
	args := []string{"metastable", "--vary", "chaos[blip].for=0.5s..14s", "--strategies", "naive,full-jitter", "--seed", "7", "--confirm"}
	if b.slow > 1 {
		args = append(args, "--slow-motion", strconv.Itoa(b.slow))
	}
	doc, _, wall, when, err := b.cliffRun(args...)
	if err != nil {
		return err
	}
	for _, c := range doc.Confirm {
		got := "collapsed"
		if c.RecoveryS != nil {
			got = fmt.Sprintf("recovered in %.2f s", *c.RecoveryS)
		}
		landed := "**landed on its side**"
		switch {
		case c.Flagged():
			landed = "**not on its side, flagged by its verdict**"
		case !c.Landed:
			landed = "**NOT on its side**"
		}
		b.rows = append(b.rows, row{what: fmt.Sprintf("on sockets: metastable's %s at chaos[blip].for=%s (the search: every seed %s there)", c.Strategy, c.Text, c.Expect),
			figure:  fmt.Sprintf("%s: %s; verdict %s (%s)", got, landed, c.Verdict, c.Sentence),
			command: command(append([]string{"cliff"}, args...)...), when: when + fmt.Sprintf(", %s in all", wall.Round(time.Second))})
	}
	return nil
}
