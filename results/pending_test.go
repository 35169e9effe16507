package results

import (
	"sync"
	"testing"
	"time"
)

// A shard keeps the timeline's counts of the buckets it last recorded in
// until it moves on or a reader asks; every reader sees every record:
// records from many goroutines, out of bucket order and across more
// buckets than a shard keeps, are all in the timeline, its columns, the
// herd so far and a copy of the recording so far, each in its bucket.
func TestPendingCountsReachEveryReader(t *testing.T) {
	const run = 10 * time.Second
	rec := NewRecorder(run, 3)
	// Bucket b (of 10 ms) gets b%7+1 requests from each of 4 clients,
	// each recorded in a bucket order of its own.
	var wg sync.WaitGroup
	for c := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sh := rec.Shard(c)
			for k := range 1000 {
				b := (k*[]int{1, 3, 7, 9}[c] + c) % 1000 // every bucket once, in an order of its own
				at := time.Duration(b)*Bucket + time.Millisecond
				for range b%7 + 1 {
					sh.Started(at)
					sh.Attempt(Attempt{Sent: at, Latency: time.Millisecond, Number: 1 + b%2, Outcome: Outcome(b % 3)})
					sh.Request(Request{Start: at, End: at + time.Millisecond, Succeeded: b%3 == 0})
				}
			}
		}()
	}
	wg.Wait()
	tl := rec.Timeline(Bucket)
	attempts, _, outcomes := rec.columns()
	defer putColumns(attempts)
	var want [NumOutcomes]int64
	for b := range 1000 {
		n := int64(4 * (b%7 + 1))
		row := tl.Rows[b]
		first, retry := row[SeriesFirst], row[SeriesRetry1]
		if row[b%3] != n || row[SeriesRequests] != n || first+retry != n || (b%2 == 0) != (first == n) ||
			row[SeriesSucceeded]+row[SeriesFailed] != n || attempts[b] != n {
			t.Fatalf("bucket %d: %v (columns: %d attempts), want %d of each", b, row, attempts[b], n)
		}
		want[b%3] += n
	}
	if outcomes != want {
		t.Errorf("outcomes %v, want %v", outcomes, want)
	}
	if l := rec.Live(); l.Attempts != want[0]+want[1]+want[2] || l.Requests != l.Attempts {
		t.Errorf("live totals %+v, want %d attempts and requests", l, want[0]+want[1]+want[2])
	}
	// One more record after the reads: the next reader sees it too.
	rec.Shard(0).Attempt(Attempt{Sent: 501 * Bucket, Latency: time.Millisecond, Number: 1})
	if got, want := rec.Upto(run).Timeline(Bucket).Rows[501][OK], int64(4*(501%7+1)+1); got != want {
		t.Errorf("the copy's bucket 501 holds %d ok, want %d", got, want)
	}
	if h := rec.HerdSoFar(run); h <= 0 {
		t.Errorf("herd so far %v, want the timeline's", h)
	}
}
