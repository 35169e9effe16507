package folder

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
)

func TestTidyNumbers(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"recovery_s": 1.6400000000000001}`, `{"recovery_s": 1.64}`},
		{`[0.30000000000000004, -2.9999999999999996, 1e-7, 12345678901234567]`, `[0.3, -3, 1e-7, 12345678901234567]`},
		{`{"mean": 4195.333333, "n": 3, "p99": 7.003}`, `{"mean": 4195.333333, "n": 3, "p99": 7.003}`},
		{`{"note": "1.6400000000000001 \" 0.30000000000000004", "x": null}`, `{"note": "1.6400000000000001 \" 0.30000000000000004", "x": null}`},
		{`{"big": 1.2345678901234567e+21}`, `{"big": 1.23456789012e+21}`},
	} {
		if got := string(tidyNumbers([]byte(c.in))); got != c.want {
			t.Errorf("tidyNumbers(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// Tidying changes a number by less than its rounding: the parsed values
// agree within 5e-12 relative (half a unit in the 12th digit), and integers are left alone.
func TestTidyNumbersKeepsValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		v := (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(30)-10))
		b, _ := json.Marshal([]any{v, rng.Int64()})
		var before, after []float64
		if err := json.Unmarshal(b, &before); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(tidyNumbers(b), &after); err != nil {
			t.Fatalf("%s: %v", tidyNumbers(b), err)
		}
		if math.Abs(after[0]-before[0]) > 5e-12*math.Abs(before[0]) || after[1] != before[1] {
			t.Fatalf("%s tidied to %s", b, tidyNumbers(b))
		}
	}
}

// summary.json writes a recovery of 1640 ms as 1.64, not as
// Duration.Seconds's 1.6400000000000001.
func TestSummaryWritesRoundedFigures(t *testing.T) {
	if s := (1640 * time.Millisecond).Seconds(); s == 1.64 {
		t.Skip("this platform's Seconds() is exact: nothing to tidy")
	}
	rec := (1640 * time.Millisecond).Seconds()
	b, err := EncodeSummary(&results.Summary{DurationS: (4100 * time.Millisecond).Seconds(), Runs: []results.Run{{Strategy: "a", RecoveryS: &rec}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"recovery_s": 1.64,`) || strings.Contains(string(b), "00000") {
		t.Errorf("summary.json:\n%s", b)
	}
}
