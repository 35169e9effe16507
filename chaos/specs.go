package chaos

import (
	"fmt"

	"github.com/herdbench/herdbench/internal/dist"
)

func init() {
	Register("outage", func() Spec { return &OutageSpec{} })
	Register("blip", func() Spec { return &BlipSpec{} })
	Register("error-rate", func() Spec { return &ErrorRateSpec{} })
	Register("brownout", func() Spec { return &BrownoutSpec{} })
}

// OutageSpec is the YAML form of an outage: mode is "503" (default),
// "refuse", "reset" or "goaway". retry_after, for mode 503, is sent as a Retry-After
// header with the 503 answers (whole seconds: see RetryAfterHeader).
type OutageSpec struct {
	Mode       string `yaml:"mode"`
	RetryAfter string `yaml:"retry_after"`
}

// Compile implements Spec.
func (s *OutageSpec) Compile() (Fault, []*ParamError) {
	ra, perr := parseRetryAfter(s.RetryAfter)
	if perr != nil {
		return nil, []*ParamError{perr}
	}
	switch s.Mode {
	case "", "503":
		return Outage{Mode: Unavailable, RetryAfter: ra}, nil
	case "refuse", "reset", "goaway":
		if ra > 0 {
			return nil, []*ParamError{{Field: "retry_after", Msg: fmt.Sprintf("an outage in mode %s sends no answer to carry a Retry-After header; remove retry_after or use mode: 503", s.Mode)}}
		}
		switch s.Mode {
		case "refuse":
			return Outage{Mode: Refuse}, nil
		case "goaway":
			return Outage{Mode: Goaway}, nil
		}
		return Outage{Mode: Reset}, nil
	}
	return nil, []*ParamError{{Field: "mode", Msg: fmt.Sprintf("unknown outage mode %q; valid modes are 503 (answer 503 at once), refuse (refuse connections), reset (reset in-flight and new connections), goaway (drain: in-flight requests finish, connections are told to go away, new ones refused)", s.Mode)}}
}

// BlipSpec is the YAML form of a network blip: mode "latency" (default) adds
// delay; mode "blackhole" holds requests until the client gives up.
type BlipSpec struct {
	Mode  string `yaml:"mode"`
	Delay string `yaml:"delay"`
}

// Compile implements Spec.
func (s *BlipSpec) Compile() (Fault, []*ParamError) {
	switch s.Mode {
	case "blackhole":
		if s.Delay != "" {
			return nil, []*ParamError{{Field: "delay", Msg: "a blackhole holds requests until the client's timeout; remove delay or use mode: latency"}}
		}
		return Blip{Blackhole: true}, nil
	case "", "latency":
		if s.Delay == "" {
			return nil, []*ParamError{{Field: "delay", Msg: `a latency blip needs the delay to add, e.g. delay: 200ms or delay: "uniform(100ms, 300ms)"`}}
		}
		d, err := dist.Parse(s.Delay)
		if err != nil {
			return nil, []*ParamError{{Field: "delay", Msg: err.Error()}}
		}
		return Blip{Delay: d}, nil
	}
	return nil, []*ParamError{{Field: "mode", Msg: fmt.Sprintf("unknown blip mode %q; valid modes are latency (add delay) and blackhole (never answer)", s.Mode)}}
}

// ErrorRateSpec is the YAML form of an error rate: a fraction of requests,
// answered at once with status (default 503), and a Retry-After header when
// retry_after is set (pushback; whole seconds: see RetryAfterHeader).
type ErrorRateSpec struct {
	Rate       float64 `yaml:"rate"`
	Status     int     `yaml:"status"`
	RetryAfter string  `yaml:"retry_after"`
}

// Compile implements Spec.
func (s *ErrorRateSpec) Compile() (Fault, []*ParamError) {
	var errs []*ParamError
	if !(s.Rate > 0 && s.Rate <= 1) { // NaN too
		errs = append(errs, &ParamError{Field: "rate", Msg: fmt.Sprintf("%v is not a fraction of requests; write a number in (0, 1], e.g. rate: 0.2", s.Rate)})
	}
	st := s.Status
	if st == 0 {
		st = 503
	}
	if st < 400 || st > 599 {
		errs = append(errs, &ParamError{Field: "status", Msg: fmt.Sprintf("%d is not an error status; write one in 400..599", s.Status)})
	}
	ra, perr := parseRetryAfter(s.RetryAfter)
	if perr != nil {
		errs = append(errs, perr)
	}
	if errs != nil {
		return nil, errs
	}
	return ErrorRate{Rate: s.Rate, Status: st, RetryAfter: ra}, nil
}

// BrownoutSpec is the YAML form of a brownout: capacity is the fraction of
// the target's concurrency left.
type BrownoutSpec struct {
	Capacity float64 `yaml:"capacity"`
}

// Compile implements Spec.
func (s *BrownoutSpec) Compile() (Fault, []*ParamError) {
	if !(s.Capacity > 0 && s.Capacity < 1) { // NaN too
		return nil, []*ParamError{{Field: "capacity", Msg: fmt.Sprintf("%v is not a capacity cut; write the fraction left, in (0, 1), e.g. capacity: 0.3", s.Capacity)}}
	}
	return Brownout{Capacity: s.Capacity}, nil
}
