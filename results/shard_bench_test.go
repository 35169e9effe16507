package results

import (
	"testing"
	"time"
)

// BenchmarkShardRecord records what one request of a closed loop records
// in a real run (its start, one attempt, its end) on a shared recorder's
// shard: the swarm's recording cost per request.
func BenchmarkShardRecord(b *testing.B) {
	r := NewRecorder(time.Minute, 64)
	s := r.Shard(0)
	at := time.Duration(0)
	for b.Loop() {
		at += 13 * time.Microsecond
		if at >= time.Minute {
			at = 0
		}
		s.Started(at)
		s.Attempt(Attempt{Sent: at, Latency: 500 * time.Microsecond, Number: 1, Outcome: OK, Lag: 20 * time.Microsecond, Status: 200})
		s.Request(Request{Start: at, End: at + 500*time.Microsecond, Succeeded: true})
	}
}
