package engine

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
)

// A panic in a simulator worker stops every worker and comes back as a
// *PanicError, with the cohort runs that finished, marked partial, instead
// of crashing the process.
func TestSimPanicIsRecovered(t *testing.T) {
	p := scenariotest.Plan(t, stallThenCrash, scenarios.Overrides{})
	o := Options{Mode: Mode{Sim: true, Runs: 3, Workers: 2, Timelines: true}}
	o.beforeTask = func(point, cohort, rep int) {
		if rep == 2 && cohort == 1 {
			panic("a simulated cohort failed")
		}
	}
	points, err := Execute(context.Background(), []*scenarios.Plan{p}, o)
	var pe *PanicError
	if !errors.As(err, &pe) || !errors.Is(err, ErrInternal) || pe.Value != "a simulated cohort failed" || !strings.Contains(string(pe.Stack), "TestSimPanicIsRecovered") {
		t.Fatalf("Execute: %v, want the *PanicError with its stack", err)
	}
	if len(points) != 1 || !points[0].Output.Summary.Partial || len(points[0].Output.Summary.Runs) != 2 {
		t.Fatalf("points: %+v; want one, partial, with both cohorts' finished runs", points)
	}
}

// panicConn panics on a write from its time on: a bug in a client's
// goroutine, in the middle of a real run.
type panicConn struct {
	net.Conn
	from time.Time
}

func (c panicConn) Write(b []byte) (int, error) {
	if !time.Now().Before(c.from) {
		panic("a client's connection failed")
	}
	return c.Conn.Write(b)
}

// A panic in a client's goroutine stops the real run: what was recorded
// until then comes back, marked partial, with the *PanicError; no
// goroutine is left behind (the bubble would not end).
func TestRealRunPanicIsRecovered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		p := scenariotest.Plan(t, stallThenCrash, scenarios.Overrides{})
		from := time.Now().Add(time.Second + leadFor(p, clients.Part{}))
		dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := n.Dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return panicConn{Conn: c, from: from}, nil
		}
		points, err := Execute(context.Background(), []*scenarios.Plan{p}, Options{Mode: Mode{Timelines: true}, Network: Network{Listen: n.Listen, Dial: dial}})
		var pe *PanicError
		if !errors.As(err, &pe) || pe.Value != "a client's connection failed" {
			t.Fatalf("Execute: %v, want the client's *PanicError", err)
		}
		s := points[0].Output.Summary
		if !s.Partial || s.EndedS == nil || *s.EndedS < 1 || *s.EndedS > 1.1 || s.Runs[0].Attempts == 0 {
			t.Errorf("the stopped run: partial %v, ended at %v s, %d attempts; want partial, ended at 1 s, with the attempts before", s.Partial, s.EndedS, s.Runs[0].Attempts)
		}
	})
}
