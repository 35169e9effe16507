package telemetry

import (
	"strconv"
	"sync"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
)

// Latency histograms: classic buckets for scrapers of the text format, and
// a native (sparse, exponential) histogram beside them for scrapers that
// negotiate protobuf. A bucket factor of 1.1 is at most 10% between bucket
// bounds (schema 3); 160 buckets at most, halving the resolution past that.
var latencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

func latencyOpts(name, help string) prometheus.HistogramOpts {
	return prometheus.HistogramOpts{
		Name: name, Help: help, Buckets: latencyBuckets,
		NativeHistogramBucketFactor:     1.1,
		NativeHistogramMaxBucketNumber:  160,
		NativeHistogramMinResetDuration: time.Hour,
	}
}

// Swarm is the live export of a running scenario's swarm: its counters
// (SwarmCollector, read when scraped or exported) and the attempts'
// latency, recorded as each attempt ends through the observers Cohort
// returns, into a Prometheus histogram and, with an OTLP exporter, the
// OpenTelemetry histogram http.client.request.duration.
type Swarm struct {
	*SwarmCollector
	attempts *prometheus.HistogramVec
	otel     *expoHistogram // nil without OTLP

	mu      sync.Mutex
	cohorts map[string]*cohortObserver
}

// NewSwarm returns the swarm's exports; with exp, also as OpenTelemetry
// instruments of exp's meter.
func NewSwarm(exp *Exporter) (*Swarm, error) {
	s := &Swarm{
		SwarmCollector: NewSwarmCollector(),
		attempts: prometheus.NewHistogramVec(latencyOpts("herdbench_swarm_attempt_duration_seconds",
			"Latency of the attempts that ended, from the first byte sent to the answer or error, by cohort, outcome and attempt number (as herdbench_swarm_attempts_total)."),
			[]string{"cohort", "outcome", "attempt"}),
		cohorts: map[string]*cohortObserver{},
	}
	if exp != nil {
		s.otel = exp.histogram("http.client.request.duration", "Duration of the swarm's HTTP attempts (each try and retry is one request).", "s")
		if err := s.SwarmCollector.registerOTel(exp.meter); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Collectors returns the Prometheus collectors to serve on /metrics.
func (s *Swarm) Collectors() []prometheus.Collector {
	return []prometheus.Collector{s.SwarmCollector, s.attempts}
}

// Cohort returns the observer of the named cohort's attempts, the same
// one each time it is asked (a run's repetitions add up). It is
// engine.Options.Observe.
func (s *Swarm) Cohort(name string) results.Observer {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.cohorts[name]; c != nil {
		return c
	}
	c := &cohortObserver{name: name, otel: s.otel}
	for o := results.Outcome(0); o < results.NumOutcomes; o++ {
		for g := range results.AttemptGroups {
			c.prom[o][g] = s.attempts.WithLabelValues(name, o.String(), results.AttemptGroupName(g))
		}
	}
	s.cohorts[name] = c
	return c
}

// cohortObserver records one cohort's attempts. The Prometheus
// observers are looked up once; the OpenTelemetry histograms once per
// outcome, attempt group and status code, then read from a sync.Map.
type cohortObserver struct {
	name string
	prom [results.NumOutcomes][results.AttemptGroups]prometheus.Observer
	otel *expoHistogram
	sets sync.Map   // attemptKey -> prometheus.Histogram, otel's
	mu   sync.Mutex // serialises adding to sets
}

type attemptKey struct {
	outcome results.Outcome
	group   int
	status  int
}

var _ results.Observer = (*cohortObserver)(nil)

// ObserveAttempt implements results.Observer.
func (c *cohortObserver) ObserveAttempt(a results.Attempt) {
	g := min(max(a.Number, 1), results.AttemptGroups) - 1
	secs := a.Latency.Seconds()
	c.prom[a.Outcome][g].Observe(secs)
	if c.otel == nil {
		return
	}
	k := attemptKey{a.Outcome, g, a.Status}
	h, ok := c.sets.Load(k)
	if !ok {
		c.mu.Lock()
		if h, ok = c.sets.Load(k); !ok {
			h = c.otel.add(c.attributes(k))
			c.sets.Store(k, h)
		}
		c.mu.Unlock()
	}
	h.(prometheus.Histogram).Observe(secs)
}

// attributes are an attempt's OpenTelemetry attributes: the semantic
// conventions' (the method, the status code when there was an answer,
// error.type for a failure: the status code for an HTTP error, else the
// transport outcome) and herdbench's own.
func (c *cohortObserver) attributes(k attemptKey) attribute.Set {
	kv := []attribute.KeyValue{
		attribute.String("http.request.method", "POST"),
		attribute.String("herdbench.cohort", c.name),
		attribute.String("herdbench.attempt", results.AttemptGroupName(k.group)),
		attribute.String("herdbench.outcome", k.outcome.String()),
	}
	if k.status > 0 {
		kv = append(kv, attribute.Int("http.response.status_code", k.status))
	}
	if et := errorType(k.outcome == results.OK, k.status, k.outcome.String()); et != "" {
		kv = append(kv, attribute.String("error.type", et))
	}
	return attribute.NewSet(kv...)
}

// errorType is the semantic conventions' error.type: empty for a success,
// the status code for an HTTP error answer, else herdbench's outcome name
// (timeout, refused, reset, error; aborted for a server).
func errorType(ok bool, status int, outcome string) string {
	switch {
	case ok:
		return ""
	case status >= 400:
		return strconv.Itoa(status)
	}
	return outcome
}
