package results

import "time"

// The metric definitions below are a contract: summary.json carries their
// values under these names and scripts and CI gates read them. docs/results.md
// repeats them in prose.

// WindowBuckets is the number of 10 ms buckets in the 1 s windows that
// herd_factor and recovery_s slide or step over.
const WindowBuckets = int(time.Second / Bucket)

// RecoveryRatio is the success ratio a 1 s window must reach to count as
// recovered.
const RecoveryRatio = 0.95

// HerdFactor measures how bunched attempts are. attempts holds attempts per
// 10 ms bucket. For each whole 1 s window from bucket from to the end, it
// takes the index of dispersion (population variance / mean) of the bucket
// counts inside the window; the result is the mean of these, weighted by each
// window's attempts. About 1 for independent (Poisson) arrivals, far above 1
// for synchronized waves, 0 when there were no attempts.
func HerdFactor(attempts []int64, from int) float64 {
	return dispersion(attempts[min(max(from, 0), len(attempts)):], WindowBuckets)
}

// dispersion is HerdFactor's arithmetic over buckets of any width: the
// index of dispersion of the counts inside each whole window of per
// buckets, weighted by each window's count.
func dispersion(counts []int64, per int) float64 {
	var weighted, total float64
	for w := 0; w+per <= len(counts); w += per {
		win := counts[w : w+per]
		var sum float64
		for _, c := range win {
			sum += float64(c)
		}
		if sum == 0 {
			continue
		}
		mean := sum / float64(len(win))
		var ss float64
		for _, c := range win {
			d := float64(c) - mean
			ss += d * d
		}
		dispersion := ss / float64(len(win)) / mean
		weighted += dispersion * sum
		total += sum
	}
	if total == 0 {
		return 0
	}
	return weighted / total
}

// Recovery returns the time from bucket from (the end of the last fault) to
// the start of the first 1 s window, sliding one bucket at a time, after
// which no 1 s window has a success ratio (ok / attempts) below
// RecoveryRatio. Windows without attempts do not count against recovery. It
// returns false when the last window of the run is still below the ratio:
// the target never recovered within the run. With less than a whole window
// after from, the one partial window decides.
func Recovery(ok, attempts []int64, from int) (time.Duration, bool) {
	n := len(attempts)
	from = max(from, 0)
	if from >= n {
		return 0, false
	}
	width := min(WindowBuckets, n-from)
	var sumOK, sumAll int64
	for b := from; b < from+width; b++ {
		sumOK += ok[b]
		sumAll += attempts[b]
	}
	bad := func() bool { return sumAll > 0 && float64(sumOK) < RecoveryRatio*float64(sumAll) }
	lastBad := -1
	for start := from; ; start++ {
		if bad() {
			lastBad = start
		}
		end := start + width
		if end >= n {
			break
		}
		sumOK += ok[end] - ok[start]
		sumAll += attempts[end] - attempts[start]
	}
	if lastBad == n-width {
		return 0, false
	}
	if lastBad < 0 {
		return 0, true
	}
	return time.Duration(lastBad+1-from) * Bucket, true
}

// FailedFrom returns the attempts that did not succeed in buckets from on.
func FailedFrom(ok, attempts []int64, from int) int64 {
	var n int64
	for b := max(from, 0); b < len(attempts); b++ {
		n += attempts[b] - ok[b]
	}
	return n
}

// BucketAt returns the first bucket that starts at or after t.
func BucketAt(t time.Duration) int { return int((t + Bucket - 1) / Bucket) }
