package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/clients/swarm"
	"github.com/herdbench/herdbench/internal/httpwire"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/seeds"
)

// MaxRetryBody is the largest request body a retrying proxy takes: it
// keeps each body to send it again on a retry.
const MaxRetryBody = 1 << 20

// retrier is a retrying proxy's forwarding (Options.Retry): each request
// is one request of a fresh client of the strategy, herdbench's step
// function run by the one real-time driver (swarm.Driver), whose attempts
// go to the upstream, as a middle tier of a chain calls the next one. The
// proxy then plays a middle tier in front of a real service: client ->
// herdbench proxy (retrying) -> service.
type retrier struct {
	p        *Proxy
	strategy *clients.Strategy
	cohort   *clients.Cohort
	seed     uint64
	d        swarm.Driver // the proxy's clock: real speed, from its start
	work     clients.Workload
	n        atomic.Int64
	counts   retryCounts
}

// retryCounts count what the retries did, for the proxy's metrics.
type retryCounts struct {
	attempts, retries, gaveUp atomic.Int64
}

// Started, Attempt and Request make retryCounts the calls' results.Sink.
// Requests given up are counted where their last failure is answered: a
// request whose client went away ends failed too, but answers nothing.
func (c *retryCounts) Started(time.Duration) {}
func (c *retryCounts) Attempt(a results.Attempt) {
	c.attempts.Add(1)
	if a.Number > 1 {
		c.retries.Add(1)
	}
}
func (c *retryCounts) Request(results.Request) {}

var _ results.Sink = (*retryCounts)(nil)

func newRetrier(p *Proxy, s *clients.Strategy, seed uint64) *retrier {
	return &retrier{p: p, strategy: s, cohort: clients.NewCohort(s), seed: seed, d: swarm.Driver{Origin: time.Now()}, work: clients.Workload{Kind: clients.OneShot}}
}

// forever is the end of a retrying proxy's calls: none.
const forever = time.Duration(math.MaxInt64 / 2)

// ServeHTTP forwards r with the strategy's retries: an attempt that fails
// (a transport error, 5xx or 429, or the strategy's per-attempt timeout)
// is retried as the strategy says (backoff, budget, breaker, Retry-After);
// the first answer that is not a failure, or the last one when the
// strategy gives up, goes back to the client. A 4xx answer other than 429
// goes back at once: the request itself is wrong, and sending it again
// would not help. A request whose method is not idempotent (POST, PATCH)
// is sent once, as the swarm sends it, unless the strategy retries such
// requests (retry_non_idempotent) or it carries the strategy's
// idempotency-key header (Strategy.MayRetry). The body is kept (up to
// MaxRetryBody) to be sent again.
func (t *retrier) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRetryBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, fmt.Sprintf("herdbench proxy: a retrying proxy keeps each request's body to send it again, up to %d bytes", MaxRetryBody), http.StatusRequestEntityTooLarge)
			return
		}
		panic(http.ErrAbortHandler) // the client went away
	}
	n := int(t.n.Add(1) - 1)
	c := t.cohort.NewClient(n, &t.work, forever, seeds.Stream(t.seed, seeds.Call(0, n)), &t.counts)
	a := c.BeginAt(t.elapsed())
	if !t.strategy.MayRetry(r.Method, func(name string) bool { return r.Header.Get(name) != "" }) {
		c.Once() // a POST or PATCH without the idempotency key: sent once
	}
	u := &upstream{t: t, c: c, r: r, body: body, endLast: func() {}}
	defer func() { u.endLast() }()
	e := t.d.Drive(r.Context(), c, a, u, nil)
	if e.Cut {
		c.Cancel(t.elapsed(), e.InFlight, e.Sent)
		panic(http.ErrAbortHandler) // the client went away, or a crash reset it
	}
	if !e.OK && !u.wrong {
		t.counts.gaveUp.Add(1)
	}
	if u.last == nil {
		t.p.upstreamErrors.Add(1)
		msg := "the retry strategy sent nothing (its breaker or throttle refused)"
		if u.lastErr != nil {
			msg = strings.TrimSpace(u.lastErr.Error())
		}
		http.Error(w, "herdbench proxy: upstream "+t.p.upstream.Redacted()+": "+msg, http.StatusBadGateway)
		return
	}
	t.reply(w, u.last)
}

// elapsed is now on the proxy's clock.
func (t *retrier) elapsed() time.Duration { return t.d.Slow.Since(t.d.Origin) }

// upstream is one forwarded request's sender: each attempt a copy of r
// with its body, to the upstream. It keeps the latest answer (or error)
// until the next attempt, to give it back when the strategy is done; a
// 4xx answer other than 429 ends the request (Client.Once): it is wrong.
type upstream struct {
	t       *retrier
	c       *clients.Client
	r       *http.Request
	body    []byte
	last    *http.Response // the latest answer, kept until the next attempt
	lastErr error
	endLast func()
	wrong   bool // the last answer was a 4xx: the request itself is wrong
}

func (u *upstream) Send(ctx context.Context, _ swarm.Attempt) (clients.Reply, *clients.Reply, bool) {
	t := u.t
	u.endLast()
	u.last, u.lastErr, u.endLast = nil, nil, func() {}
	sent := t.elapsed()
	resp, end, err := t.attempt(ctx, u.r, u.body)
	now := t.elapsed()
	if ctx.Err() != nil {
		end()
		return clients.Reply{Sent: sent}, nil, true
	}
	o, pushback, status := httpwire.Classify(err), time.Duration(0), 0
	if err == nil {
		o, status = results.FromStatus(resp.StatusCode), resp.StatusCode
		if ra := resp.Header.Get("Retry-After"); ra != "" && resp.StatusCode >= 400 {
			pushback, _ = httpwire.ParseRetryAfter(ra, time.Now())
		}
		if o == results.HTTP4xx {
			u.c.Once() // the request itself is wrong: no retry
			u.wrong = true
		}
	}
	u.last, u.lastErr, u.endLast = resp, err, end
	return clients.Reply{Sent: sent, Latency: now - sent, Outcome: o, RetryAfter: pushback, Status: status}, nil, false
}

// attempt sends one attempt of r upstream, with body, and returns its
// answer once its headers arrived, within the strategy's per-attempt
// timeout (then context.DeadlineExceeded). end closes the answer, if any,
// and ends the attempt's context: call it once done with the answer.
func (t *retrier) attempt(ctx context.Context, r *http.Request, body []byte) (resp *http.Response, end func(), err error) {
	actx, cancel := context.WithCancel(ctx)
	var timeout *time.Timer
	if d := t.strategy.Timeout; d > 0 {
		timeout = time.AfterFunc(t.d.Slow.Wall(d), cancel)
	}
	out := r.Clone(actx)
	out.RequestURI = ""
	out.URL.Scheme, out.URL.Host = t.p.upstream.Scheme, t.p.upstream.Host
	out.URL.Path, out.URL.RawPath = joinPath(t.p.upstream.Path, r.URL.Path), ""
	out.Host = t.p.upstream.Host
	out.Body, out.ContentLength, out.GetBody = http.NoBody, 0, nil
	if len(body) > 0 {
		out.Body, out.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	}
	removeHopHeaders(out.Header)
	if ip, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		out.Header.Set("X-Forwarded-For", ip)
	}
	resp, err = t.p.transport.RoundTrip(out)
	if timeout != nil && !timeout.Stop() {
		// The per-attempt timeout passed before the answer's headers.
		if err == nil {
			drain(resp)
			resp = nil
		}
		if ctx.Err() == nil {
			err = context.DeadlineExceeded
		}
	}
	end = func() {
		if resp != nil {
			drain(resp)
		}
		cancel()
	}
	return resp, end, err
}

// reply writes the upstream's answer to the client. The caller closes it.
func (t *retrier) reply(w http.ResponseWriter, resp *http.Response) {
	removeHopHeaders(resp.Header)
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	buf := t.p.buffers.Get()
	defer t.p.buffers.Put(buf)
	_, _ = io.CopyBuffer(w, resp.Body, buf)
}

// drain discards what is left of an answer and closes it.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
}

// hopHeaders are the headers of one hop, not forwarded (RFC 9110, 7.6.1).
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func removeHopHeaders(h http.Header) {
	for _, f := range h.Values("Connection") {
		for _, k := range strings.Split(f, ",") {
			h.Del(strings.TrimSpace(k))
		}
	}
	for _, k := range hopHeaders {
		h.Del(k)
	}
}

// joinPath joins the upstream's base path and a request's path.
func joinPath(base, p string) string {
	switch {
	case base == "" || base == "/":
		return p
	case strings.HasSuffix(base, "/") && strings.HasPrefix(p, "/"):
		return base + p[1:]
	case !strings.HasSuffix(base, "/") && !strings.HasPrefix(p, "/"):
		return base + "/" + p
	}
	return base + p
}
