package drive

import (
	"context"
	"fmt"
	"math"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/cliff"
	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
)

// Confirm runs, on sockets, each boundary a one-field search found: the
// scenario at the value nearest the collapsing side at which every seed
// recovered, and at the value nearest the recovering side at which every
// seed collapsed, each cohort alone with the root seed, each run judged
// by its verdict.
type Confirm struct {
	Search *Search
	// Options are the real runs' (Version, SlowMotion; in tests an
	// in-memory network); Runs and Sim are Confirm's own.
	Options engine.Options
	// Before, if set, is told of each real run before it starts.
	Before func(c cliff.Confirmation)
}

// Sides returns the real runs a summary asks for: two per strategy whose
// boundary is inside the grid, none with two fields.
func Sides(sum cliff.Summary) []cliff.Confirmation {
	if sum.Y != nil {
		return nil
	}
	var out []cliff.Confirmation
	for _, st := range sum.Strategies {
		l := st.Lines[0]
		if !l.Complete || !l.Found || l.Safe == nil || l.Doomed == nil {
			continue
		}
		out = append(out,
			cliff.Confirmation{Strategy: st.Name, Value: *l.Safe, Text: sum.X.Format(*l.Safe), Expect: cliff.Recovered},
			cliff.Confirmation{Strategy: st.Name, Value: *l.Doomed, Text: sum.X.Format(*l.Doomed), Expect: cliff.Collapsed})
	}
	return out
}

// Run makes the real runs sides asks for and returns them with where each
// landed and the summary of each; when ctx ends, those made so far with
// ctx's error.
func (cf *Confirm) Run(ctx context.Context, sides []cliff.Confirmation) ([]cliff.Confirmation, []*results.Summary, error) {
	var out []cliff.Confirmation
	var sums []*results.Summary
	x := cf.Search.Spec.X
	for _, c := range sides {
		p, err := cf.Search.plan(int(math.Round((c.Value-x.Lo)/x.Step)), 0)
		if err != nil {
			return out, sums, err
		}
		i := strategyIndex(p, c.Strategy)
		if i < 0 {
			return out, sums, fmt.Errorf("%s has no strategy %q", p.Name, c.Strategy)
		}
		q := *p
		q.Strategies = []clients.Strategy{p.Strategies[i]}
		q.Thresholds = nil // gates are another question
		o := cf.Options
		o.Sim, o.Runs = false, 1
		if err := engine.CheckSlowMotion(&q, o); err != nil {
			return out, sums, err
		}
		if cf.Before != nil {
			cf.Before(c)
		}
		pts, err := engine.Execute(ctx, []*scenarios.Plan{&q}, o)
		if err != nil {
			return out, sums, err
		}
		s := pts[0].Output.Summary
		if s.Partial || len(s.Runs) == 0 {
			return out, sums, ctx.Err()
		}
		c.RecoveryS = s.Runs[0].RecoveryS
		c.Landed = !Collapsed(&q, 0, engine.Window(&q), c.RecoveryS) == (c.Expect == cliff.Recovered)
		if v := s.Verdict; v != nil {
			c.Verdict, c.Sentence = string(v.Outcome), v.Sentence
		}
		out = append(out, c)
		sums = append(sums, s)
	}
	return out, sums, nil
}
