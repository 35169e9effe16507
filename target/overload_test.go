package target

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/target/model"
)

// TestOverloadedUnderTheLock: the model's answer to a request capacity
// turned away (Model.Overloaded: a full queue, or a queue timeout) is read
// under the server's lock, as every call on the model is, while the plan
// is swapped by control calls and other requests move the model. It was
// once read outside the lock. The package's tests check the lock on every
// use of the model (Server.locked panics without it), which fails this
// test on that code; run with -race, it checks the same for any field a
// future Overloaded reads. Every request is answered: 200 served, or 503.
func TestOverloadedUnderTheLock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := model.Config{Concurrency: 1, Queue: 2, QueueTimeout: 30 * time.Millisecond, ServiceTime: dist.Const(50 * time.Millisecond)}
		s := newStandalone(t, Options{Config: cfg})
		var wg sync.WaitGroup
		codes := make(chan int, 64)
		for range 24 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 4 {
					code, _ := s.get(time.Second)
					codes <- code
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				// A brownout that leaves the capacity whole: each one swaps the
				// model's plan (SetPlan), under the lock.
				f := chaos.Timed{Name: "swap", Kind: "brownout", At: time.Duration(i) * time.Millisecond, For: time.Millisecond, Fault: chaos.Brownout{Capacity: 1}}
				if err := s.srv.Inject(f); err != nil {
					t.Error(err)
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		}()
		go func() { wg.Wait(); close(codes) }()
		seen := map[int]int{}
		for c := range codes {
			seen[c]++
		}
		if seen[200] == 0 || seen[503] == 0 || seen[200]+seen[503] != 96 {
			t.Errorf("answers %v; want 96, some served (200), some turned away (503), none else", seen)
		}
	})
}
