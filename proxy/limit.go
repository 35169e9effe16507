package proxy

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/herdbench/herdbench/target"
)

// DefaultMaxInFlight is how many requests a proxy forwards at once unless
// told otherwise: Envoy's default for a cluster's max_requests. Each
// request in flight holds about 70 KB (goroutines and buffers on both
// sides), so 1,024 stay under 100 MB.
const DefaultMaxInFlight = 1024

// inFlight bounds the requests forwarded at once: up to max are forwarded,
// as many again wait for a place (as long as their clients wait), and the
// rest are answered 503 at once, marked X-Herdbench-Proxy: overloaded (a
// gRPC proxy's calls: UNAVAILABLE, with the same mark in their header). It
// keeps the proxy's memory bounded whatever a swarm sends, as Envoy's
// circuit breakers (max_requests, max_pending_requests) do.
type inFlight struct {
	next    http.Handler
	max     int
	slots   chan struct{}
	waiting atomic.Int64
	refused atomic.Int64
}

func newInFlight(next http.Handler, max int) *inFlight {
	return &inFlight{next: next, max: max, slots: make(chan struct{}, max)}
}

// acquire takes a place to forward a request: at once if one is free,
// else after waiting for one, if fewer than max already wait; it returns
// false when the request was refused (counted) or its context ended
// while it waited (not counted: its client gave up, or a crash reset it).
// A true return must be paired with release.
func (l *inFlight) acquire(ctx context.Context) (ok, refused bool) {
	select {
	case l.slots <- struct{}{}:
		return true, false
	default:
	}
	if l.waiting.Add(1) > int64(l.max) {
		l.waiting.Add(-1)
		l.refused.Add(1)
		return false, true
	}
	defer l.waiting.Add(-1)
	select {
	case l.slots <- struct{}{}:
		return true, false
	case <-ctx.Done():
		return false, false
	}
}

func (l *inFlight) release() { <-l.slots }

// overloaded is what a refused request or call is told.
func (l *inFlight) overloaded(what string) string {
	return fmt.Sprintf("herdbench proxy: overloaded: %d %s are being forwarded and %d more wait (--max-in-flight %d); raise --max-in-flight for a larger fleet", l.max, what, l.max, l.max)
}

func (l *inFlight) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ok, refused := l.acquire(r.Context())
	if refused {
		w.Header().Set("X-Herdbench-Proxy", "overloaded")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, l.overloaded("requests"))
		return
	}
	if !ok {
		return
	}
	defer l.release()
	start := time.Now()
	defer func() { target.NoteUpstream(w, time.Since(start)) }()
	l.next.ServeHTTP(w, r)
}

// bufferPool lends the 32 KiB buffers the reverse proxy copies each answer
// through, instead of allocating one per answer: bodies stream through a
// few reused buffers.
type bufferPool struct{ p sync.Pool }

func newBufferPool() *bufferPool {
	return &bufferPool{p: sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}}
}

func (b *bufferPool) Get() []byte  { return *b.p.Get().(*[]byte) }
func (b *bufferPool) Put(s []byte) { b.p.Put(&s) }
