package recording

import (
	"net/http"
	"sync"
)

// requestIDHeaders name, in order, the headers that say which logical
// request an attempt belongs to, the same on every attempt of one request:
// the AWS SDKs' invocation id, and the idempotency keys that make net/http
// re-send a POST. With the attempt number, they tell a client
// transport's re-send (the same request and number twice: net/http sends
// the request's bytes again, headers and all) from a strategy's retry
// (the same request, the next number).
var requestIDHeaders = []string{"Amz-Sdk-Invocation-Id", "Idempotency-Key", "X-Idempotency-Key"}

// requestID returns the request's id from the first of requestIDHeaders it
// has, "" if none.
func requestID(h http.Header) string {
	for _, name := range requestIDHeaders {
		if vs := h[name]; len(vs) == 1 && vs[0] != "" {
			return vs[0]
		}
	}
	return ""
}

// maxTracked bounds the requests a cohort's cell remembers the latest
// attempt number of. Past it the memory starts afresh: a re-send comes at
// once after the attempt it repeats, so only a re-send whose first try
// came just before the reset goes uncounted.
const maxTracked = 1 << 16

// seenAttempts remembers, per request id, the latest attempt number seen.
type seenAttempts struct {
	mu   sync.Mutex
	last map[string]int
}

// repeat records attempt n of request id and reports whether it repeats
// the latest attempt seen of that request: a transport's re-send.
func (s *seenAttempts) repeat(id string, n int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last == nil || len(s.last) >= maxTracked {
		s.last = make(map[string]int)
	}
	prev, ok := s.last[id]
	s.last[id] = n
	return ok && prev == n
}
