package httpwire

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/slowmo"
	"github.com/herdbench/herdbench/results"
)

// Attempts is how a swarm's attempts go on HTTP: the run's clock they are
// timed on (its t = 0 on the wall clock, in slow motion or not), each
// attempt's timeout, what an attempt is (one request, or an OCC read and
// write), and the strategy's transport, which may send an attempt again by
// itself (clients.Transport).
type Attempts struct {
	Origin    time.Time
	Slow      slowmo.Factor
	Timeout   time.Duration
	OCC       bool
	Transport clients.Transport
}

// Request returns the bytes of client c's current logical request (nil
// for the probe), filled into buf when it has placeholders; seed is the
// run's, which the placeholders' draws come from.
func (e *Endpoint) Request(c *clients.Client, seed uint64, buf []byte) (req, out []byte) {
	if e.mix == nil {
		return nil, buf
	}
	i, n := c.Current()
	w := &e.reqs[i]
	if w.fixed != nil {
		return w.fixed, buf
	}
	f := clients.NewFiller(seed, e.mix, c.ID, n)
	buf = w.fill(buf[:0], &f)
	return buf, buf
}

// Send sends one attempt on l and returns when it was sent (its first
// byte or packet handed to the kernel) and ended, as elapsed times, its
// outcome, its HTTP status code (0 for a transport error, and for an OCC
// target's), and the server's pushback (Retry-After), if any. Each request is
// a POST, because net/http (and other stacks) silently retry an idempotent
// request on a reused connection that failed, which would hide a reset from
// the count of attempts; and so the target can tell nothing else apart.
// With Strategy.Transport net/http, an attempt whose reused connection
// fails before the answer's first byte is sent again at once on a new
// connection, within the same deadline: first is then the first try's
// reply, and the figures returned are the re-send's.
func (s *Attempts) Send(ctx context.Context, l *Link, req []byte) (sent, end time.Duration, o results.Outcome, status int, pushback time.Duration, first *clients.Reply) {
	if l.h2 != nil {
		sent, end, o, status, pushback = s.attemptH2(ctx, l, req)
		return sent, end, o, status, pushback, nil
	}
	at, deadline, err := l.begin(ctx, s.Slow.Wall(s.Timeout))
	sent = s.Slow.Between(s.Origin, at)
	var read time.Time // when the answer was read, if exchange says
	if err == nil {
		if s.OCC {
			o, err = s.attemptOCC(ctx, l, deadline)
		} else {
			var a answer
			if req == nil {
				req = l.ep.plain
			}
			a, err = l.exchange(ctx, req, deadline, false)
			if err != nil && ctx.Err() == nil && s.resends(err, req, l.ep.plain) {
				now := time.Now()
				first = &clients.Reply{Sent: sent, Latency: s.Slow.Scenario(now.Sub(at)), Outcome: Classify(err)}
				sent = s.Slow.Between(s.Origin, now)
				if err = l.connect(ctx, deadline); err == nil {
					if err = l.setDeadline(deadline, now); err == nil {
						a, err = l.exchange(ctx, req, deadline, false)
					}
				}
			}
			o, status, read = results.FromStatus(a.status), a.status, a.read
			if a.retryAfter != "" {
				pushback, _ = ParseRetryAfter(a.retryAfter, time.Now())
			}
		}
	}
	if err == nil && !read.IsZero() {
		end = s.Slow.Between(s.Origin, read)
	} else {
		end = s.Slow.Since(s.Origin)
	}
	if err != nil {
		if na := (*noAnswerError)(nil); errors.As(err, &na) && !na.at.IsZero() {
			end = s.Slow.Between(s.Origin, na.at) // when the failure was read, before the work after it
		}
		return sent, end, Classify(err), 0, 0, first
	}
	return sent, end, o, status, pushback, first
}

// resends reports whether the strategy's transport sends again at once
// the request req whose exchange failed with err. Apart from attempt, so
// that the error's variable, which escapes, is made only on failure.
func (s *Attempts) resends(err error, req, plain []byte) bool {
	var na *noAnswerError
	return errors.As(err, &na) && s.Transport.Resends(Classify(err), na.reused, replayable(req, plain))
}

// replayable reports whether net/http would re-send the request whose
// bytes are req (clients.Replayable): the probe (plain) counts as replayable, as
// clients.Client.Replayable says.
func replayable(req, plain []byte) bool {
	if bytes.Equal(req, plain) {
		return true
	}
	method, _, _ := bytes.Cut(req, []byte(" "))
	head, _, _ := bytes.Cut(req, []byte("\r\n\r\n"))
	return clients.Replayable(string(method), func(name string) bool {
		for _, line := range bytes.Split(head, []byte("\r\n"))[1:] {
			if k, _, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(bytes.TrimSpace(k), []byte(name)) {
				return true
			}
		}
		return false
	})
}
