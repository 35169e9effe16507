package chaos_test

import (
	"fmt"
	"time"

	"github.com/herdbench/herdbench/chaos"
)

// A chaos plan is compiled once from faults on a timeline; what is active
// at any instant is then a lookup, which the real target and the simulator
// both make. A stall (requests hang), then at 4.5 s a crash (connections
// reset); after the crash the target cold-starts from 6.8 s.
func ExamplePlan_ActiveAt() {
	plan, err := chaos.NewPlan([]chaos.Timed{
		{Name: "stall", Kind: "blip", At: 3 * time.Second, For: 1500 * time.Millisecond, Fault: chaos.Blip{Blackhole: true}},
		{Name: "crash", Kind: "outage", At: 4500 * time.Millisecond, For: 2300 * time.Millisecond, Fault: chaos.Outage{Mode: chaos.Reset}},
	}, 15*time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, at := range []time.Duration{0, 3 * time.Second, 4500 * time.Millisecond, 5 * time.Second, 7 * time.Second} {
		e := plan.ActiveAt(at)
		recovered := "-"
		if e.RecoveredAt >= 0 {
			recovered = e.RecoveredAt.String()
		}
		fmt.Printf("at %-5v active %-8q outage %-5v blackhole %-5v cold start from %s\n", at, e.ActiveNames(), e.Outage, e.Blackhole, recovered)
	}
	// Output:
	// at 0s    active ""       outage none  blackhole false cold start from -
	// at 3s    active "stall"  outage none  blackhole true  cold start from -
	// at 4.5s  active "crash"  outage reset blackhole false cold start from -
	// at 5s    active "crash"  outage reset blackhole false cold start from -
	// at 7s    active ""       outage none  blackhole false cold start from 6.8s
}
