package engine

import (
	"errors"
	"fmt"
	"math"
	"syscall"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/scenarios"
)

// ErrTooManyFiles is wrapped by the error of a real-time run that would need
// more open files than the process may have.
var ErrTooManyFiles = errors.New("not enough open files for this run")

// filesSpare is what the process keeps for itself: listeners, results
// files, the metrics server.
const filesSpare = 200

// FilesNeeded returns how many open files a real-time run of p needs at
// least: one connection per closed-loop or one-shot client per cohort, and
// as many again on the embedded target's side. Open workloads depend on
// the target's latency and are not counted.
func FilesNeeded(p *scenarios.Plan) int {
	if p.Workload.Kind == clients.Open {
		return filesSpare
	}
	perClient := uint64(2) // the client's end and the embedded target's
	if p.TargetURL != "" {
		perClient = 1
	}
	n := add(sat(sat(uint64(max(0, p.Workload.Clients)), uint64(len(p.Strategies))), perClient), filesSpare)
	return int(min(n, math.MaxInt)) // saturates: never wraps around to a small count
}

// checkFiles refuses, before anything starts, a run that would run out of
// open files halfway (every connection past the limit would fail as if the
// target refused it, a result about this machine, not about the target).
func checkFiles(p *scenarios.Plan) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return nil // unknown: let the run show it
	}
	need := FilesNeeded(p)
	if uint64(need) <= lim.Cur {
		return nil
	}
	return fmt.Errorf("%w: %d clients in each of %d cohorts need about %d open files in real time, and this process may open %d (ulimit -n); "+
		"run it in virtual time with --sim, or with fewer clients (--clients) or cohorts (--strategies)",
		ErrTooManyFiles, p.Workload.Clients, len(p.Strategies), need, lim.Cur)
}
