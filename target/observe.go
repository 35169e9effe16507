package target

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/herdbench/herdbench/chaos"
)

// Answer is how the server answered one request, as its clients saw it.
type Answer uint8

// Answers.
const (
	AnswerOK      Answer = iota // a 2xx (or 3xx) answer
	Answer4xx                   // a 4xx answer other than 429
	Answer429                   // 429 Too Many Requests
	Answer5xx                   // a 5xx answer
	AnswerReset                 // the connection was reset (a fault); also a connection taken over, e.g. a WebSocket upgrade through the proxy
	AnswerAborted               // no answer: the client gave up or a crash dropped the request
	NumAnswers
)

var answerNames = [NumAnswers]string{"ok", "http_4xx", "http_429", "http_5xx", "reset", "aborted"}

// String returns the answer's name, the outcome label of the
// requests_total metric.
func (a Answer) String() string {
	if a < NumAnswers {
		return answerNames[a]
	}
	return fmt.Sprintf("Answer(%d)", uint8(a))
}

// AnswerOf classifies an HTTP status code.
func AnswerOf(status int) Answer {
	switch {
	case status == http.StatusTooManyRequests:
		return Answer429
	case status >= 500:
		return Answer5xx
	case status >= 400:
		return Answer4xx
	}
	return AnswerOK
}

// Counters counts a server's answers and the requests it is handling, with
// atomic adds only.
type Counters struct {
	answers  [NumAnswers]atomic.Int64
	inFlight atomic.Int64
	codes    [NumCodes]atomic.Int64 // a gRPC server's calls, by the status code their clients saw
}

// NumCodes is how many gRPC status codes there are (OK to
// UNAUTHENTICATED, 0 to 16): Counters.Codes is indexed by code.
const NumCodes = 17

// Codes returns a gRPC server's calls so far by the status code their
// clients saw (codes.Code), all 0 for an HTTP server.
func (c *Counters) Codes() [NumCodes]int64 {
	var out [NumCodes]int64
	for i := range out {
		out[i] = c.codes[i].Load()
	}
	return out
}

// Answers returns the answers so far, by Answer.
func (c *Counters) Answers() [NumAnswers]int64 {
	var out [NumAnswers]int64
	for i := range out {
		out[i] = c.answers[i].Load()
	}
	return out
}

// InFlight returns the requests being handled now.
func (c *Counters) InFlight() int64 { return c.inFlight.Load() }

// Wrap returns h counted: each request is in flight while h runs and is then
// counted by how it was answered. It is the outermost layer of a standalone
// target or proxy, so it sees every fault's answer.
func (c *Counters) Wrap(h http.Handler) http.Handler { return c.wrap(h, nil) }

// wrap is Wrap that also tells done, when set, of each request once
// answered: when it arrived, how it was answered, and the writer that saw
// it (for the upstream time a proxy noted on it).
func (c *Counters) wrap(h http.Handler, done func(r *http.Request, arrived time.Time, a Answer, ow *observedWriter)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.inFlight.Add(1)
		ow := &observedWriter{ResponseWriter: w}
		var arrived time.Time
		if done != nil {
			arrived = time.Now()
		}
		defer func() {
			c.inFlight.Add(-1)
			p := recover()
			var a Answer
			switch {
			case ow.answered:
				a = answerOf(ow.answer)
			case ow.hijacked:
				a = AnswerReset
			case p != nil, ow.status == 0 && r.Context().Err() != nil:
				a = AnswerAborted
			default:
				a = AnswerOf(ow.status)
			}
			c.answers[a].Add(1)
			if done != nil {
				done(r, arrived, a, ow)
			}
			if p != nil {
				panic(p) // http.ErrAbortHandler: let net/http abort the connection
			}
		}()
		h.ServeHTTP(ow, r)
	})
}

// Observation is one request a server received, as a recording of its
// traffic takes it (package recording): when it arrived and when its
// answer ended, on the wall clock, and how it was answered.
type Observation struct {
	Request        *http.Request
	Arrived, Ended time.Time
	Answer         Answer
	// Status is the HTTP status code written, 0 if none (a reset, an
	// aborted request).
	Status int
	// Crashed is set when the request got no answer because a crash (a
	// reset or refuse outage beginning) dropped it: its client saw its
	// connection reset, not a client giving up.
	Crashed bool
	// Upstream is, for a request the chaos proxy forwarded, how long its
	// upstream took (NoteUpstream); 0 for the others.
	Upstream time.Duration
}

// Observer takes what a server sees, for a recording of its traffic.
// PlanStarted is called when the chaos plan's clock (re)starts, with its
// t = 0; Observe once per request, when it is answered. Both are called
// on the server's goroutines, PlanStarted with no lock held: they must
// not block.
type Observer interface {
	PlanStarted(t0 time.Time)
	Observe(o Observation)
}

// NoteUpstream notes, on the writer of a request that a server's Next
// handler forwarded, how long the upstream took: the chaos proxy calls it,
// so that its recording has the upstream time beside the proxy's own. A
// writer that is not a server's (a test's recorder) ignores it.
func NoteUpstream(w http.ResponseWriter, d time.Duration) {
	if ow := observed(w); ow != nil {
		ow.upstream += d
	}
}

// answerOf classifies the model's answer as its client sees it: a reset
// or refused connection, and a body cut short, are resets.
func answerOf(a chaos.Answer) Answer {
	switch {
	case a.Verdict == chaos.ResetConn, a.Verdict == chaos.RefuseConn, a.Truncate:
		return AnswerReset
	}
	return AnswerOf(a.Status)
}

// noteAnswer notes, on the writer of a request the server is answering,
// the answer it gives (exchange.answer), so that the request is counted
// and recorded by that answer, not by how it was written: a truncated
// answer aborts its handler, as a client that gave up does. A writer that
// is not a server's ignores it.
func noteAnswer(w http.ResponseWriter, a chaos.Answer) {
	if ow := observed(w); ow != nil {
		ow.answer, ow.answered = a, true
	}
}

// observed returns the observedWriter under w, or nil.
func observed(w http.ResponseWriter) *observedWriter {
	for w != nil {
		if ow, ok := w.(*observedWriter); ok {
			return ow
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return nil
		}
		w = u.Unwrap()
	}
	return nil
}

// observedWriter notes the status written, whether the connection was
// taken over, and the answer the server gave (noteAnswer).
type observedWriter struct {
	http.ResponseWriter
	status   int
	hijacked bool
	answered bool
	answer   chaos.Answer
	upstream time.Duration // NoteUpstream's
}

func (w *observedWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *observedWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Hijack is found by http.ResponseController before Unwrap, so a reset is
// seen here.
func (w *observedWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil {
		w.hijacked = true
	}
	return c, rw, err
}

// Unwrap lets http.ResponseController reach the connection's writer (Flush,
// deadlines).
func (w *observedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
