package cliff

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Unit is what an axis's values are.
type Unit string

// Units.
const (
	Number   Unit = ""  // a number: 0.35, 120.5
	Integer  Unit = "n" // a count: clients, a queue's length
	Duration Unit = "s" // a duration, in seconds on the grid, written "2.5s"
)

// Axis is a field the search varies over a grid of values: Lo, Lo+Step, ...
// up to Hi, which is on the grid.
type Axis struct {
	Path string  `json:"path"` // as --set names it: chaos[blip].for
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
	Step float64 `json:"step"`
	Unit Unit    `json:"unit"`
}

// MaxGrid is the most values an axis may have.
const MaxGrid = 10_000

// Len returns the number of values on the grid.
func (a Axis) Len() int { return int(math.Round((a.Hi-a.Lo)/a.Step)) + 1 }

// Value returns the grid's i-th value (from 0).
func (a Axis) Value(i int) float64 { return round9(a.Lo + float64(i)*a.Step) }

// Text returns the grid's i-th value as a scenario writes it: "2.5s",
// "120", "0.35".
func (a Axis) Text(i int) string { return a.Format(a.Value(i)) }

// Format writes a value of the axis as a scenario does.
func (a Axis) Format(v float64) string {
	switch a.Unit {
	case Duration:
		return strconv.FormatFloat(round9(v), 'f', -1, 64) + "s"
	case Integer:
		return strconv.FormatInt(int64(math.Round(v)), 10)
	}
	return strconv.FormatFloat(round9(v), 'f', -1, 64)
}

// Values returns every value of the grid as a scenario writes it: what a
// brute-force --set sweep over the same grid takes.
func (a Axis) Values() []string {
	out := make([]string, a.Len())
	for i := range out {
		out[i] = a.Text(i)
	}
	return out
}

// ParseAxis reads a --vary flag's value: PATH=LO..HI, or PATH=LO..HI/STEP
// for a step of one's own. LO and HI are durations ("1s..20s"), counts
// ("100..2000") or numbers ("0.05..0.5"), both of one kind; without a
// step, the grid has 40 to 100 values at a round step (a count's step is
// at least 1).
func ParseAxis(arg string) (Axis, error) {
	path, spec, ok := strings.Cut(arg, "=")
	path = strings.TrimSpace(path)
	bad := func(format string, args ...any) (Axis, error) {
		return Axis{}, fmt.Errorf("--vary %s: %s", arg, fmt.Sprintf(format, args...))
	}
	if !ok || path == "" {
		return bad("write PATH=LO..HI, e.g. --vary 'chaos[blip].for=1s..20s' or --vary workload.rate=50..300")
	}
	rng, stepText, hasStep := strings.Cut(spec, "/")
	loText, hiText, ok := strings.Cut(rng, "..")
	if !ok {
		return bad("write the range as LO..HI, e.g. %s=1s..20s (a step of your own after a slash: 1s..20s/0.5s)", path)
	}
	a := Axis{Path: path}
	lo, hi, unit, err := parsePair(strings.TrimSpace(loText), strings.TrimSpace(hiText))
	if err != nil {
		return bad("%v", err)
	}
	if !(lo < hi) {
		return bad("the range must go up: %s is not below %s", a.formatAs(unit, lo), a.formatAs(unit, hi))
	}
	a.Lo, a.Hi = lo, hi
	if hasStep {
		step, sunit, err := parseOne(strings.TrimSpace(stepText))
		if err != nil {
			return bad("the step: %v", err)
		}
		if (sunit == Duration) != (unit == Duration) {
			return bad("the step %s is not of the range's kind (%s)", stepText, kindName(unit))
		}
		if !(step > 0) || step > hi-lo {
			return bad("the step must be more than 0 and at most the range's width")
		}
		if unit == Integer && sunit != Integer {
			unit = Number // counts by a fraction: numbers
		}
		a.Step = step
		a.Unit = unit
	} else {
		a.Unit = unit
		a.Step = niceStep((hi - lo) / 40)
		if unit == Integer {
			a.Step = max(1, math.Round(a.Step))
		}
	}
	n := math.Floor((hi-lo)/a.Step + 1e-9)
	if n+1 > MaxGrid {
		return bad("%.0f values is more than the %d a grid may have; give a larger step", n+1, MaxGrid)
	}
	a.Hi = round9(lo + n*a.Step) // on the grid
	return a, nil
}

// niceStep returns the largest of 1, 2 and 5 times a power of ten that is at
// most x.
func niceStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{5, 2, 1} {
		if m*p <= x*(1+1e-9) {
			return round9(m * p)
		}
	}
	return p
}

// parsePair reads a range's two ends, of one kind.
func parsePair(lo, hi string) (float64, float64, Unit, error) {
	l, lu, err := parseOne(lo)
	if err != nil {
		return 0, 0, "", err
	}
	h, hu, err := parseOne(hi)
	if err != nil {
		return 0, 0, "", err
	}
	switch {
	case lu == hu:
		return l, h, lu, nil
	case lu != Duration && hu != Duration:
		return l, h, Number, nil // a count and a number: numbers
	}
	return 0, 0, "", fmt.Errorf("%s and %s are not of one kind: write both as durations (1s..20s) or both as numbers", lo, hi)
}

// parseOne reads one value: a duration with its unit, a count, or a number.
func parseOne(s string) (float64, Unit, error) {
	if s == "" {
		return 0, "", fmt.Errorf("a value is missing")
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return float64(i), Integer, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		return f, Number, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		return d.Seconds(), Duration, nil
	}
	return 0, "", fmt.Errorf("%q is not a duration (2.5s), a count (100) nor a number (0.35)", s)
}

func kindName(u Unit) string {
	switch u {
	case Duration:
		return "durations"
	case Integer:
		return "counts"
	}
	return "numbers"
}

func (a Axis) formatAs(u Unit, v float64) string {
	a.Unit = u
	return a.Format(v)
}
