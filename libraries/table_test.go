package libraries

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/herdtest"
	"github.com/herdbench/herdbench/results"
)

// storm is a built-in scenario the table runs, with the attempt timeout of
// its own strategies and, for a closed workload, a smaller fleet.
type storm struct {
	name    string
	timeout time.Duration
	clients int      // 0: the scenario's
	set     []string // fields changed, as herdtest.Options.Set
	label   string   // the table's scenario column
	// deadlines says every failure of the storm is a timeout (a
	// blackhole): grpc-go, whose deadline covers the RPC, never retries
	// DEADLINE_EXCEEDED, so it does not retry at all.
	deadlines bool
}

// storms are the table's scenarios. The outage runs 200 clients per
// library instead of its 500, to keep CI's virtual half fast; the
// metastable scenario's workload is open (100 arrivals per second), one
// client serving them all.
var storms = []storm{
	{"outage", 3 * time.Second, 200, nil, "outage", false},
	{"metastable", time.Second, 0, nil, "metastable", false},
}

// grpcStorms are the same storms over gRPC, for the gRPC libraries: the
// built-in grpc-outage (the outage's service and faults, its target
// speaking gRPC) and metastable with target.protocol grpc.
var grpcStorms = []storm{
	{"grpc-outage", 3 * time.Second, 200, nil, "grpc-outage", false},
	{"metastable", time.Second, 0, []string{"target.protocol=grpc"}, "metastable over gRPC", true},
}

// stormsOf returns the storms a library runs: over gRPC for a gRPC one.
func stormsOf(grpc bool) []storm {
	if grpc {
		return grpcStorms
	}
	return storms
}

// byProtocol splits libraries into those over HTTP and those over gRPC,
// each group run in its own storms.
func byProtocol(libs []Library) [2][]Library {
	var out [2][]Library
	for _, l := range libs {
		if l.GRPC {
			out[1] = append(out[1], l)
		} else {
			out[0] = append(out[0], l)
		}
	}
	return out
}

// realTime reports whether the table's real-time half runs: only by hand,
// with HERDBENCH_REAL=1, since each library then takes the scenario's
// duration of wall time.
func realTime() bool { return os.Getenv("HERDBENCH_REAL") == "1" }

// TestLibraryTable prints every library's figures under the built-in
// outage and metastable scenarios, in virtual time and, with
// HERDBENCH_REAL=1, in real time (each library alone on the machine):
//
//	go test -count=1 -v -run TestLibraryTable .
//	HERDBENCH_REAL=1 go test -count=1 -v -timeout 20m -run TestLibraryTable .
//
// It asserts what every cohort must show to be a row at all: requests
// ran, and every library retried (amplification above 1) through the
// storm.
func TestLibraryTable(t *testing.T) {
	var rows []string
	for g, libs := range byProtocol(chosen(t)) {
		if len(libs) == 0 {
			continue
		}
		rows = append(rows, table(t, libs, stormsOf(g == 1))...)
	}
	t.Logf("\n| library | scenario | mode | herd factor | amplification | success | failed after fault | recovery | transport re-sends |\n|---|---|---|---:|---:|---:|---:|---:|---:|\n%s", strings.Join(rows, "\n"))
}

// chosen is All, or with HERDBENCH_LIBRARIES=a,b,... those libraries
// only (to split the real-time half into shorter runs).
func chosen(t *testing.T) []Library {
	names := os.Getenv("HERDBENCH_LIBRARIES")
	if names == "" {
		return All()
	}
	var out []Library
	for _, n := range strings.Split(names, ",") {
		out = append(out, library(t, strings.TrimSpace(n)))
	}
	return out
}

// table runs libs through each storm in each mode and returns the rows.
func table(t *testing.T, libs []Library, storms []storm) []string {
	var rows []string
	for _, st := range storms {
		modes := []herdtest.Mode{herdtest.Virtual}
		if realTime() {
			modes = append(modes, herdtest.Real)
		}
		byMode := map[herdtest.Mode][]results.Run{}
		for _, mode := range modes {
			var runs []results.Run
			if mode == herdtest.Virtual {
				// Every library at once, each with its own target: virtual time
				// has no scheduler noise for them to share.
				runs = measure(t, st, mode, libs...)
			} else {
				for _, l := range libs { // one at a time, each alone on the cores
					runs = append(runs, measure(t, st, mode, l)...)
				}
			}
			for i, r := range runs {
				switch {
				case libs[i].GRPC && st.deadlines:
					if r.Requests == 0 || r.Amplification > 1.01 {
						t.Errorf("%s, %s, %s: %d requests, amplification %.2f: want requests, and no retry of a deadline", libs[i].Name, st.label, mode, r.Requests, r.Amplification)
					}
				case r.Requests == 0 || r.Amplification <= 1:
					t.Errorf("%s, %s, %s: %d requests, amplification %.2f: want requests, retried", libs[i].Name, st.label, mode, r.Requests, r.Amplification)
				}
				rows = append(rows, row(libs[i].Name, st.label, libs[i].GRPC, mode, r))
			}
			byMode[mode] = runs
		}
		if realTime() {
			for i, v := range byMode[herdtest.Virtual] {
				if d := socketGap(v, byMode[herdtest.Real][i]); d != "" {
					t.Errorf("%s, %s: real time is not virtual time's within docs/virtual-time.md's band on sockets: %s", libs[i].Name, st.name, d)
				}
			}
		}
	}
	return rows
}

// measure runs the libraries as cohorts of one herdtest run and returns
// their figures, in order.
func measure(t *testing.T, st storm, mode herdtest.Mode, libs ...Library) []results.Run {
	t.Helper()
	var cohorts []herdtest.Cohort
	for _, l := range libs {
		cohorts = append(cohorts, herdtest.Cohort{Name: l.Name, New: l.New(st.timeout)})
	}
	s, err := herdtest.Measure(t, herdtest.Options{Scenario: st.name, Mode: mode, Clients: st.clients, Set: st.set, Out: t.TempDir()}, cohorts...)
	if err != nil {
		t.Fatal(err)
	}
	return s.Runs
}

// transportResends is net/http's own re-sends (herdtest counts them).
var transportResends, _ = results.LookupMetric("transport_resends")

func row(lib, scenario string, grpc bool, mode herdtest.Mode, r results.Run) string {
	success, recovery := "–", "–"
	if r.SuccessRatio != nil {
		success = fmt.Sprintf("%.1f%%", 100**r.SuccessRatio)
	}
	if r.RecoveryS != nil {
		recovery = fmt.Sprintf("%.2f s", *r.RecoveryS)
	}
	m := "virtual"
	if mode == herdtest.Real {
		m = "real"
	}
	resends := "–" // net/http's: none over gRPC
	if v, ok := transportResends.Value(&r); ok && !grpc {
		resends = fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("| %s | %s | %s | %.1f | %.2f | %s | %d | %s | %s |", lib, scenario, m, r.HerdFactor, r.Amplification, success, r.FailedAfterFault, recovery, resends)
}

// socketGap says how a real-time run r leaves the band docs/virtual-time.md
// gives a run on sockets around its virtual-time figures v: 20% on
// amplification and success ratio (the herd factor and the failures
// after a fault are not comparable on sockets: a wave spreads over
// several buckets). "" when it does not.
func socketGap(v, r results.Run) string {
	var out []string
	if math.Abs(r.Amplification-v.Amplification) > 0.2*v.Amplification {
		out = append(out, fmt.Sprintf("amplification %.2f against %.2f", r.Amplification, v.Amplification))
	}
	if v.SuccessRatio != nil && r.SuccessRatio != nil && math.Abs(*r.SuccessRatio-*v.SuccessRatio) > 0.2**v.SuccessRatio {
		out = append(out, fmt.Sprintf("success %.3f against %.3f", *r.SuccessRatio, *v.SuccessRatio))
	}
	return strings.Join(out, ", ")
}
