package scenarios

import (
	"fmt"
	"github.com/herdbench/herdbench/scenarios/decode"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// File is a scenario as written in YAML. Durations and distributions are
// strings ("250ms", "exponential(1s)") and are checked by Compile.
type File struct {
	Name        string       `yaml:"name"`
	Description string       `yaml:"description,omitempty"`
	Duration    string       `yaml:"duration,omitempty"`
	Seed        *uint64      `yaml:"seed,omitempty"`
	Network     *NetworkFile `yaml:"network,omitempty"`
	Target      TargetFile   `yaml:"target,omitempty"`
	// Tiers chain servers (client -> gateway -> service), from the tier
	// the clients call down to the bottom one; without them the target
	// is the one server (tiers.go).
	Tiers      []TierFile     `yaml:"tiers,omitempty"`
	Chaos      []FaultFile    `yaml:"chaos,omitempty"`
	Workload   WorkloadFile   `yaml:"workload,omitempty"`
	Strategies []StrategyFile `yaml:"strategies"`
	// Requests are what the swarm sends, a weighted mix (requests.go,
	// docs/traffic.md); Targets imports them from a vegeta targets file.
	// Without either it sends its probe, a bodiless POST.
	Requests []RequestFile `yaml:"requests,omitempty"`
	Targets  string        `yaml:"targets,omitempty"`
	// Protocol is how requests travel: http1 (the default), h2 or h2c;
	// Connections how the clients hold them: shared K puts K clients on
	// each HTTP/2 connection or, with target.protocol grpc, each channel
	// (wire.go).
	Protocol    string           `yaml:"protocol,omitempty"`
	Connections *ConnectionsFile `yaml:"connections,omitempty"`
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
	URL string `yaml:"url,omitempty"`
	// Protocol is what the target speaks: http (the default) or grpc
	// (grpc.go).
	Protocol     string `yaml:"protocol,omitempty"`
	Kind         string `yaml:"kind,omitempty"`
	Concurrency  *int   `yaml:"concurrency,omitempty"`
	Queue        *int   `yaml:"queue,omitempty"`
	QueueTimeout string `yaml:"queue_timeout,omitempty"`
	ServiceTime  string `yaml:"service_time,omitempty"`
	// Contention is what each request in service adds to the service
	// time of one that starts (target.Config.Contention).
	Contention     string         `yaml:"contention,omitempty"`
	ColdStart      *ColdStartFile `yaml:"cold_start,omitempty"`
	ServeAbandoned bool           `yaml:"serve_abandoned,omitempty"`
	// Routes give some requests their own service time.
	Routes []RouteFile `yaml:"routes,omitempty"`
	// Method is, with protocol grpc, the method the swarm calls,
	// /package.Service/Method (the target serves any).
	Method string `yaml:"method,omitempty"`
}

// TierFile is one server of a chain of tiers: its name, and its capacity
// model with the fields of target (every tier is embedded: no url).
type TierFile struct {
	Name       string `yaml:"name"`
	TargetFile `yaml:",inline"`
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
// kept as YAML until the kind is known (decode.Fault reads both).
type FaultFile = decode.FaultFile

// WorkloadFile is the shape of the load.
type WorkloadFile struct {
	Kind    string  `yaml:"kind,omitempty"`
	Clients int     `yaml:"clients,omitempty"`
	Think   string  `yaml:"think,omitempty"`
	Rate    float64 `yaml:"rate,omitempty"`
	// Surges are an open workload's stretches at another rate.
	Surges []SurgeFile `yaml:"surges,omitempty"`
}

// SurgeFile is a stretch of an open workload's run at another rate: a
// load spike from at, lasting for.
type SurgeFile struct {
	At   string  `yaml:"at"`
	For  string  `yaml:"for"`
	Rate float64 `yaml:"rate"`
}

// StrategyFile is one cohort's retry strategy. Name and backoff are
// required of a cohort (Compile says so); they are omitted when empty for
// the strategies of tiers, which have no name and may inherit the backoff.
type StrategyFile struct {
	Name       string  `yaml:"name,omitempty"`
	Backoff    string  `yaml:"backoff,omitempty"`
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
	// Transport is the HTTP client transport the cohort's clients send
	// with: herdbench (its own, the default) or net/http, which re-sends
	// an attempt whose reused connection is reset before the answer
	// (clients.Transport). The cohort's alone: a tier's calls use
	// herdbench's.
	Transport string `yaml:"transport,omitempty"`
	// Hedge sends another attempt of a request while the first is still
	// in flight (hedge.go, clients.Hedge).
	Hedge *HedgeFile `yaml:"hedge,omitempty"`

	// What it sends and retries (requests.go): its own requests instead
	// of the scenario's, the failures it retries (all, if not said), the
	// statuses that succeed (2xx), and whether a non-idempotent request
	// (POST, PATCH) is retried without an idempotency-key header.
	Requests           []RequestFile `yaml:"requests,omitempty"`
	RetryOn            []string      `yaml:"retry_on,omitempty"`
	Success            []string      `yaml:"success,omitempty"`
	RetryNonIdempotent *bool         `yaml:"retry_non_idempotent,omitempty"`
	IdempotencyHeader  string        `yaml:"idempotency_header,omitempty"`

	// Client is whose retry code the cohort runs: herdbench's loop (the
	// default), or grpc-go (grpc-go's own retries, from ServiceConfig:
	// the JSON grpc-go's documentation writes). Channel says who shares a
	// grpc-go channel, and with it the retry throttling's tokens: client
	// (the default: every client its own) or cohort (grpc.go).
	Client        string `yaml:"client,omitempty"`
	ServiceConfig string `yaml:"service_config,omitempty"`
	Channel       string `yaml:"channel,omitempty"`

	// Tiers are, in a chain of tiers, how the tiers that call another
	// retry their calls, by tier name: each is this strategy with the
	// fields it sets changed (tiers.go). A tier left out retries as the
	// cohort's clients do.
	Tiers map[string]*StrategyFile `yaml:"tiers,omitempty"`
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
