package httpwire

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ParseRetryAfter reads an HTTP Retry-After header: delay-seconds (a
// non-negative whole number) or an HTTP date, which is turned into a delay
// from now (0 if it is already past). It reports false for a missing or
// malformed value, which clients ignore, and for a wait beyond a day, the
// longest a herdbench fault asks (chaos.RetryAfterHeader states the rule),
// so any other server's answer is read as real clients read it.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if v[0] >= '0' && v[0] <= '9' {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n > int64(24*time.Hour/time.Second) {
			return 0, false // not a number, or too far away to be meant
		}
		return time.Duration(n) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(0, t.Sub(now)), true
}
