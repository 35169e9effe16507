package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/netguard"
	"github.com/herdbench/herdbench/internal/secret"
	"github.com/herdbench/herdbench/internal/wire"
	"github.com/herdbench/herdbench/target"
	"github.com/herdbench/herdbench/target/model"
)

// Options configure a proxy.
type Options struct {
	Addr     string   // where to listen, host:port; "127.0.0.1:0" when empty
	Upstream *url.URL // the service; see ParseUpstream
	Plan     *chaos.Plan
	RNG      *rand.Rand // the chaos plan's draws (error rates, latency)
	Hold     bool       // start the plan on StartPlan instead of at once
	// Transport reaches the upstream; a fresh http.Transport when nil.
	Transport http.RoundTripper
	// Listen opens the listener; net.Listen("tcp", addr) when nil.
	Listen target.ListenFunc
	// MaxInFlight is how many requests (or gRPC calls) are forwarded at
	// once; as many again wait, and the rest are answered 503 (a call:
	// UNAVAILABLE) at once.
	// DefaultMaxInFlight when 0.
	MaxInFlight int
	// Observer, when set, records the traffic: every request the proxy
	// answers, with the time its upstream took when it was forwarded
	// (target.Observation.Upstream), and every start of the plan's clock.
	Observer target.Observer
	// MaxConns is how many client connections the proxy holds at once;
	// more wait in the listen backlog. 0: DefaultMaxConns, or fewer if the
	// open-files limit allows fewer (netguard.TrafficLimits(2)).
	MaxConns int
	// Retry, when set, makes the proxy retry upstream with this strategy
	// (retry.go): it then plays a middle tier of a chain of tiers. Its
	// policies are shared by every request the proxy forwards. Seed seeds
	// the random draws of its backoff.
	Retry *clients.Strategy
	Seed  uint64
	// Protocol is what the proxy serves (target.Options.Protocol);
	// UpstreamProtocol how it reaches the upstream: HTTP/1.1 (the zero
	// value), h2c (prior knowledge, an http:// upstream) or h2 (an
	// https:// one), through golang.org/x/net/http2's transport. A
	// retrying proxy calls its upstream over HTTP/1.1 only.
	Protocol         wire.Protocol
	UpstreamProtocol wire.Protocol
	// GRPC makes the proxy and its upstream speak gRPC (grpc.go: any
	// method, forwarded transparently), each on grpc-go's own HTTP/2;
	// Protocol and UpstreamProtocol then stay HTTP/1.1's zero value.
	GRPC bool
	// DialGRPC opens a gRPC proxy's connections to its upstream; the
	// host's TCP stack when nil. Tests pass an in-memory network's.
	DialGRPC func(ctx context.Context, network, addr string) (net.Conn, error)
}

// ErrHTTP1Only is the error of a retrying proxy asked to reach its
// upstream over HTTP/2: its calls go through herdbench's HTTP/1.1 relay.
var ErrHTTP1Only = errors.New("a retrying proxy (--retry) calls its upstream over HTTP/1.1 only; remove --upstream-protocol, or --retry")

// DefaultMaxConns is how many client connections a proxy holds at once
// unless told otherwise. A connection costs about 20 KB even when idle, so
// with DefaultMaxInFlight requests in flight the proxy stays under 200 MB
// however many connections a swarm opens at once.
const DefaultMaxConns = 4096

// limits returns the traffic port's limits for o.
func (o Options) limits() netguard.Limits {
	l := netguard.TrafficLimits(2) // each connection through the proxy has one to the upstream too
	switch {
	case o.MaxConns > 0:
		l.MaxConns = o.MaxConns
	default:
		l.MaxConns = min(l.MaxConns, DefaultMaxConns)
	}
	return l
}

// Proxy is a running chaos proxy.
type Proxy struct {
	*target.Server
	upstream       *url.URL
	transport      http.RoundTripper
	upstreamErrors atomic.Int64
	limit          *inFlight
	buffers        *bufferPool
	retry          *retrier // nil: forward each request once
	upstreamGRPC   *grpc.ClientConn
}

// ErrUnsupported is wrapped by the errors for faults the proxy cannot apply.
var ErrUnsupported = errors.New("not supported by the proxy")

// applies lists the effects (chaos.Effect.Uses) the proxy applies, and
// how: it is a target.Server in front of the upstream, so it answers,
// delays, holds, resets and refuses requests before forwarding them,
// exactly as herdbench's own target does (target.Server's answer), and
// forwards the rest. Everything else is refused (CheckFault): a real
// service's capacity is out of its reach, and an effect added to
// chaos.Effect is refused until the proxy is taught to apply it and
// listed here.
var applies = map[string]string{
	"outage":       "answers 503, refuses or resets connections itself",
	"blackhole":    "holds the request and never forwards it",
	"delay":        "waits before forwarding",
	"error-rate":   "answers that fraction of requests itself",
	"error-status": "with that status",
	"retry-after":  "with a Retry-After header",
}

// CheckFault reports whether the proxy can apply f, from what f does
// (chaos.Effect.Uses), deny-by-default: every effect of f must be in
// applies.
func CheckFault(f chaos.Timed) error {
	e := chaos.EffectOf(f.Fault)
	var errs []error
	for _, u := range e.Uses() {
		switch {
		case applies[u] != "":
		case u == "capacity":
			errs = append(errs, fmt.Errorf("fault %q (%s): %w: it cuts the capacity of herdbench's target model, and the proxy cannot cut a real service's capacity; remove it, or use an error-rate or latency blip instead", f.Name, f.Kind, ErrUnsupported))
		default:
			errs = append(errs, fmt.Errorf("fault %q (%s): %w: the proxy does not apply its %s effect (it applies %s); remove it, or run it against herdbench's own target", f.Name, f.Kind, ErrUnsupported, u, applied()))
		}
	}
	return errors.Join(errs...)
}

// applied returns the names in applies, sorted, for messages.
func applied() string {
	names := make([]string, 0, len(applies))
	for n := range applies {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// CheckPlan reports every fault of p the proxy cannot apply.
func CheckPlan(p *chaos.Plan) error {
	if p == nil {
		return nil
	}
	var errs []error
	for _, f := range p.Faults() {
		if err := CheckFault(f); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ParseUpstream reads the upstream's URL: http or https, a host, an
// optional base path; no query or fragment.
func ParseUpstream(raw string) (*url.URL, error) {
	if !strings.Contains(raw, "://") && raw != "" {
		// "127.0.0.1:9000" or "staging.internal": the scheme left out.
		raw = secret.URL(raw)
		return nil, fmt.Errorf("upstream %q is not a URL; write the scheme too: http://%s (or https://%s)", raw, raw, raw)
	}
	u, err := url.Parse(raw)
	raw = secret.URL(raw) // quoted below: never with its password
	switch {
	case err != nil:
		return nil, fmt.Errorf("upstream %q is not a URL: %w", raw, secret.Error(err))
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("upstream %q: write an http:// or https:// URL, e.g. http://127.0.0.1:9000", raw)
	case u.Host == "":
		return nil, fmt.Errorf("upstream %q has no host; write e.g. http://staging.internal:8080", raw)
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("upstream %q: remove the query and fragment; requests keep their own", raw)
	case u.User != nil:
		return nil, fmt.Errorf("upstream %q: remove the user name and password from the URL", raw)
	}
	return u, nil
}

// Start starts a proxy to o.Upstream.
func Start(o Options) (*Proxy, error) {
	if o.Upstream == nil {
		return nil, errors.New("proxy: no upstream")
	}
	if err := CheckPlan(o.Plan); err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	if o.MaxInFlight < 0 {
		return nil, fmt.Errorf("proxy: at most %d requests in flight: give 1 or more", o.MaxInFlight)
	}
	if o.MaxInFlight == 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	if o.Retry != nil && o.Retry.Hedge.Max > 0 {
		return nil, fmt.Errorf("proxy: strategy %s hedges, and a retrying proxy sends each request's attempts one at a time: choose a strategy without hedge", o.Retry.Name)
	}
	if o.UpstreamProtocol.HTTP2() {
		if o.Retry != nil {
			return nil, fmt.Errorf("proxy: %w", ErrHTTP1Only)
		}
		if want := o.UpstreamProtocol.Scheme(); o.Upstream.Scheme != want {
			return nil, fmt.Errorf("proxy: upstream protocol %s needs an %s:// upstream, not %s", o.UpstreamProtocol, want, o.Upstream.Redacted())
		}
	}
	p := &Proxy{upstream: o.Upstream, transport: o.Transport, buffers: newBufferPool()}
	if o.GRPC {
		if o.Protocol != wire.HTTP1 || o.UpstreamProtocol != wire.HTTP1 {
			return nil, fmt.Errorf("proxy: a gRPC proxy speaks grpc-go's own HTTP/2 in cleartext to both sides; protocol %s, upstream protocol %s are for an HTTP proxy", o.Protocol, o.UpstreamProtocol)
		}
		return startGRPC(o, p)
	}
	if p.transport == nil && o.UpstreamProtocol.HTTP2() {
		p.transport = h2Upstream(o.UpstreamProtocol)
	}
	if p.transport == nil {
		p.transport = &http.Transport{
			Proxy:               nil, // never through an environment proxy: the upstream is the only destination
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			MaxIdleConns:        o.MaxInFlight,
			MaxIdleConnsPerHost: o.MaxInFlight,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
		}
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			// Every request goes to the upstream, whatever its Host header or
			// absolute URI says: the proxy is not an open relay.
			pr.SetURL(p.upstream)
			pr.SetXForwarded()
		},
		Transport:    p.transport,
		ErrorLog:     log.New(io.Discard, "", 0),
		ErrorHandler: p.upstreamError,
		BufferPool:   p.buffers,
	}
	var forward http.Handler = rp
	if o.Retry != nil {
		p.retry = newRetrier(p, o.Retry, o.Seed)
		forward = p.retry
	}
	p.limit = newInFlight(forward, o.MaxInFlight)
	srv, err := target.Listen(target.Options{
		Addr: o.Addr, Plan: o.Plan, RNG: o.RNG, Hold: o.Hold, Listen: o.Listen,
		Config:   model.Config{Concurrency: 1},
		Next:     refuseConnect(p.limit),
		Limits:   o.limits(),
		Observer: o.Observer,
		Protocol: o.Protocol,
	})
	if err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	p.Server = srv
	return p, nil
}

// Overloaded returns the requests answered 503 because MaxInFlight requests
// were being forwarded and as many were waiting.
func (p *Proxy) Overloaded() int64 {
	if p.limit == nil {
		return 0
	}
	return p.limit.refused.Load()
}

// Retries returns, for a retrying proxy, its upstream attempts, those of
// them that were retries, and the requests it gave up on (answered with the
// last failure); all 0 for a proxy that forwards each request once.
func (p *Proxy) Retries() (attempts, retries, gaveUp int64) {
	if p.retry == nil {
		return 0, 0, 0
	}
	c := &p.retry.counts
	return c.attempts.Load(), c.retries.Load(), c.gaveUp.Load()
}

// UpstreamErrors returns the requests answered 502 because the upstream
// could not be reached or failed mid-answer.
func (p *Proxy) UpstreamErrors() int64 { return p.upstreamErrors.Load() }

// Close stops the proxy and drops its idle upstream connections.
func (p *Proxy) Close() error {
	err := p.Server.Close()
	if p.upstreamGRPC != nil {
		_ = p.upstreamGRPC.Close()
	}
	if t, ok := p.transport.(interface{ CloseIdleConnections() }); ok {
		t.CloseIdleConnections()
	}
	return err
}

func (p *Proxy) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		// The client gave up, or a crash reset its connection: nothing to answer.
		panic(http.ErrAbortHandler)
	}
	p.upstreamErrors.Add(1)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusBadGateway)
	_, _ = io.WriteString(w, "herdbench proxy: upstream "+p.upstream.Redacted()+": "+strings.TrimSpace(err.Error())+"\n")
}

// refuseConnect answers CONNECT with 405: the proxy tunnels to nowhere.
func refuseConnect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodConnect {
			w.Header().Set("Allow", "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS")
			http.Error(w, "herdbench proxy: CONNECT is not supported; requests are forwarded to the configured upstream only", http.StatusMethodNotAllowed)
			return
		}
		next.ServeHTTP(w, r)
	})
}
