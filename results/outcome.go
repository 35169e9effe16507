package results

import "fmt"

// Outcome classifies one attempt. Transport errors are classified once, when
// the attempt is recorded, never by matching error text later.
type Outcome uint8

// Outcomes of an attempt.
const (
	OK      Outcome = iota // 2xx
	HTTP5xx                // a 5xx answer (503 from an outage, a full queue, ...)
	HTTP429                // Too Many Requests
	HTTP4xx                // another 4xx answer
	Timeout                // the per-attempt timeout passed
	Refused                // the connection was refused
	Reset                  // the connection was reset or closed mid-request
	Error                  // any other transport error
	NumOutcomes
)

var outcomeNames = [NumOutcomes]string{"ok", "http_5xx", "http_429", "http_4xx", "timeout", "refused", "reset", "error"}

// outcomeHelp says what each outcome is, for the metric table
// (outcomes.<name>).
var outcomeHelp = [NumOutcomes]string{
	OK:      "a 2xx answer",
	HTTP5xx: "a 5xx answer (a fast 503 outage, a full queue, a queue timeout, ...)",
	HTTP429: "429 Too Many Requests",
	HTTP4xx: "another 4xx answer",
	Timeout: "the per-attempt timeout passed",
	Refused: "the connection was refused",
	Reset:   "the connection was reset or closed mid-request",
	Error:   "any other transport error",
}

// String returns the outcome's name as used in summary.json and timeline.csv.
func (o Outcome) String() string {
	if o < NumOutcomes {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// Answered reports whether the outcome is an HTTP answer (any status),
// after which a keep-alive connection stays open for the next attempt.
func (o Outcome) Answered() bool { return o <= HTTP4xx }

// FromStatus classifies an HTTP status code.
func FromStatus(code int) Outcome {
	switch {
	case code >= 200 && code < 300:
		return OK
	case code == 429:
		return HTTP429
	case code >= 500:
		return HTTP5xx
	case code >= 400:
		return HTTP4xx
	}
	return Error
}
