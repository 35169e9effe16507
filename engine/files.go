package engine

import (
	"errors"
	"fmt"
	"math"
	"syscall"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/netguard"
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
// as many again on the embedded target's side; in a chain of tiers, also
// each middle tier's connections to the next, one per call in flight (at
// most its concurrency, and at most the clients), both ends. Open
// workloads depend on the target's latency and are not counted.
func FilesNeeded(p *scenarios.Plan) int {
	if p.Workload.Kind == clients.Open {
		return filesSpare
	}
	perClient := uint64(2) // the client's end and the embedded target's
	if p.TargetURL != "" {
		perClient = 1
	}
	var conns uint64
	for _, c := range tierConns(p) {
		conns = add(conns, c)
	}
	n := add(sat(sat(conns, uint64(len(p.Strategies))), perClient), filesSpare)
	return int(min(n, math.MaxInt)) // saturates: never wraps around to a small count
}

// tierConns returns how many connections into each server of one cohort
// of p a closed or oneshot workload holds at most: the clients' into the
// target (or the first tier), and each middle tier's into the next, one
// per call in flight.
func tierConns(p *scenarios.Plan) []uint64 {
	clientConns := uint64(max(0, p.Workload.Clients))
	out := []uint64{clientConns}
	for k := 1; k < len(p.Tiers); k++ {
		out = append(out, min(clientConns, uint64(max(1, p.Tiers[k-1].Target.Concurrency))))
	}
	return out
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
	tiers := ""
	if len(p.Tiers) > 1 {
		tiers = fmt.Sprintf(" (with their %d tiers' calls to each other)", len(p.Tiers))
	}
	return fmt.Errorf("%w: %d clients in each of %d cohorts%s need about %d open files in real time, and this process may open %d (ulimit -n); "+
		"run it in virtual time with --sim, or with fewer clients (--clients) or cohorts (--strategies)",
		ErrTooManyFiles, p.Workload.Clients, len(p.Strategies), tiers, need, lim.Cur)
}

// embeddedLimits returns the limits of an embedded target's traffic port.
// Its connection cap is an equal share, per cohort, of the open files left
// after filesSpare, counting both ends of each connection (the swarm's and
// the target's are in one process): so a run that checkFiles admits has
// every cohort's clients under its target's cap, and a stranger's slow
// connections cannot take the files the swarm, the results and the
// metrics server need. Headers are timed out as on every traffic port;
// idle connections are kept for the whole run, however long a client
// thinks or backs off.
//
// In a chain of tiers, each cohort's share is split between its tiers in
// proportion to the connections each receives at most (tierConns), and
// every tier's server gets the largest tier's part: so every tier's cap
// is at least what it receives, whenever checkFiles admits the run.
func embeddedLimits(p *scenarios.Plan) netguard.Limits {
	share := (netguard.OpenFiles() - filesSpare) / (2 * max(1, len(p.Strategies)))
	switch {
	case len(p.Tiers) < 2:
	case p.Workload.Kind == clients.Open:
		share /= len(p.Tiers)
	default:
		var all, most uint64
		for _, c := range tierConns(p) {
			all, most = add(all, c), max(most, c)
		}
		share = int(min(uint64(max(0, share)), sat(uint64(max(0, share)), most)/max(1, all)))
	}
	return netguard.Limits{
		MaxConns:          max(1, share),
		ReadHeaderTimeout: netguard.TrafficHeaderTimeout,
		IdleTimeout:       max(netguard.TrafficIdleTimeout, leadFor(p, clients.Part{})+p.Duration),
	}
}
