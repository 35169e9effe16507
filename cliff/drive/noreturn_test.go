package drive

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/cliff"
	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/internal/memnet"
)

// TestNoReturn: naive retries' run of metastable at seed 7 collapses; the
// point of no return is found inside the blip's window or after it, its
// interval around it, and continuations from the blip's very start (the
// trigger removed before it began) all recover. A run that recovers is
// refused, with what to do.
func TestNoReturn(t *testing.T) {
	op, _ := open(t, "metastable", 7)
	p := op.Plans[0]
	first, last, _ := p.Chaos.Span()
	var instants []time.Duration
	for at := first; at <= last+4*time.Second; at += 500 * time.Millisecond {
		instants = append(instants, at)
	}
	nr := &NoReturn{Plan: p, Strategy: "naive", Spec: cliff.NoReturnSpec{Instants: instants}}
	if underRace {
		// Too few to make collapse sure anywhere: the continuations on
		// the workers are raced, the point itself is checked without.
		nr.Spec.Runs = 12
	}
	if _, err := nr.Check(); err != nil {
		t.Fatal(err)
	}
	tallies, err := nr.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res := cliff.SummarizeNoReturn(nr.Spec, tallies)
	t.Logf("%+v", res)
	if underRace {
		return
	}
	if !res.Found || !res.Done || res.Instant <= first || res.Low > res.Instant || res.High < res.Instant {
		t.Fatalf("%+v", res)
	}
	if at0 := tallies[0]; at0.Collapsed != 0 || at0.Runs != cliff.DefaultContinuations {
		t.Errorf("from the blip's start, with the blip removed: %+v", at0)
	}
	ok := &NoReturn{Plan: p, Strategy: "grpc", Spec: nr.Spec}
	if _, err := ok.Check(); err == nil || !strings.Contains(err.Error(), "recovers") {
		t.Errorf("a recovering run: %v", err)
	}
}

// TestConfirm: the boundary of naive retries on metastable, found in
// virtual time, holds in the real engine (over an in-memory network, in
// a synctest bubble): the run at the value where every seed recovered
// recovers, the one where every seed collapsed collapses.
func TestConfirm(t *testing.T) {
	x, _ := cliff.ParseAxis("chaos[blip].for=0.5s..8s/0.5s")
	op, _ := open(t, "metastable", 7)
	sr := &Search{Scenario: op, Spec: cliff.Spec{X: x, Strategies: []string{"naive"}, Seeds: 8, MaxSeeds: 8}}
	rs, err := sr.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sides := Sides(cliff.Summarize(sr.Spec, rs))
	if len(sides) != 2 {
		t.Fatalf("sides %+v", sides)
	}
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		cf := &Confirm{Search: sr, Options: engine.Options{Network: engine.Network{Listen: n.Listen, Dial: n.Dial}, Mode: engine.Mode{NoSimReference: true}}}
		cs, sums, err := cf.Run(context.Background(), sides)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range cs {
			t.Logf("%s at %s: expect %s, recovery %v, verdict %s", c.Strategy, c.Text, c.Expect, c.RecoveryS, c.Verdict)
			if !c.Landed || sums[i] == nil {
				t.Errorf("%+v did not land", c)
			}
		}
	})
}
