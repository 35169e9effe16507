package proxy

import (
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
// rest are answered 503 at once, marked X-Herdbench-Proxy: overloaded. It
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

func (l *inFlight) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case l.slots <- struct{}{}:
	default:
		if l.waiting.Add(1) > int64(l.max) {
			l.waiting.Add(-1)
			l.refused.Add(1)
			w.Header().Set("X-Herdbench-Proxy", "overloaded")
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, "herdbench proxy: overloaded: %d requests are being forwarded and %d more wait (--max-in-flight %d); raise --max-in-flight for a larger fleet\n", l.max, l.max, l.max)
			return
		}
		select {
		case l.slots <- struct{}{}:
			l.waiting.Add(-1)
		case <-r.Context().Done():
			l.waiting.Add(-1)
			return // the client gave up, or a crash reset it
		}
	}
	defer func() { <-l.slots }()
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
