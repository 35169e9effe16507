package libraries

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/cenkalti/backoff/v4"
	backoffv5 "github.com/cenkalti/backoff/v5"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/sethvargo/go-retry"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/scenarios"
)

// presetStrategy compiles a strategy that is the preset alone, as a
// scenario runs it.
func presetStrategy(t *testing.T, preset string) clients.Strategy {
	t.Helper()
	s, err := scenarios.Parse("p.yaml", fmt.Appendf(nil, "name: p\nduration: 10s\nseed: 1\nstrategies:\n  - {name: p, preset: %s}\n", preset))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Compile(scenarios.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	return p.Strategies[0]
}

// retries is how many waits the tests compare: past every cap.
const retries = 16

// TestPresetWaitsAreTheLibrarys holds each Go library's preset to the
// waits the library's own code draws before retries 1 to 16: the
// library's backoff, called as its retry loop calls it, against the
// preset's compiled backoff. Without jitter (go-retryablehttp's
// DefaultBackoff, go-retry's Fibonacci) the waits are equal; with
// cenkalti/backoff's ±50%, 4000 sequences each wait of which falls in the
// preset's range [Next(n, u=0), Next(n, u→1)], whose ends they reach
// within 2% and whose middle their mean is within 2% of.
func TestPresetWaitsAreTheLibrarys(t *testing.T) {
	t.Run("go-retryablehttp", func(t *testing.T) {
		st := presetStrategy(t, "go-retryablehttp")
		rc := retryablehttp.NewClient()
		for i := range retries {
			// Do waits Backoff(RetryWaitMin, RetryWaitMax, i, resp) after
			// the failed attempt i (from 0), for RetryMax retries.
			want := rc.Backoff(rc.RetryWaitMin, rc.RetryWaitMax, i, nil)
			if got := st.Backoff.Next(i+1, 0, 0.5); got != want {
				t.Errorf("retry %d: preset %s, library %s", i+1, got, want)
			}
		}
		if st.MaxAttempts != rc.RetryMax+1 {
			t.Errorf("preset: %d attempts; library: RetryMax %d retries", st.MaxAttempts, rc.RetryMax)
		}
	})
	t.Run("sethvargo-go-retry-fibonacci", func(t *testing.T) {
		st := presetStrategy(t, "sethvargo-go-retry-fibonacci")
		b := retry.NewFibonacci(time.Second)
		for i := range retries {
			want, stop := b.Next()
			if got := st.Backoff.Next(i+1, 0, 0.5); stop || got != want {
				t.Errorf("retry %d: preset %s, library %s (stop %v)", i+1, got, want, stop)
			}
		}
		if st.MaxAttempts != 0 {
			t.Errorf("preset: %d attempts; the library retries until the context ends", st.MaxAttempts)
		}
	})
	t.Run("cenkalti-backoff-v4", func(t *testing.T) {
		jittered(t, presetStrategy(t, "cenkalti-backoff-v4"), func() func() time.Duration {
			b := backoff.NewExponentialBackOff()
			b.Reset() // as Retry does
			return b.NextBackOff
		})
	})
	t.Run("cenkalti-backoff-v5", func(t *testing.T) {
		jittered(t, presetStrategy(t, "cenkalti-backoff-v5"), func() func() time.Duration {
			b := backoffv5.NewExponentialBackOff()
			b.Reset() // as Retry does
			return b.NextBackOff
		})
	})
}

// jittered compares a preset with jitter to the waits of sequences that
// newSeq starts: each its library's fresh backoff, called once a retry.
func jittered(t *testing.T, st clients.Strategy, newSeq func() func() time.Duration) {
	t.Helper()
	const sequences = 4000
	var lo, hi, sum [retries]float64
	for i := range lo {
		lo[i] = math.Inf(1)
	}
	for range sequences {
		next := newSeq()
		for i := range retries {
			w := float64(next())
			lo[i], hi[i], sum[i] = min(lo[i], w), max(hi[i], w), sum[i]+w
		}
	}
	for i := range retries {
		from, to := float64(st.Backoff.Next(i+1, 0, 0)), float64(st.Backoff.Next(i+1, 0, math.Nextafter(1, 0)))
		mean := sum[i] / sequences
		switch {
		case lo[i] < from-1 || hi[i] > to+2: // the library's +1 ns
			t.Errorf("retry %d: the library waited from %s to %s, outside the preset's %s to %s", i+1, dur(lo[i]), dur(hi[i]), dur(from), dur(to))
		case lo[i] > from+0.02*(to-from) || hi[i] < to-0.02*(to-from):
			t.Errorf("retry %d: the library waited from %s to %s, short of the preset's %s to %s", i+1, dur(lo[i]), dur(hi[i]), dur(from), dur(to))
		case math.Abs(mean-(from+to)/2) > 0.02*(to-from):
			t.Errorf("retry %d: the library's mean wait %s, the preset's %s", i+1, dur(mean), dur((from+to)/2))
		}
	}
	if st.MaxAttempts != 0 {
		t.Errorf("preset: %d attempts; the library has no limit on tries (15 minutes of them)", st.MaxAttempts)
	}
}

func dur(ns float64) time.Duration { return time.Duration(ns).Round(time.Microsecond) }
