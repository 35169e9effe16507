package scenarios

import (
	"testing"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/clients"
)

// The built-in metastable scenario keeps the shape the acceptance figures
// rest on: an open workload well under capacity, wasted work, one short
// trigger, and the cohorts to compare.
func TestMetastableBuiltin(t *testing.T) {
	p, err := openFirst("metastable", Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	capacity := float64(p.Target.Concurrency) / p.Target.ServiceTime.Mean().Seconds()
	if p.Workload.Kind != clients.Open || p.Workload.Rate > 0.5*capacity {
		t.Errorf("workload %+v against a capacity of %.0f/s; want an open workload at most half of it, so that a busy machine's slower service does not overload it alone", p.Workload, capacity)
	}
	if !p.Target.ServeAbandoned || p.Target.QueueTimeout <= time.Second {
		t.Errorf("target %+v; want wasted work: serve_abandoned, and queued work outliving the 1 s client timeout", p.Target)
	}
	faults := p.Chaos.Faults()
	if len(faults) != 1 || p.Duration > 30*time.Second || p.Duration-faults[0].End() < 2*faults[0].For {
		t.Errorf("one trigger with room after it for twice its length, in at most 30 s: faults %+v in %s", faults, p.Duration)
	}
	if b, ok := faults[0].Fault.(chaos.Blip); !ok || !b.Blackhole {
		t.Errorf("trigger %+v, want a blackhole blip", faults[0].Fault)
	}
	byName := map[string]clients.Strategy{}
	for _, s := range p.Strategies {
		byName[s.Name] = s
		if s.Timeout != time.Second {
			t.Errorf("%s: timeout %s, want 1s for every cohort", s.Name, s.Timeout)
		}
	}
	if s := byName["naive"]; s.Backoff.Shape != clients.Exponential || s.MaxAttempts < 3 || s.Budget != nil || s.Breaker != nil {
		t.Errorf("naive = %+v", s)
	}
	if s := byName["full-jitter"]; s.Backoff.Shape != clients.Full || s.Budget != nil || s.Breaker != nil {
		t.Errorf("full-jitter = %+v", s)
	}
	if s := byName["jitter+budget+breaker"]; s.Backoff.Shape != clients.Full || s.Budget == nil || s.Breaker == nil ||
		s.Budget.Scope != clients.PerCohort || s.Breaker.Scope != clients.PerCohort {
		t.Errorf("jitter+budget+breaker = %+v", s)
	}
	if s := byName["botocore-standard"]; s.Budget == nil || s.Budget.Kind != "aws" || s.MaxAttempts != 3 {
		t.Errorf("botocore-standard = %+v", s)
	}
}
