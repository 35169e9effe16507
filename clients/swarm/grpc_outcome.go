package swarm

import (
	"github.com/herdbench/herdbench/results"
)

// AttemptOutcome classifies one attempt of a grpc-go cohort, for the
// swarm's stats handler and for a client that records grpc-go's attempts
// from stats of its own (herdtest's gRPC cohorts): err is its stats.End error, left whether
// its headers went out on a connection (stats.OutHeader), answered
// whether the server's header or trailer arrived, reply whether a
// response message did. An attempt grpc-go ended without an error and
// without a reply is one it retries after the server answered during the
// send (its send saw io.EOF): a 5xx, or a reset when nothing was
// answered, as the status grpc-go retried is not in the stats.
func AttemptOutcome(err error, left, answered, reply bool) (results.Outcome, int) {
	switch {
	case err == nil && reply:
		return results.OK, 200
	case err == nil && answered:
		return results.HTTP5xx, 503
	case err == nil:
		return results.Reset, 0
	}
	return outcome(err, left, answered)
}
