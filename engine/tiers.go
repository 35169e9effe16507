package engine

import (
	"fmt"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/clients/swarm"
	"github.com/herdbench/herdbench/internal/netguard"
	"github.com/herdbench/herdbench/internal/slowmo"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/seeds"
	"github.com/herdbench/herdbench/sim"
	"github.com/herdbench/herdbench/target"
	"github.com/herdbench/herdbench/target/model"
)

// A chain of tiers (scenarios.Plan.Tiers) runs in both engines from one
// model: every tier is a model.Model with its own chaos plan, and every
// tier that calls another calls it with its own strategy, a fresh client
// per call. In virtual time the simulator drives the chain (sim/tiers.go);
// in real time every tier is a target.Server on 127.0.0.1, each middle one
// calling the next through a swarm.Relay (target.Options.Call). Each
// cohort records the attempts that reached its first tier in its recorder
// and those that reached tier k+1 in below[k].

var _ target.Caller = (*swarm.Relay)(nil)

// tierNames returns the names of p's tiers, nil for a single target.
func tierNames(p *scenarios.Plan) []string {
	var out []string
	for _, t := range p.Tiers {
		out = append(out, t.Name)
	}
	return out
}

// newBelow returns, for a chain, one recorder made by mk for each tier
// but the first; nil for a single target.
func newBelow(p *scenarios.Plan, mk func() *results.Recorder) []*results.Recorder {
	if len(p.Tiers) < 2 {
		return nil
	}
	out := make([]*results.Recorder, len(p.Tiers)-1)
	for i := range out {
		out[i] = mk()
	}
	return out
}

// simCohort returns cohort ci of p for the simulator, under seed, its
// tiers' calls recorded in below.
func simCohort(p *scenarios.Plan, ci int, seed uint64, below []*results.Recorder) *sim.Cohort {
	co := &sim.Cohort{
		Target: p.Target, Chaos: p.Chaos, Workload: &p.Workload,
		Strategy: &p.Strategies[ci], Duration: p.Duration, Seed: seed,
		GRPC: p.GRPC, Shared: p.Shared,
	}
	if len(p.Tiers) > 0 {
		for _, t := range p.Tiers {
			co.Tiers = append(co.Tiers, sim.Tier{Target: t.Target, Chaos: t.Chaos})
		}
		co.Below = below
	}
	return co
}

// tierWaste puts each tier's wasted work into run's tiers.
func tierWaste(run *results.Run, stats []model.Stats) {
	for k := range run.Tiers {
		if k < len(stats) {
			run.Tiers[k].WastedWork = stats[k].Wasted
		}
	}
}

// chain is one cohort's tiers in real time: a server per tier, the bottom
// one last, and the relays of the tiers that call another.
type chain struct {
	servers []*target.Server
	relays  []*swarm.Relay
}

// tierTarget returns the random stream id of tier k of n: the bottom one
// draws as a single target does (seeds.TierTarget).
func tierTarget(k, n int) uint64 {
	if k == n-1 {
		return seeds.Target
	}
	return seeds.TierTarget(k)
}

// startChain starts cohort st's tiers of p, from the bottom one up (each
// middle tier needs the address of the next): each on its own loopback
// port, on the run's clock from origin.
func startChain(p *scenarios.Plan, st *clients.Strategy, origin time.Time, slow slowmo.Factor, listen target.ListenFunc, dial swarm.DialFunc, below []*results.Recorder, limits netguard.Limits) (*chain, error) {
	n := len(p.Tiers)
	c := &chain{servers: make([]*target.Server, n), relays: make([]*swarm.Relay, n-1)}
	for k := n - 1; k >= 0; k-- {
		t := p.Tiers[k]
		o := target.Options{
			Config: t.Target, Plan: t.Chaos, RNG: seeds.Stream(p.Seed, tierTarget(k, n)),
			Origin: origin, Listen: listen, Limits: limits, Slow: slow,
		}
		if k < n-1 {
			rl, err := swarm.NewRelay(swarm.RelayOptions{
				URL: c.servers[k+1].URL() + "/", Strategy: &st.Tiers[k], Tier: k,
				Seed: p.Seed, Origin: origin, Duration: p.Duration, Rec: below[k], Dial: dial, Slow: slow,
			})
			if err != nil {
				c.close()
				return nil, fmt.Errorf("engine: tier %s's calls: %w", t.Name, err)
			}
			c.relays[k], o.Call = rl, rl
		}
		srv, err := target.Listen(o)
		if err != nil {
			c.close()
			return nil, fmt.Errorf("engine: starting tier %s: %w", t.Name, err)
		}
		c.servers[k] = srv
	}
	return c, nil
}

// entry is the tier the clients call.
func (c *chain) entry() *target.Server { return c.servers[0] }

// bottom is the bottom tier.
func (c *chain) bottom() *target.Server { return c.servers[len(c.servers)-1] }

// close stops the tiers from the top down, so that each middle tier's
// calls are cancelled before the tier they call closes, then the relays'
// connections.
func (c *chain) close() {
	for k, srv := range c.servers {
		if srv != nil {
			_ = srv.Close()
		}
		if k < len(c.relays) && c.relays[k] != nil {
			c.relays[k].Close()
		}
	}
}

// stats returns every tier's model counters, in order.
func (c *chain) stats() []model.Stats {
	out := make([]model.Stats, len(c.servers))
	for k, srv := range c.servers {
		out[k] = srv.Stats()
	}
	return out
}
