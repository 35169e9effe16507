package chaos

import (
	"fmt"

	"github.com/herdbench/herdbench/internal/dist"
)

func init() {
	Register("flaky", func() Spec { return &FlakySpec{} })
}

// Flaky is a degraded dependency: every request is slowed by Delay and a
// fraction of them fail with 503.
type Flaky struct {
	Rate  float64
	Delay dist.Dist
}

// Apply implements Fault.
func (f Flaky) Apply(e *Effect) {
	Blip{Delay: f.Delay}.Apply(e)
	ErrorRate{Rate: f.Rate, Status: 503}.Apply(e)
}

// FlakySpec is the YAML form of a flaky dependency.
type FlakySpec struct {
	Rate  float64 `yaml:"rate"`
	Delay string  `yaml:"delay"`
}

// Compile implements Spec.
func (s *FlakySpec) Compile() (Fault, []*ParamError) {
	if !(s.Rate > 0 && s.Rate <= 1) {
		return nil, []*ParamError{{Field: "rate", Msg: fmt.Sprintf("%v is not a fraction of requests; write a number in (0, 1]", s.Rate)}}
	}
	d, err := dist.Parse(s.Delay)
	if err != nil {
		return nil, []*ParamError{{Field: "delay", Msg: err.Error()}}
	}
	return Flaky{Rate: s.Rate, Delay: d}, nil
}
