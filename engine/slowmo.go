package engine

import (
	"fmt"

	"github.com/herdbench/herdbench/internal/slowmo"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/target/model"
)

// CheckSlowMotion reports whether a real-time run of p can run in slow
// motion as o says (Options.SlowMotion), and why not. Slow motion slows
// what herdbench drives, its swarm and its embedded target; it is refused
// where the run's time is kept by code herdbench does not drive, which
// would go on at real speed: an external service, grpc-go (its channels'
// timers and its own retries), and a user's cohorts (Options.Drive). A
// chain of tiers slows as a whole: every tier's server and relay.
func CheckSlowMotion(p *scenarios.Plan, o Options) error {
	f := o.SlowMotion
	if f < 0 || f > slowmo.Max {
		return fmt.Errorf("engine: slow motion %d: it must be from 1 (real speed) to %d", f, slowmo.Max)
	}
	if !f.On() || o.Sim {
		return nil
	}
	why := ""
	switch {
	case p.TargetURL != "":
		why = "the target is an external service, which answers at its own speed"
	case p.Target.Protocol == model.GRPC:
		why = "the scenario speaks gRPC, whose channels keep grpc-go's own timers"
	case o.Drive != nil:
		why = "its cohorts run code herdbench does not drive, which keeps its own clock"
	default:
		return nil
	}
	return fmt.Errorf("engine: slow motion (%d×) slows only herdbench's own clients and target, and %s; run it at real speed, or in virtual time (--sim)", f, why)
}
