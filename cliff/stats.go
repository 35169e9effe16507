package cliff

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Level is the confidence of every interval the package reports.
const Level = 0.95

// medianRanks returns the ranks (from 0) of the sorted sample of n whose
// values bound a 95% confidence interval of its median: X(j) and X(n+1-j),
// 1-based, for the largest j with P(B ≤ j-1) ≤ 2.5%, B ~ Binomial(n, ½)
// (for 16 seeds the 4th and the 13th, 97.9%). ok is false when n is too
// small for any (fewer than 6).
func medianRanks(n int) (lo, hi int, ok bool) {
	b := distuv.Binomial{N: float64(n), P: 0.5}
	j := 0
	for j < n/2 && b.CDF(float64(j)) <= (1-Level)/2 {
		j++
	}
	if j == 0 {
		return 0, n - 1, false
	}
	return j - 1, n - j, true
}

// Upper is the one-sided upper 95% Clopper–Pearson bound of a probability
// seen k times in n: p is below it with 95% confidence.
func Upper(k, n int) float64 {
	if n == 0 || k >= n {
		return 1
	}
	return distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(Level)
}

// Lower is the one-sided lower 95% Clopper–Pearson bound of a probability
// seen k times in n.
func Lower(k, n int) float64 {
	if n == 0 || k <= 0 {
		return 0
	}
	return distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(1 - Level)
}

// round9 rounds x to 9 decimals: a grid value computed as lo + i·step,
// rid of its floating-point dust (1 + 3 × 0.2 is 1.6, not 1.6000000000000001).
func round9(x float64) float64 { return math.Round(x*1e9) / 1e9 }
