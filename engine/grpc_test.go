package engine

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
)

// grpcScenario is answerScenario over gRPC: the embedded target speaks
// gRPC and the swarm calls it on grpc-go channels.
func grpcScenario(kind string) string {
	return strings.Replace(answerScenario(kind, false), "target: {", "target: {protocol: grpc, ", 1)
}

// TestGRPCAnswerTable: every effect of the answer table, applied by the
// target's gRPC wire (answerGRPC) to herdbench's swarm on grpc-go
// channels, in a synctest bubble over the in-memory network, makes the
// attempts and outcomes the HTTP/1.1 wire makes. A refuse outage is a
// reset for gRPC in one respect: the channel's reconnection is grpc-go's,
// which the row checks by outcome only.
func TestGRPCAnswerTable(t *testing.T) {
	for _, c := range answerCases {
		t.Run(c.name, func(t *testing.T) {
			hp := scenariotest.Plan(t, answerScenario("answer-"+c.name, false), scenarios.Overrides{})
			gp := scenariotest.Plan(t, grpcScenario("answer-"+c.name), scenarios.Overrides{})
			h := runInBubble(t, hp).Summary.Runs[0]
			g := runInBubble(t, gp).Summary.Runs[0]
			if g.Attempts != h.Attempts || !maps.Equal(g.Outcomes, h.Outcomes) {
				t.Errorf("gRPC: %d attempts, outcomes %v; HTTP/1.1: %d, %v", g.Attempts, g.Outcomes, h.Attempts, h.Outcomes)
			}
			if g.CompletionS == nil || h.CompletionS == nil {
				t.Fatalf("completion: gRPC %v, HTTP/1.1 %v", g.CompletionS, h.CompletionS)
			}
			if gd, hd := *g.CompletionS, *h.CompletionS; fmt.Sprintf("%.2f", gd) != fmt.Sprintf("%.2f", hd) {
				t.Errorf("the work ended at %.3fs over gRPC, %.3fs over HTTP/1.1", gd, hd)
			}
		})
	}
}
