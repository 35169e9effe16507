package clients

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/herdbench/herdbench/grpcwire"
	"github.com/herdbench/herdbench/results"
)

// The gRPC client model: a cohort whose retries are grpc-go's own (a
// scenario's `client: grpc-go`), read from the service config it would give
// grpc-go, with the rules of grpc-go v1.84.0's code (stream.go
// csAttempt.shouldRetry, clientconn.go retryThrottler, service_config.go
// parseServiceConfig, dialoptions.go defaultMaxCallAttempts). docs/grpc.md
// ("The simulator's gRPC model") states them and where they differ from
// gRFC A6.

// GRPCMaxAttempts is grpc-go's cap on a retry policy's maxAttempts
// (dialoptions.go defaultMaxCallAttempts): a larger value is clamped to it.
const GRPCMaxAttempts = 5

// GRPCServiceConfig is a grpc-go cohort's service config: the JSON as
// written (what the wire side hands grpc-go's channel) and what of it
// changes a storm. It is immutable.
type GRPCServiceConfig struct {
	JSON string
	// Retry is the retry policy of the method the cohort calls; nil when
	// it has none (each RPC is sent once).
	Retry *GRPCRetryPolicy
	// Throttling is the channel's retry throttling; nil for none.
	Throttling *GRPCThrottling
	// Timeout is the method config's timeout, the RPC's deadline when it
	// is shorter than the caller's; 0 for none.
	Timeout time.Duration
}

// GRPCRetryPolicy is a method config's retryPolicy, as grpc-go keeps it.
type GRPCRetryPolicy struct {
	// MaxAttempts counts the first attempt, clamped to GRPCMaxAttempts as
	// grpc-go clamps it; Written is the value as written.
	MaxAttempts, Written int
	InitialBackoff       time.Duration
	MaxBackoff           time.Duration
	BackoffMultiplier    float64
	// Retryable holds the retryable status codes, bit c for code c.
	Retryable uint32
}

// Retries reports whether status code c is retryable.
func (p *GRPCRetryPolicy) Retries(c codes.Code) bool { return c < 32 && p.Retryable&(1<<c) != 0 }

// Backoff returns grpc-go's wait before a retry when n retries have been
// made since the RPC began or since its last pushback, from a uniform draw
// u in [0, 1): min(initialBackoff × multiplier^n, maxBackoff) × (0.8 + 0.4u),
// computed in floating point in grpc-go's order (stream.go shouldRetry),
// so the jittered wait may exceed maxBackoff by up to 20%.
func (p *GRPCRetryPolicy) Backoff(n int, u float64) time.Duration {
	fact := math.Pow(p.BackoffMultiplier, float64(n))
	cur := min(float64(p.InitialBackoff)*fact, float64(p.MaxBackoff))
	cur *= 0.8 + 0.4*u
	return time.Duration(int64(cur))
}

// GRPCThrottling is a service config's retryThrottling.
type GRPCThrottling struct {
	MaxTokens  float64
	TokenRatio float64
}

// The service config's JSON, decoded as grpc-go decodes it: encoding/json,
// whose field names match case-insensitively ("MaxAttempts" and
// "maxAttempts" alike), unknown fields ignored.
type jsonServiceConfig struct {
	MethodConfig    *[]jsonMethodConfig
	RetryThrottling *GRPCThrottling
}

type jsonMethodConfig struct {
	Name         *[]struct{ Service, Method string }
	WaitForReady *bool
	Timeout      *grpcDuration
	RetryPolicy  *struct {
		MaxAttempts          int
		InitialBackoff       grpcDuration
		MaxBackoff           grpcDuration
		BackoffMultiplier    float64
		RetryableStatusCodes []codes.Code
	}
}

// grpcDuration is a google.protobuf.Duration in its JSON form: a decimal
// number of seconds with an "s", e.g. "0.1s" or ".01s".
type grpcDuration time.Duration

func (d *grpcDuration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := parseGRPCDuration(s)
	*d = grpcDuration(v)
	return err
}

// parseGRPCDuration reads a duration in the grammar grpc-go's service
// config accepts: an optional "-", whole seconds and "." and up to nine
// digits of fraction (either part may be empty, not both), each part as
// strconv.ParseInt reads it, and "s"; at most 315,576,000,000 seconds
// (google.protobuf.Duration's range), beyond time.Duration's range
// saturated.
func parseGRPCDuration(s string) (time.Duration, error) {
	num, ok := strings.CutSuffix(s, "s")
	if !ok {
		return 0, fmt.Errorf("duration %q has no unit: write seconds with an s, e.g. \"0.1s\"", s)
	}
	neg := strings.HasPrefix(num, "-")
	if neg {
		num = num[1:]
	}
	parts := strings.SplitN(num, ".", 3)
	bad := fmt.Errorf("duration %q is not seconds as a decimal number, e.g. \"0.1s\"", s)
	if len(parts) > 2 {
		return 0, bad
	}
	var sec, ns int64
	digits := false
	if parts[0] != "" {
		var err error
		if sec, err = strconv.ParseInt(parts[0], 10, 64); err != nil {
			return 0, bad
		}
		if sec > 315_576_000_000 {
			return 0, fmt.Errorf("duration %q is out of range", s)
		}
		digits = true
	}
	if len(parts) == 2 && parts[1] != "" {
		f := parts[1]
		if len(f) > 9 {
			return 0, fmt.Errorf("duration %q has more than nine digits after the point", s)
		}
		var err error
		if ns, err = strconv.ParseInt(f, 10, 64); err != nil {
			return 0, bad
		}
		for range 9 - len(f) {
			ns *= 10
		}
		digits = true
	}
	if !digits {
		return 0, bad
	}
	if neg {
		sec, ns = -sec, -ns
	}
	const maxSec = math.MaxInt64 / int64(time.Second)
	switch {
	case sec > maxSec || sec == maxSec && ns >= math.MaxInt64%int64(time.Second):
		return math.MaxInt64, nil
	case sec < -maxSec || sec == -maxSec && ns <= math.MinInt64%int64(time.Second):
		return math.MinInt64, nil
	}
	return time.Duration(sec)*time.Second + time.Duration(ns), nil
}

// ErrGRPCServiceConfig is wrapped by every error of ParseGRPCServiceConfig.
var ErrGRPCServiceConfig = errors.New("service config")

// GRPCConfigError is one problem of a service config: where in its JSON
// (a path such as methodConfig[0].retryPolicy.maxAttempts, "" for the
// whole), and what.
type GRPCConfigError struct {
	Path string
	Msg  string
	Line int // for JSON that does not parse, the line of the config where it fails; 0 otherwise
}

func (e *GRPCConfigError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

func (e *GRPCConfigError) Unwrap() error { return ErrGRPCServiceConfig }

// ParseGRPCServiceConfig reads a grpc-go service config (JSON, as grpc-go's
// documentation writes it) into the model of method, the method a cohort
// calls (/package.Service/Method): its method config is the one grpc-go
// applies to that method (clientconn.go getMethodConfig: the method's
// name, else its service's, else the one for every method). It refuses
// what grpc-go refuses, with grpc-go's own message (it runs grpc-go's
// parser, as grpc.NewClient does with WithDefaultServiceConfig, and dials
// nothing: grpcGo, internal/grpcraw's CheckServiceConfig, so that the
// model links no gRPC transport), method configs none of which applies to method (grpc-go would
// never retry: a config written for another service), and what the
// simulator cannot model: waitForReady (RPCs held on the client while the
// channel is down).
func ParseGRPCServiceConfig(js, method string, grpcGo func(js string) error) (*GRPCServiceConfig, error) {
	if strings.TrimSpace(js) == "" {
		return nil, &GRPCConfigError{Msg: `empty; write the JSON grpc-go takes, e.g. {"methodConfig": [{"name": [{}], "retryPolicy": {...}}]}`}
	}
	var raw jsonServiceConfig
	err := json.Unmarshal([]byte(js), &raw)
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	if errors.As(err, &se) || errors.As(err, &te) {
		return nil, jsonProblem(js, err) // with the line, or the field
	}
	if gerr := grpcGoAccepts(grpcGo, js); gerr != nil {
		if ce, ok := gerr.(*GRPCConfigError); ok && err == nil {
			ce.Path = locate(&raw)
		}
		return nil, gerr
	}
	if err != nil { // grpc-go reads it and herdbench does not: FuzzGRPCDurationAgreesWithGRPCGo keeps this from happening
		return nil, &GRPCConfigError{Msg: err.Error()}
	}
	sc := &GRPCServiceConfig{JSON: js}
	if t := raw.RetryThrottling; t != nil {
		// grpc-go checks these only when the config has a methodConfig.
		if !(t.MaxTokens > 0 && t.MaxTokens <= 1000) {
			return nil, &GRPCConfigError{Path: "retryThrottling.maxTokens", Msg: fmt.Sprintf("%v; grpc-go takes more than 0 and at most 1000 (retries stop while tokens <= maxTokens/2), e.g. 10", t.MaxTokens)}
		}
		if !(t.TokenRatio > 0) {
			return nil, &GRPCConfigError{Path: "retryThrottling.tokenRatio", Msg: fmt.Sprintf("%v; the tokens a successful RPC gives back, more than 0, e.g. 0.1", t.TokenRatio)}
		}
		sc.Throttling = &GRPCThrottling{MaxTokens: t.MaxTokens, TokenRatio: t.TokenRatio}
	}
	picked, pickedAt := pickMethodConfig(raw.MethodConfig, method)
	if picked == nil && raw.MethodConfig != nil && len(*raw.MethodConfig) > 0 {
		return nil, &GRPCConfigError{Path: "methodConfig", Msg: fmt.Sprintf("none applies to %s, the method the cohort calls (%s), so grpc-go would never retry it; name its service (\"name\": [{\"service\": %q}]) or every method (\"name\": [{}]), or set target.method to a method they name", method, namesOf(raw.MethodConfig), serviceOf(method))}
	}
	if picked != nil && picked.WaitForReady != nil && *picked.WaitForReady {
		return nil, &GRPCConfigError{Path: fmt.Sprintf("methodConfig[%d].waitForReady", pickedAt), Msg: "true holds RPCs on the client while the channel is down and sends them all when it reconnects, which herdbench's model does not simulate; leave it out (grpc-go's default, fail fast)"}
	}
	if picked != nil {
		if picked.Timeout != nil {
			sc.Timeout = time.Duration(*picked.Timeout)
		}
		if rp := picked.RetryPolicy; rp != nil {
			p := &GRPCRetryPolicy{MaxAttempts: min(rp.MaxAttempts, GRPCMaxAttempts), Written: rp.MaxAttempts,
				InitialBackoff: time.Duration(rp.InitialBackoff), MaxBackoff: time.Duration(rp.MaxBackoff),
				BackoffMultiplier: rp.BackoffMultiplier}
			for _, c := range rp.RetryableStatusCodes {
				p.Retryable |= 1 << c
			}
			sc.Retry = p
		}
	}
	return sc, nil
}

// locate returns the path of the first retry policy field grpc-go
// refuses (service_config.go isValidRetryPolicy), "" if none.
func locate(raw *jsonServiceConfig) string {
	if raw.MethodConfig == nil {
		return ""
	}
	for i, mc := range *raw.MethodConfig {
		rp := mc.RetryPolicy
		if mc.Name == nil || rp == nil {
			continue
		}
		at := fmt.Sprintf("methodConfig[%d].retryPolicy.", i)
		switch {
		case rp.MaxAttempts <= 1:
			return at + "maxAttempts"
		case rp.InitialBackoff <= 0:
			return at + "initialBackoff"
		case rp.MaxBackoff <= 0:
			return at + "maxBackoff"
		case !(rp.BackoffMultiplier > 0):
			return at + "backoffMultiplier"
		case len(rp.RetryableStatusCodes) == 0:
			return at + "retryableStatusCodes"
		}
	}
	return ""
}

// pickMethodConfig returns the method config grpc-go applies to method
// and its index, as clientconn.go getMethodConfig looks it up: the one
// that names the method ({"service": S, "method": M}), else the one that
// names its service ({"service": S}), else the one for every method
// ({}); nil and -1 if none. A method config without a name applies to
// nothing (grpc-go skips it).
func pickMethodConfig(mcs *[]jsonMethodConfig, method string) (*jsonMethodConfig, int) {
	if mcs == nil {
		return nil, -1
	}
	service := method[:strings.LastIndex(method, "/")+1] // "/pkg.Service/"
	best, at, rank := (*jsonMethodConfig)(nil), -1, 0
	for i := range *mcs {
		mc := &(*mcs)[i]
		if mc.Name == nil {
			continue
		}
		for _, n := range *mc.Name {
			path := ""
			if n.Service != "" {
				path = "/" + n.Service + "/" + n.Method
			}
			r := 0
			switch path {
			case method:
				r = 3
			case service:
				r = 2
			case "":
				r = 1
			}
			if r > rank {
				best, at, rank = mc, i, r
			}
		}
	}
	return best, at
}

// namesOf lists the services and methods the method configs name.
func namesOf(mcs *[]jsonMethodConfig) string {
	var names []string
	for _, mc := range *mcs {
		if mc.Name == nil {
			continue
		}
		for _, n := range *mc.Name {
			if n.Method != "" {
				names = append(names, n.Service+"/"+n.Method)
			} else {
				names = append(names, n.Service)
			}
		}
	}
	if len(names) == 0 {
		return "they name nothing"
	}
	return "they name " + strings.Join(names, ", ")
}

// serviceOf returns the service of method /pkg.Service/Method.
func serviceOf(method string) string {
	s := strings.TrimPrefix(method, "/")
	if i := strings.LastIndex(s, "/"); i >= 0 {
		s = s[:i]
	}
	return s
}

// grpcGoAccepts runs grpc-go's own service config parser, check, over js
// and returns its refusal, in its words; nil when check is nil.
func grpcGoAccepts(check func(string) error, js string) error {
	if check == nil {
		return nil
	}
	if err := check(js); err != nil {
		msg := strings.TrimPrefix(err.Error(), "grpc: the provided default service config is invalid: ")
		return &GRPCConfigError{Msg: "grpc-go refuses it: " + strings.TrimSuffix(strings.TrimSpace(msg), ":") + hint(msg)}
	}
	return nil
}

// hint says how to fix what grpc-go's terse messages name.
func hint(msg string) string {
	switch {
	case strings.Contains(msg, "invalid retry policy"):
		return " (a retryPolicy needs maxAttempts of 2 or more, initialBackoff and maxBackoff more than 0s, backoffMultiplier more than 0 and at least one of retryableStatusCodes)"
	case strings.Contains(msg, "invalid code"):
		return " (retryableStatusCodes are gRPC's names, e.g. \"UNAVAILABLE\", or numbers 0 to 16)"
	}
	return ""
}

// jsonProblem turns a JSON error into a problem that says where.
func jsonProblem(js string, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		line := 1 + strings.Count(js[:min(int(se.Offset), len(js))], "\n")
		return &GRPCConfigError{Msg: fmt.Sprintf("not JSON (line %d of the service config): %v", line, se), Line: line}
	case errors.As(err, &te):
		path := strings.Split(te.Field, ".")
		for i, p := range path {
			if p != "" {
				path[i] = strings.ToLower(p[:1]) + p[1:]
			}
		}
		want := map[reflect.Kind]string{reflect.Slice: "a list", reflect.Struct: "an object", reflect.Pointer: "an object",
			reflect.String: "a string", reflect.Int: "a whole number", reflect.Float64: "a number", reflect.Bool: "true or false", reflect.Uint32: "a status code"}[te.Type.Kind()]
		if want == "" {
			want = "another type"
		}
		return &GRPCConfigError{Path: strings.Join(path, "."), Msg: fmt.Sprintf("a JSON %s where grpc-go reads %s", te.Value, want)}
	}
	return &GRPCConfigError{Msg: "grpc-go refuses it: " + err.Error() + hint(err.Error())}
}

// GRPCCode returns the gRPC status code of an answer as herdbench's gRPC
// target sends it, from the HTTP status its model answers with: the
// target's own table, grpcwire.Code (an outage's or overload's 503 is
// UNAVAILABLE, pushback's 429 RESOURCE_EXHAUSTED, 500 INTERNAL, 404
// UNIMPLEMENTED, and so on; docs/grpc.md).
func GRPCCode(status int) codes.Code { return grpcwire.Code(status) }

// GRPCOutcome classifies a gRPC status code a server ended a call with,
// as a grpc-go client records it, with the HTTP status that stands for
// it: RESOURCE_EXHAUSTED a 429, UNAVAILABLE a 503, the caller's mistakes
// (INVALID_ARGUMENT, NOT_FOUND, UNIMPLEMENTED and the like) a 4xx, the
// server's other failures (INTERNAL, UNKNOWN, ABORTED, ...) a 5xx,
// DEADLINE_EXCEEDED a timeout and CANCELLED an error. It is the one
// reading of a code for both engines: the swarm's classification of a
// call the server answered, and the simulator's of the model's status
// over gRPC (GRPCOutcome(GRPCCode(status))), so a 400 is INTERNAL and
// an http_5xx in both, not the http_4xx an HTTP client records. The
// status is grpcwire.Status's, as the target's recordings have it.
func GRPCOutcome(c codes.Code) (results.Outcome, int) {
	switch c {
	case codes.DeadlineExceeded:
		return results.Timeout, 0
	case codes.Canceled:
		return results.Error, 0
	}
	st := grpcwire.Status(c)
	return results.FromStatus(st), st
}

// GRPCThrottler is grpc-go's retry throttling (clientconn.go
// retryThrottler) as a budget: tokens start at MaxTokens, in floating
// point as grpc-go keeps them; a successful RPC adds TokenRatio (up to
// MaxTokens); each retry grpc-go considers (a failed attempt with a
// retryable code, or a pushback that says stop) takes one (down to 0) and
// is allowed only while the tokens left are more than MaxTokens/2. The
// client of a grpc-go cohort asks Retry only in those cases (clients'
// grpcResult), in grpc-go's order: a failure with a code that is not
// retryable takes nothing. (The grpc budget kind, GRPCTokens, is gRFC A6
// as gRPC's C core keeps it, in thousandths, and takes a token for every
// failed attempt.)
type GRPCThrottler struct {
	max, thresh, ratio, tokens float64
}

// NewGRPCThrottler returns a full bucket.
func NewGRPCThrottler(t GRPCThrottling) *GRPCThrottler {
	return &GRPCThrottler{max: t.MaxTokens, thresh: t.MaxTokens / 2, ratio: t.TokenRatio, tokens: t.MaxTokens}
}

// Tokens returns the tokens left.
func (g *GRPCThrottler) Tokens() float64 { return g.tokens }

func (g *GRPCThrottler) Started(time.Duration)  {}
func (g *GRPCThrottler) Ended(time.Duration)    {}
func (g *GRPCThrottler) Released(time.Duration) {}

// Answered adds TokenRatio for a success: an RPC's successful attempt is
// the RPC's success (grpc-go's successfulRPC). A failure takes nothing
// here; Retry takes it.
func (g *GRPCThrottler) Answered(_ time.Duration, ok bool, _ int) {
	if ok {
		g.tokens = min(g.max, g.tokens+g.ratio)
	}
}

// Retry is grpc-go's throttle(): it takes a token and allows the retry
// while more than half the tokens are left.
func (g *GRPCThrottler) Retry(time.Duration, bool) (int, bool) {
	g.tokens = max(0, g.tokens-1)
	return 0, g.tokens > g.thresh
}

// GRPCThrottlingSpec makes a GRPCThrottler: the budget of a grpc-go
// cohort whose service config has retryThrottling. It is not a kind a
// scenario names: `client: grpc-go` makes it from the service config.
type GRPCThrottlingSpec struct{ GRPCThrottling }

// Resolve implements Spec: ParseGRPCServiceConfig checked the values.
func (s *GRPCThrottlingSpec) Resolve(func(string) bool) []*ParamError { return nil }

// New implements Spec.
func (s *GRPCThrottlingSpec) New() Budget { return NewGRPCThrottler(s.GRPCThrottling) }

var (
	_ Budget     = (*GRPCThrottler)(nil)
	_ BudgetSpec = (*GRPCThrottlingSpec)(nil)
)

// GRPCStrategy returns the strategy of a grpc-go cohort: grpc-go's retries
// from sc, each RPC bounded by deadline (the caller's context timeout, or
// the method config's timeout when shorter; 0 for none), and, with retry
// throttling, grpc-go's throttler, one per channel: scope PerClient gives
// every client its own channel, PerCohort one channel to the whole
// cohort.
func GRPCStrategy(name string, sc *GRPCServiceConfig, deadline time.Duration, channel Scope) Strategy {
	if sc.Timeout > 0 && (deadline == 0 || sc.Timeout < deadline) {
		deadline = sc.Timeout
	}
	s := Strategy{Name: name, GRPC: sc, Timeout: deadline, MaxAttempts: 1}
	if sc.Retry != nil {
		s.MaxAttempts = sc.Retry.MaxAttempts
		s.Backoff = Backoff{Shape: GRPC, Base: sc.Retry.InitialBackoff, Cap: sc.Retry.MaxBackoff, Multiplier: sc.Retry.BackoffMultiplier}
	}
	if sc.Throttling != nil {
		s.Budget = &Policy[Budget]{Kind: "grpc-go", Scope: channel, Spec: &GRPCThrottlingSpec{*sc.Throttling}}
	}
	return s
}
