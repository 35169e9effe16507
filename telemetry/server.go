package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/herdbench/herdbench/target"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Server is the request latency of a standalone target or a chaos proxy:
// a target.Observer (told of every request answered) that records into
// the Prometheus histogram herdbench_ROLE_request_duration_seconds and,
// with an OTLP exporter, the OpenTelemetry histogram
// http.server.request.duration.
type Server struct {
	prom [target.NumAnswers]prometheus.Observer
	vec  *prometheus.HistogramVec
	otel *expoHistogram // nil without OTLP
	sets sync.Map       // serverKey -> prometheus.Histogram, otel's
	mu   sync.Mutex     // serialises adding to sets
}

type serverKey struct {
	method string
	status int
	answer target.Answer
}

var _ target.Observer = (*Server)(nil)

// NewServer returns the latency export of a server of the given role
// (target or proxy); with exp, also as an OpenTelemetry instrument.
func NewServer(role string, exp *Exporter) *Server {
	s := &Server{vec: prometheus.NewHistogramVec(latencyOpts("herdbench_"+role+"_request_duration_seconds",
		"Time from a request's arrival to the end of its answer, by outcome (as requests_total)."), []string{"outcome"})}
	for a := target.Answer(0); a < target.NumAnswers; a++ {
		s.prom[a] = s.vec.WithLabelValues(a.String())
	}
	if exp != nil {
		s.otel = exp.histogram("http.server.request.duration", "Duration of the HTTP requests the server answered.", "s")
	}
	return s
}

// Collector returns the Prometheus histogram, to serve on /metrics.
func (s *Server) Collector() prometheus.Collector { return s.vec }

// PlanStarted implements target.Observer.
func (s *Server) PlanStarted(time.Time) {}

// Observe implements target.Observer.
func (s *Server) Observe(o target.Observation) {
	d := o.Ended.Sub(o.Arrived).Seconds()
	s.prom[o.Answer].Observe(d)
	if s.otel == nil {
		return
	}
	k := serverKey{method: method(o.Request), status: o.Status, answer: o.Answer}
	h, ok := s.sets.Load(k)
	if !ok {
		s.mu.Lock()
		if h, ok = s.sets.Load(k); !ok {
			h = s.otel.add(serverAttributes(k))
			s.sets.Store(k, h)
		}
		s.mu.Unlock()
	}
	h.(prometheus.Histogram).Observe(d)
}

// method is the semantic conventions' http.request.method: a known
// method, else _OTHER (so that the attribute's values stay few).
func method(r *http.Request) string {
	if r == nil {
		return "_OTHER"
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return r.Method
	}
	return "_OTHER"
}

func serverAttributes(k serverKey) attribute.Set {
	kv := []attribute.KeyValue{
		attribute.String("http.request.method", k.method),
		attribute.String("herdbench.outcome", k.answer.String()),
	}
	if k.status > 0 {
		kv = append(kv, attribute.Int("http.response.status_code", k.status))
	}
	// For a server only a 5xx is an error (the semantic conventions'
	// rule); a reset or an aborted request is one too.
	if k.status >= 500 || k.answer == target.AnswerReset || k.answer == target.AnswerAborted {
		kv = append(kv, attribute.String("error.type", errorType(false, k.status, k.answer.String())))
	}
	return attribute.NewSet(kv...)
}

// ExportServer registers the counters of a target's or proxy's collector
// (NewTargetCollector's or NewProxyCollector's) as OpenTelemetry
// observable instruments of exp, read at each export.
func ExportServer(exp *Exporter, c prometheus.Collector) error {
	sc, ok := c.(*serverCollector)
	if !ok {
		return fmt.Errorf("telemetry: ExportServer takes NewTargetCollector's or NewProxyCollector's collector, not %T", c)
	}
	return sc.registerOTel(exp.meter)
}

func (c *serverCollector) registerOTel(m metric.Meter) error {
	active, err1 := m.Int64ObservableUpDownCounter("http.server.active_requests", metric.WithUnit("{request}"), metric.WithDescription("Requests being handled now."))
	fault, err2 := m.Int64ObservableGauge("herdbench.fault.active", metric.WithDescription("1 while the fault named herdbench.fault (planned or injected) is active, else 0."))
	running, err3 := m.Int64ObservableGauge("herdbench.plan.running", metric.WithDescription("1 while the chaos plan runs."))
	insts := []metric.Observable{active, fault, running}
	errs := []error{err1, err2, err3}
	var queue, busy, capacity, events, upErrors, overloaded, upAttempts, upRetries, gaveUp metric.Int64Observable
	if c.upstreamErrors == nil {
		var e [4]error
		queue, e[0] = m.Int64ObservableGauge("herdbench.target.queue.depth", metric.WithUnit("{request}"), metric.WithDescription("Requests waiting for a slot in the capacity model."))
		busy, e[1] = m.Int64ObservableGauge("herdbench.target.slots.busy", metric.WithUnit("{slot}"), metric.WithDescription("Slots of the capacity model in use."))
		capacity, e[2] = m.Int64ObservableGauge("herdbench.target.slots.capacity", metric.WithUnit("{slot}"), metric.WithDescription("Slots available now."))
		events, e[3] = m.Int64ObservableCounter("herdbench.target.model.events", metric.WithUnit("{event}"), metric.WithDescription("Capacity model events, by herdbench.event."))
		insts = append(insts, queue, busy, capacity, events)
		errs = append(errs, e[:]...)
	} else {
		var e [5]error
		upErrors, e[0] = m.Int64ObservableCounter("herdbench.proxy.upstream.errors", metric.WithUnit("{request}"), metric.WithDescription("Requests answered 502: the upstream could not be reached or failed."))
		overloaded, e[1] = m.Int64ObservableCounter("herdbench.proxy.overloaded", metric.WithUnit("{request}"), metric.WithDescription("Requests answered 503 by the proxy itself (--max-in-flight)."))
		upAttempts, e[2] = m.Int64ObservableCounter("herdbench.proxy.upstream.attempts", metric.WithUnit("{request}"), metric.WithDescription("With --retry: attempts sent upstream."))
		upRetries, e[3] = m.Int64ObservableCounter("herdbench.proxy.upstream.retries", metric.WithUnit("{request}"), metric.WithDescription("With --retry: attempts sent upstream that were retries."))
		gaveUp, e[4] = m.Int64ObservableCounter("herdbench.proxy.gave_up", metric.WithUnit("{request}"), metric.WithDescription("With --retry: requests whose retries gave up."))
		insts = append(insts, upErrors, overloaded, upAttempts, upRetries, gaveUp)
		errs = append(errs, e[:]...)
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	_, err := m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		st := c.status()
		o.ObserveInt64(active, st.InFlight)
		for n, on := range activeFaults(st) {
			o.ObserveInt64(fault, int64(boolValue(on)), metric.WithAttributes(attribute.String("herdbench.fault", n)))
		}
		o.ObserveInt64(running, int64(boolValue(st.PlanRunning)))
		if c.upstreamErrors != nil {
			o.ObserveInt64(upErrors, c.upstreamErrors())
			o.ObserveInt64(overloaded, c.overloaded())
			a, r, g := c.retries()
			o.ObserveInt64(upAttempts, a)
			o.ObserveInt64(upRetries, r)
			o.ObserveInt64(gaveUp, g)
			return nil
		}
		o.ObserveInt64(queue, int64(st.Queued))
		o.ObserveInt64(busy, int64(st.Busy))
		o.ObserveInt64(capacity, int64(st.Capacity))
		for _, e := range modelEvents(st) {
			o.ObserveInt64(events, e.n, metric.WithAttributes(attribute.String("herdbench.event", e.name)))
		}
		return nil
	}, insts...)
	return err
}
