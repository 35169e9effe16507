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

// BenchmarkShardRequestParallel records what one request of a closed
// loop at saturation records, from parallel goroutines on their own shards
// (the swarm's clients): its start, its one attempt (in flight around it)
// and its end, every record in the same 10 ms bucket as the others' (the
// shared timeline's hot row).
func BenchmarkShardRequestParallel(b *testing.B) {
	rec := NewRecorder(time.Minute, 16)
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		sh := rec.Shard(int(next.Add(1)))
		var i int
		for pb.Next() {
			at := time.Duration(i) * 20 * time.Microsecond % time.Minute
			sh.Started(at)
			sh.InFlight(1)
			sh.Attempt(Attempt{Sent: at, Latency: 300 * time.Microsecond, Number: 1, Outcome: OK, Status: 200})
			sh.InFlight(-1)
			sh.Request(Request{Start: at, End: at + 300*time.Microsecond, Succeeded: true})
			i++
		}
	})
}
