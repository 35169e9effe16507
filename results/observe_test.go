package results

import (
	"sync"
	"testing"
	"time"
)

// countingObserver counts the attempts it is told of, by status code.
type countingObserver struct {
	mu       sync.Mutex
	byStatus map[int]int
}

func (c *countingObserver) ObserveAttempt(a Attempt) {
	c.mu.Lock()
	c.byStatus[a.Status]++
	c.mu.Unlock()
}

// TestObserverSeesEveryAttempt: a shared recorder tells its observer of
// every attempt it records, from every shard, with the attempt as given;
// the observer's count is the recorder's attempts.
func TestObserverSeesEveryAttempt(t *testing.T) {
	o := &countingObserver{byStatus: map[int]int{}}
	r := NewRecorder(time.Second, 4).Observe(o)
	var wg sync.WaitGroup
	for id := range 8 {
		wg.Go(func() {
			for i := range 100 {
				a := Attempt{Sent: time.Duration(i) * time.Millisecond, Latency: time.Millisecond, Number: 1, Outcome: OK, Status: 200}
				if i%4 == 0 {
					a.Outcome, a.Status = HTTP5xx, 503
				}
				r.Shard(id).Attempt(a)
			}
		})
	}
	wg.Wait()
	if got := o.byStatus[200] + o.byStatus[503]; int64(got) != r.Live().Attempts || got != 800 || o.byStatus[503] != 200 {
		t.Errorf("observed %v, recorder's attempts %d; want 600 of 200 and 200 of 503", o.byStatus, r.Live().Attempts)
	}
}
