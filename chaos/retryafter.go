package chaos

import (
	"fmt"
	"strconv"
	"time"

	"github.com/herdbench/herdbench/internal/dist"
)

// The Retry-After rule, the one herdbench keeps everywhere. HTTP's
// Retry-After header carries delay-seconds, a whole number of seconds (RFC
// 9110, section 10.2.3), so a fault's retry_after is whole seconds, from 1s
// to a day (dist.MaxDuration): what a scenario writes is exactly what goes
// on the wire (RetryAfterHeader), what the real clients read back
// (httpwire.ParseRetryAfter) and what the simulator's clients are handed,
// so both engines wait the same. A value the header cannot carry, such as
// 1500ms, is refused rather than rounded.

// parseRetryAfter reads a fault's retry_after by the rule above; "" is none.
func parseRetryAfter(v string) (time.Duration, *ParamError) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	switch {
	case err != nil:
		return 0, &ParamError{Field: "retry_after", Msg: fmt.Sprintf("%q is not a duration; write whole seconds, e.g. retry_after: 2s", v)}
	case d < time.Second || d%time.Second != 0:
		return 0, &ParamError{Field: "retry_after", Msg: fmt.Sprintf("%s: the Retry-After header carries whole seconds, 1 or more; write e.g. retry_after: 2s", v)}
	case d > dist.MaxDuration:
		return 0, &ParamError{Field: "retry_after", Msg: fmt.Sprintf("%s is more than a day (24h), the longest wait herdbench asks for; write e.g. retry_after: 2s", v)}
	}
	return d, nil
}

// RetryAfterHeader writes an Effect's RetryAfter, whole seconds by the rule
// above, as the Retry-After header's value.
func RetryAfterHeader(d time.Duration) string {
	return strconv.FormatInt(int64(d/time.Second), 10)
}
