package folder

import (
	"encoding/json"
	"math"
	"strconv"
)

// SignificantDigits is the most significant digits a number of
// summary.json is written with. Every figure is rounded where it is
// computed (a ratio to 4 decimals, amplification and the herd factor to
// 3, milliseconds and seconds to the microsecond, a mean or an sd to 6
// decimals), but a float computed from a time (1640 ms is 1 + 0.64 =
// 1.6400000000000001 s) or left unrounded carries binary noise in its
// 17th digit: tidyNumbers writes each number at this many significant
// digits at most, in the shortest form that reads back as that value
// (1.64).
const SignificantDigits = 12

// tidyNumbers returns the JSON document b with every number that is not
// an integer rewritten at SignificantDigits (tidyFloat); strings and
// integers are left as they are.
func tidyNumbers(b []byte) []byte {
	out := make([]byte, 0, len(b))
	inString, escaped := false, false
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			out = append(out, c)
			i++
		case c == '"':
			inString = true
			out = append(out, c)
			i++
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			float := false
			for ; j < len(b); j++ {
				d := b[j]
				if d == '.' || d == 'e' || d == 'E' {
					float = true
				} else if !(d >= '0' && d <= '9' || d == '+' || d == '-') {
					break
				}
			}
			tok := b[i:j]
			if v, err := strconv.ParseFloat(string(tok), 64); float && err == nil {
				if t, err := json.Marshal(tidyFloat(v)); err == nil {
					tok = t
				}
			}
			out = append(out, tok...)
			i = j
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}

// tidyFloat rounds v to SignificantDigits significant digits.
func tidyFloat(v float64) float64 {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', SignificantDigits, 64), 64)
	if err != nil {
		return v
	}
	return r
}
