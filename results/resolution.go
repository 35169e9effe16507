package results

import (
	"fmt"
	"time"
)

// Figures of waves at a coarser resolution. A wave is as wide as its
// latest clients: where a machine with few cores hands a crash to its
// clients over 30 ms, the herd factor over 10 ms buckets measures the
// machine as much as the strategy. The same figure over wider buckets (a
// wave 30 ms wide fits in one of 50 ms) says what the strategy did at a
// resolution the run held; the verdict reads it there, beside the
// simulator's figure over the same buckets. herd_factor in summary.json
// stays the 10 ms figure its name promises.

// Resolutions are the bucket widths a figure of waves is read at, finest
// first: the timeline's own (Bucket), then wider ones that divide a
// second, so that every 1 s window holds whole buckets.
var Resolutions = [...]time.Duration{Bucket, 20 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond}

// HerdFactors is a cohort's herd factor at each of Resolutions, in their order.
type HerdFactors [len(Resolutions)]float64

// HerdFactorAt is HerdFactor over buckets of res (a multiple of Bucket
// that divides a second, one of Resolutions): attempts holds attempts per
// 10 ms bucket, summed res at a time from bucket from on; each 1 s window
// then holds a second / res of them. HerdFactorAt(a, from, Bucket) is
// HerdFactor(a, from).
func HerdFactorAt(attempts []int64, from int, res time.Duration) float64 {
	per := int(res / Bucket)
	if per <= 1 {
		return HerdFactor(attempts, from)
	}
	from = max(from, 0)
	n := (len(attempts) - from) / per
	wide := make([]int64, max(n, 0))
	for i := range wide {
		for _, c := range attempts[from+i*per : from+(i+1)*per] {
			wide[i] += c
		}
	}
	return dispersion(wide, WindowBuckets/per)
}

// HerdFactorsOf reads a cohort's herd factor at every one of Resolutions, from
// the start of the plan's first fault (w) on, as Summarize reads
// herd_factor.
func HerdFactorsOf(c Cohort, w Window) HerdFactors {
	attempts, _, _ := c.Rec.columns()
	defer putColumns(attempts)
	return HerdFactorsOfAttempts(attempts, w)
}

// HerdFactorsOfAttempts is HerdFactorsOf of a cohort's attempts per 10 ms
// bucket (a timeline.csv read back: Timeline.Attempts).
func HerdFactorsOfAttempts(attempts []int64, w Window) HerdFactors {
	var out HerdFactors
	for i, res := range Resolutions {
		out[i] = round(HerdFactorAt(attempts, BucketAt(w.FirstStart), res), 3)
	}
	return out
}

// At returns the herd factor at resolution res (one of Resolutions).
func (w HerdFactors) At(res time.Duration) float64 {
	for i, r := range Resolutions {
		if r == res {
			return w[i]
		}
	}
	panic(fmt.Sprintf("results: no herd factor at %s; the resolutions are %v", res, Resolutions))
}
