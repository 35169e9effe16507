package telemetry

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"sync/atomic"
	"time"

	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/proxy"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/target"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// MaxScrapes is how many scrapes of one Handler run at once; more are
// answered 503 at once. Each scrape builds the whole exposition in memory,
// so without a bound many concurrent scrapes (10,000 took a target to
// 1.24 GB) cost as much memory as the process has.
const MaxScrapes = 4

// Handler serves the collectors' metrics, with the Go runtime's and the
// process's, in the Prometheus text format, at most MaxScrapes at once.
func Handler(cs ...prometheus.Collector) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, c := range cs {
		reg.MustRegister(c)
	}
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError, MaxRequestsInFlight: MaxScrapes})
}

// serverCollector exports a standalone target or a proxy.
type serverCollector struct {
	status         func() target.Status
	upstreamErrors func() int64                             // the proxy's; nil for a target
	overloaded     func() int64                             // the proxy's
	retries        func() (attempts, retries, gaveUp int64) // the proxy's

	requests, inFlight, activeFault, planRunning, planElapsed *prometheus.Desc
	queue, busy, capacity, events, upstream, overload         *prometheus.Desc
	upAttempts, upRetries, gaveUp                             *prometheus.Desc
}

func newServerCollector(role string, status func() target.Status) *serverCollector {
	name := func(n string) string { return "herdbench_" + role + "_" + n }
	return &serverCollector{
		status:      status,
		requests:    prometheus.NewDesc(name("requests_total"), "Requests answered, by outcome: ok, http_4xx, http_429, http_5xx, reset (connection reset by a fault), aborted (no answer: the client gave up, or a crash dropped the request).", []string{"outcome"}, nil),
		inFlight:    prometheus.NewDesc(name("in_flight"), "Requests being handled now.", nil, nil),
		activeFault: prometheus.NewDesc(name("active_fault"), "1 while a fault of this name (planned or injected) is active, else 0.", []string{"fault"}, nil),
		planRunning: prometheus.NewDesc(name("plan_running"), "1 while the scenario's chaos plan runs (started, not stopped).", nil, nil),
		planElapsed: prometheus.NewDesc(name("plan_elapsed_seconds"), "Time since the chaos plan's t = 0 (negative before a scheduled start); 0 when not running.", nil, nil),
		queue:       prometheus.NewDesc(name("queue_depth"), "Requests waiting for a slot in the capacity model.", nil, nil),
		busy:        prometheus.NewDesc(name("busy_slots"), "Slots of the capacity model in use.", nil, nil),
		capacity:    prometheus.NewDesc(name("capacity_slots"), "Slots available now (concurrency, cut by brownouts and the cold-start ramp).", nil, nil),
		events:      prometheus.NewDesc(name("model_events_total"), "Capacity model events: served, wasted (served for a client that had gone), rejected (queue full), expired (queue timeout), faulted (answered by a fault), abandoned (left the queue), crashed (lost to a crash).", []string{"event"}, nil),
		upstream:    prometheus.NewDesc(name("upstream_errors_total"), "Requests answered 502 because the upstream could not be reached or failed.", nil, nil),
		overload:    prometheus.NewDesc(name("overloaded_total"), "Requests answered 503 by the proxy itself because --max-in-flight requests were being forwarded and as many were waiting.", nil, nil),
		upAttempts:  prometheus.NewDesc(name("upstream_attempts_total"), "With --retry: attempts sent upstream, first tries and retries.", nil, nil),
		upRetries:   prometheus.NewDesc(name("upstream_retries_total"), "With --retry: attempts sent upstream that were retries.", nil, nil),
		gaveUp:      prometheus.NewDesc(name("gave_up_total"), "With --retry: requests whose retries gave up, answered with the last failure.", nil, nil),
	}
}

// NewTargetCollector exports a standalone target as herdbench_target_*.
func NewTargetCollector(s *target.Server) prometheus.Collector {
	return newServerCollector("target", s.Status)
}

// NewProxyCollector exports a chaos proxy as herdbench_proxy_*.
func NewProxyCollector(p *proxy.Proxy) prometheus.Collector {
	c := newServerCollector("proxy", p.Status)
	c.upstreamErrors, c.overloaded, c.retries = p.UpstreamErrors, p.Overloaded, p.Retries
	return c
}

// Describe implements prometheus.Collector.
func (c *serverCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs() {
		ch <- d
	}
}

func (c *serverCollector) descs() []*prometheus.Desc {
	ds := []*prometheus.Desc{c.requests, c.inFlight, c.activeFault, c.planRunning, c.planElapsed}
	if c.upstreamErrors != nil {
		return append(ds, c.upstream, c.overload, c.upAttempts, c.upRetries, c.gaveUp)
	}
	return append(ds, c.queue, c.busy, c.capacity, c.events)
}

// Collect implements prometheus.Collector.
func (c *serverCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.status()
	for a := target.Answer(0); a < target.NumAnswers; a++ {
		ch <- prometheus.MustNewConstMetric(c.requests, prometheus.CounterValue, float64(st.Answers[a]), a.String())
	}
	ch <- prometheus.MustNewConstMetric(c.inFlight, prometheus.GaugeValue, float64(st.InFlight))
	active := activeFaults(st)
	for _, n := range sortedKeys(active) {
		ch <- prometheus.MustNewConstMetric(c.activeFault, prometheus.GaugeValue, boolValue(active[n]), n)
	}
	ch <- prometheus.MustNewConstMetric(c.planRunning, prometheus.GaugeValue, boolValue(st.PlanRunning))
	ch <- prometheus.MustNewConstMetric(c.planElapsed, prometheus.GaugeValue, st.PlanElapsed.Seconds())
	if c.upstreamErrors != nil {
		ch <- prometheus.MustNewConstMetric(c.upstream, prometheus.CounterValue, float64(c.upstreamErrors()))
		ch <- prometheus.MustNewConstMetric(c.overload, prometheus.CounterValue, float64(c.overloaded()))
		attempts, retries, gaveUp := c.retries()
		ch <- prometheus.MustNewConstMetric(c.upAttempts, prometheus.CounterValue, float64(attempts))
		ch <- prometheus.MustNewConstMetric(c.upRetries, prometheus.CounterValue, float64(retries))
		ch <- prometheus.MustNewConstMetric(c.gaveUp, prometheus.CounterValue, float64(gaveUp))
		return
	}
	ch <- prometheus.MustNewConstMetric(c.queue, prometheus.GaugeValue, float64(st.Queued))
	ch <- prometheus.MustNewConstMetric(c.busy, prometheus.GaugeValue, float64(st.Busy))
	ch <- prometheus.MustNewConstMetric(c.capacity, prometheus.GaugeValue, float64(st.Capacity))
	for _, e := range modelEvents(st) {
		ch <- prometheus.MustNewConstMetric(c.events, prometheus.CounterValue, float64(e.n), e.name)
	}
}

// activeFaults says, for each fault of the status by name, whether it is
// active (planned or injected).
func activeFaults(st target.Status) map[string]bool {
	active := map[string]bool{}
	for _, f := range st.Faults {
		active[f.Name] = active[f.Name] || f.Active
	}
	for _, n := range st.Active {
		active[n] = true
	}
	return active
}

type modelEvent struct {
	name string
	n    int64
}

// modelEvents are the capacity model's counters, by event name.
func modelEvents(st target.Status) []modelEvent {
	return []modelEvent{
		{"served", st.Stats.Served}, {"wasted", st.Stats.Wasted}, {"rejected", st.Stats.Rejected},
		{"expired", st.Stats.Expired}, {"faulted", st.Stats.Faulted}, {"abandoned", st.Stats.Abandoned},
		{"crashed", st.Stats.Crashed},
	}
}

// SwarmCollector exports the cohorts of a running scenario as
// herdbench_swarm_*. It exports nothing until Set gives it the run.
type SwarmCollector struct {
	run atomic.Pointer[engine.Run]

	attempts, inFlight, started, succeeded, failed, policy, elapsed, duration, fault *prometheus.Desc
}

// NewSwarmCollector returns a collector waiting for its run.
func NewSwarmCollector() *SwarmCollector {
	return &SwarmCollector{
		attempts:  prometheus.NewDesc("herdbench_swarm_attempts_total", "Attempts that ended, by cohort, outcome (ok, http_5xx, http_429, http_4xx, timeout, refused, reset, error) and attempt number (1 = first try, 2, 3, 4+).", []string{"cohort", "outcome", "attempt"}, nil),
		inFlight:  prometheus.NewDesc("herdbench_swarm_in_flight", "Attempts on the wire now, by cohort.", []string{"cohort"}, nil),
		started:   prometheus.NewDesc("herdbench_swarm_requests_started_total", "Logical requests started, by cohort.", []string{"cohort"}, nil),
		succeeded: prometheus.NewDesc("herdbench_swarm_requests_succeeded_total", "Logical requests that ended in success, by cohort.", []string{"cohort"}, nil),
		failed:    prometheus.NewDesc("herdbench_swarm_requests_failed_total", "Logical requests that gave up, by cohort.", []string{"cohort"}, nil),
		policy:    prometheus.NewDesc("herdbench_swarm_policy_events_total", "Decisions of the client policies, by cohort and event: budget_denied (a retry denied: the request failed), breaker_rejected and throttled (calls refused locally, never sent), breaker_opened, breaker_closed.", []string{"cohort", "event"}, nil),
		elapsed:   prometheus.NewDesc("herdbench_swarm_elapsed_seconds", "Time since the run's t = 0.", nil, nil),
		duration:  prometheus.NewDesc("herdbench_swarm_duration_seconds", "The run's planned length.", nil, nil),
		fault:     prometheus.NewDesc("herdbench_swarm_active_fault", "1 while the scenario's fault of this name is planned to be active (for an external target, the expected times), else 0.", []string{"fault"}, nil),
	}
}

// Set gives the collector its run.
func (c *SwarmCollector) Set(r *engine.Run) { c.run.Store(r) }

// Describe implements prometheus.Collector.
func (c *SwarmCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.attempts, c.inFlight, c.started, c.succeeded, c.failed, c.policy, c.elapsed, c.duration, c.fault} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *SwarmCollector) Collect(ch chan<- prometheus.Metric) {
	r := c.run.Load()
	if r == nil {
		return
	}
	snap := r.Snapshot()
	for _, co := range snap.Cohorts {
		for o := results.Outcome(0); o < results.NumOutcomes; o++ {
			for g := 0; g < results.AttemptGroups; g++ {
				ch <- prometheus.MustNewConstMetric(c.attempts, prometheus.CounterValue, float64(co.ByAttempt[o][g]), co.Strategy, o.String(), results.AttemptGroupName(g))
			}
		}
		ch <- prometheus.MustNewConstMetric(c.inFlight, prometheus.GaugeValue, float64(co.InFlight), co.Strategy)
		ch <- prometheus.MustNewConstMetric(c.started, prometheus.CounterValue, float64(co.Requests), co.Strategy)
		ch <- prometheus.MustNewConstMetric(c.succeeded, prometheus.CounterValue, float64(co.Succeeded), co.Strategy)
		ch <- prometheus.MustNewConstMetric(c.failed, prometheus.CounterValue, float64(co.Failed), co.Strategy)
		for e := results.PolicyEvent(0); e < results.NumPolicyEvents; e++ {
			ch <- prometheus.MustNewConstMetric(c.policy, prometheus.CounterValue, float64(co.Policy[e]), co.Strategy, e.String())
		}
	}
	ch <- prometheus.MustNewConstMetric(c.elapsed, prometheus.GaugeValue, snap.Elapsed.Seconds())
	ch <- prometheus.MustNewConstMetric(c.duration, prometheus.GaugeValue, r.Plan.Duration.Seconds())
	active := plannedFaults(r, snap.Elapsed)
	for _, n := range sortedKeys(active) {
		ch <- prometheus.MustNewConstMetric(c.fault, prometheus.GaugeValue, boolValue(active[n]), n)
	}
}

// plannedFaults says, for each of the run's faults by name, whether it is
// planned to be active at elapsed.
func plannedFaults(r *engine.Run, elapsed time.Duration) map[string]bool {
	active := map[string]bool{}
	for _, f := range r.Plan.Chaos.Faults() {
		active[f.Name] = active[f.Name] || (f.At <= elapsed && elapsed < f.End())
	}
	return active
}

// registerOTel registers the swarm's counters as OpenTelemetry observable
// instruments, read from the run's snapshot at each export.
func (c *SwarmCollector) registerOTel(m metric.Meter) error {
	started, err1 := m.Int64ObservableCounter("herdbench.swarm.requests.started", metric.WithUnit("{request}"), metric.WithDescription("Logical requests started."))
	succeeded, err2 := m.Int64ObservableCounter("herdbench.swarm.requests.succeeded", metric.WithUnit("{request}"), metric.WithDescription("Logical requests that ended in success."))
	failed, err3 := m.Int64ObservableCounter("herdbench.swarm.requests.failed", metric.WithUnit("{request}"), metric.WithDescription("Logical requests that gave up."))
	policy, err4 := m.Int64ObservableCounter("herdbench.swarm.policy.events", metric.WithUnit("{event}"), metric.WithDescription("Decisions of the client policies, by herdbench.policy.event."))
	active, err5 := m.Int64ObservableUpDownCounter("http.client.active_requests", metric.WithUnit("{request}"), metric.WithDescription("Attempts on the wire now."))
	fault, err6 := m.Int64ObservableGauge("herdbench.fault.active", metric.WithDescription("1 while the fault named herdbench.fault is planned to be active, else 0."))
	elapsed, err7 := m.Float64ObservableGauge("herdbench.swarm.elapsed", metric.WithUnit("s"), metric.WithDescription("Time since the run's t = 0."))
	if err := errors.Join(err1, err2, err3, err4, err5, err6, err7); err != nil {
		return err
	}
	_, err := m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		r := c.run.Load()
		if r == nil {
			return nil
		}
		snap := r.Snapshot()
		for _, co := range snap.Cohorts {
			cohort := metric.WithAttributes(attribute.String("herdbench.cohort", co.Strategy))
			o.ObserveInt64(started, co.Requests, cohort)
			o.ObserveInt64(succeeded, co.Succeeded, cohort)
			o.ObserveInt64(failed, co.Failed, cohort)
			o.ObserveInt64(active, co.InFlight, cohort)
			for e := results.PolicyEvent(0); e < results.NumPolicyEvents; e++ {
				o.ObserveInt64(policy, co.Policy[e], metric.WithAttributes(attribute.String("herdbench.cohort", co.Strategy), attribute.String("herdbench.policy.event", e.String())))
			}
		}
		o.ObserveFloat64(elapsed, snap.Elapsed.Seconds())
		for n, on := range plannedFaults(r, snap.Elapsed) {
			o.ObserveInt64(fault, int64(boolValue(on)), metric.WithAttributes(attribute.String("herdbench.fault", n)))
		}
		return nil
	}, started, succeeded, failed, policy, active, fault, elapsed)
	return err
}

var (
	_ prometheus.Collector = (*serverCollector)(nil)
	_ prometheus.Collector = (*SwarmCollector)(nil)
)

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
