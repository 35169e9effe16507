package slowmo

import "time"

// Factor is how many times slower than the scenario's clock a run lives
// on the wall clock. 0 and 1 are real speed.
type Factor int

// Max is the largest Factor a run takes: beyond it a minute's scenario
// lasts more than a day.
const Max = 1000

// k returns the factor as a multiplier, 1 for real speed.
func (f Factor) k() time.Duration {
	if f <= 1 {
		return 1
	}
	return time.Duration(f)
}

// On reports whether f slows the run down.
func (f Factor) On() bool { return f > 1 }

// Wall returns how long scenario duration d lasts on the wall clock.
func (f Factor) Wall(d time.Duration) time.Duration { return d * f.k() }

// Scenario returns the scenario duration that wall duration d stands for.
func (f Factor) Scenario(d time.Duration) time.Duration { return d / f.k() }

// At returns the wall-clock instant of scenario time d since origin, the
// run's t = 0.
func (f Factor) At(origin time.Time, d time.Duration) time.Time { return origin.Add(f.Wall(d)) }

// Between returns the scenario time of wall-clock instant t since origin.
func (f Factor) Between(origin, t time.Time) time.Duration { return f.Scenario(t.Sub(origin)) }

// Since returns the scenario time elapsed since origin.
func (f Factor) Since(origin time.Time) time.Duration { return f.Between(origin, time.Now()) }
