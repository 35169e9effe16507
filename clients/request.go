package clients

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/herdbench/herdbench/results"
)

// Request is one kind of request a cohort sends: the protocol-neutral
// model both engines share. The real engine writes it on the wire (HTTP/1.1
// here; another transport sends the same fields); the simulator needs only
// its route, its weight and whether its strategy may retry it.
type Request struct {
	Method string
	// Path is the path and query, joined to the target URL's base path;
	// it may hold placeholders (Placeholders).
	Path   string
	Header []Header
	// Body is the request's body; FillBody says whether its
	// placeholders are filled.
	Body []byte
	// FillBody is set when Body holds placeholders to fill (an inline
	// body); a body read from a file is sent byte for byte.
	FillBody bool
	Weight   float64
	// Route is the target route that serves it (model.Config.Route):
	// the simulator gives it that route's service time.
	Route int
	// Retry says the cohort's strategy may retry it: its method is
	// idempotent, it carries the strategy's idempotency-key header, or
	// the strategy retries non-idempotent requests.
	Retry bool
}

// Templated reports whether r holds a placeholder, in its path, a header's
// value or its body (FillBody): its bytes, body included, are then filled
// per logical request into each client's own buffer; without, they are
// prepared once for the cohort.
func (r *Request) Templated() bool {
	if r.FillBody {
		return true
	}
	if ok, _ := CheckPlaceholders(r.Path); ok {
		return true
	}
	for _, h := range r.Header {
		if ok, _ := CheckPlaceholders(h.Value); ok {
			return true
		}
	}
	return false
}

// Header is one request header.
type Header struct{ Name, Value string }

// Mix is a weighted mix of requests, drawn per logical request.
type Mix struct {
	Requests []Request
	cum      []float64 // cumulative weights, normalized to end at 1
}

// NewMix returns the mix of reqs, whose weights must be positive and
// finite. Weights whose sum overflows a float64 (two of 1e308) are first
// divided by the largest, which keeps their shares: summed as they are,
// every cumulative share but the last would be 0 and the last NaN, and
// every draw would pick the last request.
func NewMix(reqs []Request) *Mix {
	m := &Mix{Requests: reqs, cum: make([]float64, len(reqs))}
	scale, total := 1.0, 0.0
	for _, r := range reqs {
		total += r.Weight
	}
	if math.IsInf(total, 0) {
		most := 0.0
		for _, r := range reqs {
			most = max(most, r.Weight)
		}
		scale, total = most, 0
		for _, r := range reqs {
			total += r.Weight / scale
		}
	}
	acc := 0.0
	for i, r := range reqs {
		acc += r.Weight / scale
		m.cum[i] = acc / total
	}
	return m
}

// Pick returns the index of the request a uniform draw u in [0, 1) picks.
func (m *Mix) Pick(u float64) int {
	for i, c := range m.cum {
		if u < c {
			return i
		}
	}
	return len(m.cum) - 1
}

// Idempotent reports whether an HTTP method is idempotent (RFC 9110 9.2.2):
// a retry of it may not do what the first attempt did a second time.
func Idempotent(method string) bool {
	switch method {
	case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE":
		return true
	}
	return false
}

// MayRetry reports whether the strategy may retry a request of method
// that carries the headers has says it does (has is given a name in any
// case): its method is idempotent, the strategy retries non-idempotent
// requests, or the request carries the strategy's idempotency-key header.
func (s *Strategy) MayRetry(method string, has func(name string) bool) bool {
	if Idempotent(method) || s.RetryNonIdempotent {
		return true
	}
	name := s.IdempotencyHeader
	if name == "" {
		name = DefaultIdempotencyHeader
	}
	return has(name)
}

// Methods are the methods a request may have.
var Methods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"}

// MaxBody is the largest request body herdbench sends.
const MaxBody = 16 << 20

// DefaultIdempotencyHeader is the header whose presence makes a
// non-idempotent request retryable, unless a strategy names another.
const DefaultIdempotencyHeader = "Idempotency-Key"

// requestStream places in src the random stream of logical request n of
// client id under seed: the mix's draw comes first, then the request's
// placeholders in the order they are written. A request's retries resend
// what its first attempt sent.
func requestStream(src *rand.PCG, seed uint64, id, n int) {
	src.Seed(seed^0x7261666669637321, uint64(id)<<32|uint64(uint32(n)))
}

// unit turns a 64-bit draw into a uniform float64 in [0, 1).
func unit(u uint64) float64 { return float64(u>>11) / (1 << 53) }

// RetryOn says which failed attempts a strategy retries, as Envoy's
// retry_on and gRPC's retryableStatusCodes do. The zero value retries every
// failure (herdbench's behaviour when a strategy does not say).
type RetryOn struct {
	Set      bool
	Outcomes [results.NumOutcomes]bool // timeout, refused, reset, error
	Statuses statusSet                 // the answers retried, by status code
}

// Retries reports whether an attempt that failed with o and HTTP status
// code status (0 if none) is retried.
func (r *RetryOn) Retries(o results.Outcome, status int) bool {
	if !r.Set {
		return true
	}
	if status != 0 {
		return r.Statuses.has(status)
	}
	return r.Outcomes[o]
}

// Success says which HTTP statuses an attempt succeeds with; the zero
// value is every 2xx.
type Success struct {
	Set      bool
	Statuses statusSet
}

// Outcome reclassifies an attempt's outcome by its status.
func (s *Success) Outcome(o results.Outcome, status int) results.Outcome {
	if !s.Set || status == 0 {
		return o
	}
	if s.Statuses.has(status) {
		return results.OK
	}
	if o == results.OK {
		return results.Error // a 2xx the strategy does not count as success
	}
	return o
}

// statusSet is a set of HTTP status codes 100 to 599.
type statusSet [10]uint64

func (s *statusSet) has(code int) bool {
	return code >= 0 && code < 640 && s[code>>6]&(1<<(code&63)) != 0
}

func (s *statusSet) add(lo, hi int) {
	for c := lo; c <= hi; c++ {
		s[c>>6] |= 1 << (c & 63)
	}
}

// RetryOnClasses are the classes retry_on takes besides status codes:
// classes of statuses (5xx, 4xx, gateway-error: 502 to 504) and failures
// without an answer.
var RetryOnClasses = []string{"5xx", "4xx", "gateway-error", "reset", "refused", "timeout", "error", "connect-failure"}

// AddRetryOn adds one retry_on item: a status code ("503"), a class of them
// ("5xx"), or a class of transport failure ("reset"). It reports false for
// an item that is none of these.
func (r *RetryOn) Add(item string) bool {
	r.Set = true
	switch item {
	case "reset":
		r.Outcomes[results.Reset] = true
	case "refused":
		r.Outcomes[results.Refused] = true
	case "connect-failure":
		r.Outcomes[results.Refused] = true
	case "timeout":
		r.Outcomes[results.Timeout] = true
	case "error":
		r.Outcomes[results.Error] = true
	case "gateway-error":
		r.Statuses.add(502, 504)
	default:
		lo, hi, ok := ParseStatuses(item)
		if !ok {
			return false
		}
		r.Statuses.add(lo, hi)
	}
	return true
}

// AddSuccess adds a status or a class of them ("2xx") to the successes.
func (s *Success) AddSuccess(item string) bool {
	lo, hi, ok := ParseStatuses(item)
	if !ok {
		return false
	}
	s.Set = true
	s.Statuses.add(lo, hi)
	return true
}

// ParseStatuses reads a status code (100 to 599) or a class ("4xx").
func ParseStatuses(item string) (lo, hi int, ok bool) {
	if len(item) == 3 && strings.HasSuffix(item, "xx") && item[0] >= '1' && item[0] <= '5' {
		d := int(item[0]-'0') * 100
		return d, d + 99, true
	}
	n, err := strconv.Atoi(item)
	if err != nil || n < 100 || n > 599 || len(item) != 3 {
		return 0, 0, false
	}
	return n, n, true
}
