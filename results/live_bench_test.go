package results

import (
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkShardAttemptLive records attempts from parallel goroutines, each
// on its own shard as the swarm's clients are, with the live counters on.
func BenchmarkShardAttemptLive(b *testing.B) {
	rec := NewRecorder(time.Minute, 16)
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		sh := rec.Shard(int(next.Add(1)))
		var i int
		for pb.Next() {
			sh.InFlight(1)
			sh.Attempt(Attempt{Sent: time.Duration(i) * time.Millisecond % time.Minute, Latency: 3 * time.Millisecond, Number: 1 + i%5, Outcome: Outcome(i % 3)})
			sh.InFlight(-1)
			i++
		}
	})
}
