package spoken

import "fmt"

// Count writes n and the noun, singular for one: Count(1, "problem",
// "problems") is "1 problem", Count(2, ...) "2 problems", Count(0, ...)
// "0 problems".
func Count[N ~int | ~int64 | ~uint64](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
