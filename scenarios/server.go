package scenarios

import (
	"math/rand/v2"
	"strings"
)

// CompileServer compiles only what a standalone target or a chaos proxy
// reads from a scenario: name, duration, seed, the target's capacity model
// and the chaos plan. The rest (workload, strategies, thresholds) is the
// swarm's business and is neither required nor checked, so a file with
// only target and chaos sections serves. The returned Plan has only those
// fields set; its Chaos is never nil.
func (s *Scenario) CompileServer(o Overrides) (*Plan, error) {
	f := s.File
	c := &compiler{s: s, errs: &Error{File: s.Filename}}
	p := &Plan{Name: f.Name, Description: strings.TrimSpace(f.Description)}
	p.Duration = c.duration(&f.Duration, DefaultDuration, []step{key("duration")})
	if o.Duration > 0 {
		p.Duration = o.Duration
	}
	switch {
	case o.Seed != nil:
		p.Seed = *o.Seed
	case f.Seed != nil:
		p.Seed = *f.Seed
	default:
		p.Seed = rand.Uint64() >> 11
	}
	p.Target = c.target(&f.Target)
	p.Chaos = c.chaos(f.Chaos, p.Duration)
	if len(c.errs.Problems) > 0 {
		c.errs.sort()
		return nil, c.errs
	}
	return p, nil
}

// LoadServer finds, parses and compiles a scenario for a standalone target
// or proxy (see CompileServer).
func LoadServer(arg string, o Overrides) (*Plan, error) {
	name, data, err := Find(arg)
	if err != nil {
		return nil, err
	}
	s, err := Parse(name, data)
	if err != nil {
		return nil, err
	}
	return s.CompileServer(o)
}
