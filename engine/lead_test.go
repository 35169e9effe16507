package engine

import (
	"testing"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/scenarios"
)

// The lead before t = 0 leaves every closed-loop or one-shot client of
// every cohort time to open its connection.
func TestLeadGrowsWithTheClients(t *testing.T) {
	two := []clients.Strategy{{Name: "a"}, {Name: "b"}}
	for _, tc := range []struct {
		w    clients.Workload
		want time.Duration
	}{
		{clients.Workload{Kind: clients.Closed, Clients: 1}, 200*time.Millisecond + 2*leadPerClient},
		{clients.Workload{Kind: clients.OneShot, Clients: 1000}, 200*time.Millisecond + 2000*leadPerClient},
		{clients.Workload{Kind: clients.Open, Rate: 1000}, 200 * time.Millisecond}, // no connections to open ahead
	} {
		p := &scenarios.Plan{Workload: tc.w, Strategies: two}
		if got := leadFor(p); got != tc.want {
			t.Errorf("%s workload, %d clients, 2 cohorts: lead %s, want %s", tc.w.Kind, tc.w.Clients, got, tc.want)
		}
	}
}
