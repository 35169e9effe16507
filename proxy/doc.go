// Package proxy is the chaos proxy: an HTTP reverse proxy in front of a real
// service that applies a scenario's chaos plan to the traffic passing
// through, on the plan's clock.
//
// It is a target.Server whose admitted requests go to the upstream instead
// of the capacity model, so the faults act exactly as on the standalone
// target and share its mechanisms: a 503 outage or an error rate answers at
// once (with Retry-After when the fault sets retry_after); a latency blip
// delays the request before it is forwarded; a blackhole holds it until the
// client gives up; a reset outage resets the client's connection (an RST),
// and its start resets every connection in flight; a refuse outage closes
// the proxy's listener, so new connections are refused, and opens it again
// after. Brownouts need the capacity model and are refused.
//
// Composition order, outermost first: the answer counters, the chaos
// ingress (reset/refuse, blackhole, error answers, latency), the in-flight
// bound (MaxInFlight forwarded at once, as many waiting, the rest answered
// 503 at once, as Envoy's circuit breakers do), then the forwarding, whose
// bodies stream through pooled buffers. The proxy is not an open relay:
// whatever the request's Host header or absolute URI, it goes to the
// configured upstream; CONNECT is refused. Its memory is bounded whatever a
// swarm sends: at most MaxConns client connections (DefaultMaxConns) and
// MaxInFlight requests in flight keep it under 200 MB (bench/pressure).
package proxy
