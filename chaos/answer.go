package chaos

import (
	"fmt"
	"reflect"
	"time"
)

// Verdict says what becomes of a request.
type Verdict uint8

// Verdicts.
const (
	Admit      Verdict = iota // go on to the server's capacity, after Answer.Delay
	Respond                   // answer Answer.Status now
	ResetConn                 // reset the connection
	RefuseConn                // the server is not listening: the connection is reset
	Hang                      // accept and never answer (a blackhole)
)

var verdictNames = [...]string{Admit: "admit", Respond: "respond", ResetConn: "reset", RefuseConn: "refuse", Hang: "hang"}

func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", uint8(v))
}

// Answer is the whole decision for one request, as data: what becomes of
// it and, when it is answered, everything about the answer a client sees.
// The target model produces it (model.Model: at ingress, from the active
// faults, and when capacity turns the request away or serves it); each
// engine applies it in one function, whatever the tier: the HTTP server
// encodes it on the wire, the simulator turns it into the outcome and the
// timing the real client would see (the HTTP server encodes it over
// HTTP/1.1 and HTTP/2 alike). Another wire encoding (gRPC) is another
// function applying the same Answer.
type Answer struct {
	Verdict Verdict
	Status  int           // for Respond: the status code
	Delay   time.Duration // for Admit: added latency before the request reaches the server
	// RetryAfter is sent with a Respond as a Retry-After header (whole
	// seconds, RetryAfterHeader); 0 for none.
	RetryAfter time.Duration
	// Pushback is, for a Respond from a gRPC target, its
	// grpc-retry-pushback-ms trailer (Effect.Pushback; PushbackStop: the
	// "do not retry" form); 0: none, and RetryAfter, if any, is sent as
	// the pushback. The HTTP encoding ignores it.
	Pushback time.Duration
	// Truncate, for a Respond with a body, cuts the body half-way and
	// closes the connection: the client reads a short body (an unexpected
	// EOF), which it counts as a reset.
	Truncate bool
}

// Uses returns the names of the effects e has: the fields of Effect that
// differ from Healthy's, each by its effect tag (its Go name if it has
// none). It reads every field, so a field added to Effect is reported from
// the start: a driver that keeps a list of the effects it applies (the
// proxy) refuses the new one until it opts in. Active and RecoveredAt,
// which the plan sets and no fault's Apply does, are never reported.
func (e *Effect) Uses() []string {
	h := Healthy()
	have, want := reflect.ValueOf(e).Elem(), reflect.ValueOf(&h).Elem()
	var out []string
	for i := range have.NumField() {
		f := have.Type().Field(i)
		if f.Name == "Active" || f.Name == "RecoveredAt" {
			continue
		}
		if reflect.DeepEqual(have.Field(i).Interface(), want.Field(i).Interface()) {
			continue
		}
		name := f.Tag.Get("effect")
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}
