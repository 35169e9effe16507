package chaos

import (
	"fmt"
	"strconv"
	"time"

	"github.com/herdbench/herdbench/internal/dist"
)

func init() {
	Register("pushback", func() Spec { return &PushbackSpec{} })
}

// Pushback answers a fraction of requests at once with 429 or 503 and a
// Retry-After header: the server asking its clients to back off for a
// while. Clients honour it only if their strategy says so. It is an error
// rate with a Retry-After (one mechanism, one draw per request); the
// pushback kind only gives it a pushback's defaults and statuses.
type Pushback = ErrorRate

// PushbackSpec is the YAML form of a pushback: status 429 or 503 (default
// 503), retry_after in whole seconds (default 1s), rate the fraction of
// requests pushed back (default 1: all of them), and for a gRPC target
// pushback_ms, its grpc-retry-pushback-ms: whole milliseconds from 0, or
// stop for the "do not retry" form (none when left out: the target sends
// retry_after as the pushback).
type PushbackSpec struct {
	Status     int      `yaml:"status"`
	RetryAfter string   `yaml:"retry_after"`
	Rate       *float64 `yaml:"rate"`
	PushbackMS string   `yaml:"pushback_ms"`
}

// parsePushbackMS reads a pushback_ms: whole milliseconds, 0 to a day, or
// stop. A negative or invalid value is what a server writes on the wire to
// say "do not retry"; a scenario says so in a word.
func parsePushbackMS(v string) (time.Duration, *ParamError) {
	if v == "stop" {
		return PushbackStop, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case err != nil:
		return 0, &ParamError{Field: "pushback_ms", Msg: fmt.Sprintf("%q is not a whole number of milliseconds; write e.g. pushback_ms: 250, or pushback_ms: stop for the \"do not retry\" form", v)}
	case n < 0:
		return 0, &ParamError{Field: "pushback_ms", Msg: fmt.Sprintf("%d: a negative pushback is the wire's \"do not retry\"; write pushback_ms: stop for it, or 0 or more milliseconds", n)}
	case time.Duration(n)*time.Millisecond > dist.MaxDuration:
		return 0, &ParamError{Field: "pushback_ms", Msg: fmt.Sprintf("%d ms is more than a day (24h), the longest wait herdbench asks for; write e.g. pushback_ms: 250", n)}
	}
	// 0 ms (retry at once) is kept apart from none by one nanosecond,
	// which no wait of a real client tells apart.
	return max(time.Duration(n)*time.Millisecond, 1), nil
}

// Compile implements Spec.
func (s *PushbackSpec) Compile() (Fault, []*ParamError) {
	var errs []*ParamError
	p := Pushback{Rate: 1, Status: 503, RetryAfter: time.Second}
	if s.Status != 0 {
		p.Status = s.Status
		if s.Status != 429 && s.Status != 503 {
			errs = append(errs, &ParamError{Field: "status", Msg: fmt.Sprintf("%d is not a pushback status; write 429 (Too Many Requests) or 503 (Service Unavailable)", s.Status)})
		}
	}
	if s.Rate != nil {
		p.Rate = *s.Rate
		if !(p.Rate > 0 && p.Rate <= 1) { // NaN too
			errs = append(errs, &ParamError{Field: "rate", Msg: fmt.Sprintf("%v is not a fraction of requests; write a number in (0, 1], e.g. rate: 0.5 (1, all requests, when left out)", p.Rate)})
		}
	}
	if s.RetryAfter != "" {
		d, perr := parseRetryAfter(s.RetryAfter)
		if perr != nil {
			errs = append(errs, perr)
		}
		p.RetryAfter = d
	}
	if s.PushbackMS != "" {
		d, perr := parsePushbackMS(s.PushbackMS)
		if perr != nil {
			errs = append(errs, perr)
		}
		p.Pushback = d
	}
	if errs != nil {
		return nil, errs
	}
	return p, nil
}
