package scenarios

import (
	"github.com/herdbench/herdbench/internal/wire"
	"strings"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/results"
)

// compileServer compiles only what a standalone target or a chaos proxy
// reads from a scenario: name, duration, seed, the target's capacity model,
// the chaos plan, and the thresholds its recording of the traffic is
// checked against (serverThresholds). The rest (workload, strategies but
// their names) is the swarm's business and is neither required nor
// checked, so a file with only target and chaos sections serves. In a
// chain of tiers, the target is the tier o.Tier names (the bottom one by
// default), with that tier's faults. The returned Plan has only those
// fields set, and Resolved holds the file as written (unless it holds a
// secret: sourceMasked); its Chaos is never nil.
func (s *Scenario) compileServer(o Overrides) (*Plan, error) {
	f := s.File
	c := &compiler{s: s, errs: &Error{File: s.Filename}}
	p := &Plan{Name: f.Name, Description: strings.TrimSpace(f.Description)}
	// The name starts the name of the recording's results folders.
	if msg := nameProblem(f.Name); msg != "" {
		c.fail([]step{key("name")}, "%s", msg)
	}
	p.Duration = c.duration(&f.Duration, DefaultDuration, []step{key("duration")})
	if o.Duration > 0 {
		p.Duration = o.Duration
	}
	p.Seed = seedOf(o, &f)
	if len(f.Tiers) > 0 {
		c.tiers(&f, p, Overrides{})
	} else {
		p.Target = c.target(&f.Target, []step{key("target")})
		// A gRPC target (target.protocol: grpc) is served over gRPC by
		// herdbench target, and proxied over gRPC by herdbench proxy.
		c.grpc = c.protocol(&f.Target, &p.Target, []step{key("target")})
		p.GRPC = c.grpc
		if c.grpc {
			p.Method = f.Target.Method
		}
	}
	p.Chaos = c.chaos(f.Chaos, p.Duration)
	c.tierFaults(f.Chaos, p)
	c.serverTier(p, o)
	if proto, err := wire.Parse(f.Protocol); err != nil {
		c.fail([]step{key("protocol")}, "%v", err)
	} else {
		p.Protocol = proto // what the server speaks; connections are the swarm's
	}
	p.Thresholds = c.serverThresholds(&f)
	p.Resolved = sourceMasked(s)
	if len(c.errs.Problems) > 0 {
		c.errs.Sort()
		return nil, c.errs
	}
	return p, nil
}

// serverThresholds reads the release gates a recording of the traffic is
// checked against: the file's for every cohort, and each strategy's own
// for the recorded cohort of the same name (a cohort is named by its key:
// a strategy named like a client's User-Agent gates that client).
func (c *compiler) serverThresholds(f *File) []results.Threshold {
	named := make([]clients.Strategy, len(f.Strategies))
	for i, sf := range f.Strategies {
		named[i].Name = sf.Name
	}
	return c.thresholds(f, named)
}

// seedOf is a plan's seed: the override's, else the file's, else 0.
func seedOf(o Overrides, f *File) uint64 {
	switch {
	case o.Seed != nil:
		return *o.Seed
	case f.Seed != nil:
		return *f.Seed
	}
	return 0
}
