package scenarios

import (
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// File is a scenario as written in YAML. Durations and distributions are
// strings ("250ms", "exponential(1s)") and are checked by Compile.
type File struct {
	Name        string         `yaml:"name"`
	Description string         `yaml:"description,omitempty"`
	Duration    string         `yaml:"duration,omitempty"`
	Seed        *uint64        `yaml:"seed,omitempty"`
	Network     *NetworkFile   `yaml:"network,omitempty"`
	Target      TargetFile     `yaml:"target,omitempty"`
	Chaos       []FaultFile    `yaml:"chaos,omitempty"`
	Workload    WorkloadFile   `yaml:"workload,omitempty"`
	Strategies  []StrategyFile `yaml:"strategies"`
	// Thresholds are release gates checked against every cohort.
	Thresholds []string `yaml:"thresholds,omitempty"`
	// Runs repeats each cohort (--runs); 0 or 1 runs it once.
	Runs int `yaml:"runs,omitempty"`
	// Sweep runs the scenario at every combination of values of the
	// fields it names (sweep.go; --set, --clients a,b,c).
	Sweep *SweepFile `yaml:"sweep,omitempty"`
}

// TargetFile is the target's capacity model.
type TargetFile struct {
	// URL is an external target: the swarm sends there instead of to an
	// embedded target; the capacity fields are then for herdbench target.
	URL            string         `yaml:"url,omitempty"`
	Kind           string         `yaml:"kind,omitempty"`
	Concurrency    int            `yaml:"concurrency,omitempty"`
	Queue          *int           `yaml:"queue,omitempty"`
	QueueTimeout   string         `yaml:"queue_timeout,omitempty"`
	ServiceTime    string         `yaml:"service_time,omitempty"`
	ColdStart      *ColdStartFile `yaml:"cold_start,omitempty"`
	ServeAbandoned bool           `yaml:"serve_abandoned,omitempty"`
}

// NetworkFile is the network between clients and target.
type NetworkFile struct {
	// Delay is each hop's delay (client to target, or back), a
	// distribution: "10ms", "normal(10ms, 2ms)" (absolute value), ...
	Delay string `yaml:"delay"`
}

// ColdStartFile is the capacity ramp after an outage.
type ColdStartFile struct {
	From float64 `yaml:"from"`
	Ramp string  `yaml:"ramp"`
}

// FaultFile is one fault: the common fields, and the kind's own parameters
// kept as YAML until the kind is known.
type FaultFile struct {
	Name   string
	Kind   string
	At     string
	For    string
	Params yaml.Node // the whole mapping, decoded into the kind's Spec
}

var faultCommon = []string{"name", "kind", "at", "for"}

// UnmarshalYAML reads the common fields and keeps the mapping for the
// kind's parameters (two-phase decoding).
func (f *FaultFile) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: a fault must be a mapping with kind, at, for and the kind's parameters", n.Line)}}
	}
	f.Params = *n
	return readCommon(n, map[string]*string{"name": &f.Name, "kind": &f.Kind, "at": &f.At, "for": &f.For})
}

// readCommon reads the fields every kind has (a fault's name, kind, at and
// for; a policy's kind and scope) from mapping n into dst, by key: the
// first phase of decoding a kind; the rest waits for the kind's Spec.
func readCommon(n *yaml.Node, dst map[string]*string) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		p, ok := dst[k]
		if !ok {
			continue
		}
		if v.Kind != yaml.ScalarNode {
			return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %s must be a single value", v.Line, k)}}
		}
		*p = v.Value
	}
	return nil
}

// MarshalYAML writes the fault back as it was written.
func (f FaultFile) MarshalYAML() (any, error) { return &f.Params, nil }

// WorkloadFile is the shape of the load.
type WorkloadFile struct {
	Kind    string  `yaml:"kind,omitempty"`
	Clients int     `yaml:"clients,omitempty"`
	Think   string  `yaml:"think,omitempty"`
	Rate    float64 `yaml:"rate,omitempty"`
}

// StrategyFile is one cohort's retry strategy.
type StrategyFile struct {
	Name       string  `yaml:"name"`
	Backoff    string  `yaml:"backoff"`
	Base       string  `yaml:"base,omitempty"`
	Cap        string  `yaml:"cap,omitempty"`
	Multiplier float64 `yaml:"multiplier,omitempty"`
	// Jitter is an exponential backoff's jitter share, from 0 to 1
	// (clients.Backoff.Jitter); full is 1, equal 0.5.
	Jitter      *float64 `yaml:"jitter,omitempty"`
	MaxAttempts *Limit   `yaml:"max_attempts,omitempty"`
	Timeout     string   `yaml:"timeout,omitempty"`
	// Reset is when a client's backoff starts afresh: per-request (the
	// default), on-success or never (clients.Reset).
	Reset string `yaml:"reset,omitempty"`
	// Thresholds are release gates checked against this cohort only.
	Thresholds []string `yaml:"thresholds,omitempty"`

	// Client policies (policies.go).
	Preset        string      `yaml:"preset,omitempty"`
	Budget        *PolicyFile `yaml:"budget,omitempty"`
	Breaker       *PolicyFile `yaml:"breaker,omitempty"`
	Throttle      *PolicyFile `yaml:"throttle,omitempty"`
	RetryAfter    string      `yaml:"retry_after,omitempty"`
	RetryAfterCap string      `yaml:"retry_after_cap,omitempty"`
}

// Limit is a positive count or "unlimited" (stored as 0).
type Limit int

// UnmarshalYAML accepts a whole number or the word unlimited.
func (l *Limit) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		if n.Value == "unlimited" {
			*l = 0
			return nil
		}
		if v, err := strconv.Atoi(n.Value); err == nil {
			if v < 1 {
				return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: max_attempts is %d; it counts attempts including the first, so write 1 or more, or unlimited", n.Line, v)}}
			}
			if v > MaxAttempts {
				return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: max_attempts is %d; write from 1 to %d attempts, or unlimited", n.Line, v, MaxAttempts)}}
			}
			*l = Limit(v)
			return nil
		}
	}
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: max_attempts must be a whole number of attempts (1 or more) or unlimited, not %q", n.Line, n.Value)}}
}

// MarshalYAML writes 0 as unlimited.
func (l Limit) MarshalYAML() (any, error) {
	if l == 0 {
		return "unlimited", nil
	}
	return int(l), nil
}
