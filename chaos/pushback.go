package chaos

import (
	"fmt"
	"time"
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
// requests pushed back (default 1: all of them).
type PushbackSpec struct {
	Status     int      `yaml:"status"`
	RetryAfter string   `yaml:"retry_after"`
	Rate       *float64 `yaml:"rate"`
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
	if errs != nil {
		return nil, errs
	}
	return p, nil
}
