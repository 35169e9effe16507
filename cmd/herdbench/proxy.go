package main

import (
	"context"
	"fmt"
	"io"
	"net/url"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/netguard"
	"github.com/herdbench/herdbench/internal/wire"
	"github.com/herdbench/herdbench/proxy"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/seeds"
	"github.com/herdbench/herdbench/telemetry"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"
)

const proxyHelp = `Usage: herdbench proxy --upstream URL [--scenario NAME|FILE] [flags]

Puts a chaos proxy in front of a real service: every request to --listen is
forwarded to --upstream (and only there: it is not an open relay), and the
scenario's chaos plan is applied on the way, on the plan's clock:
  outage 503      answered 503 at once (Retry-After with retry_after)
  outage reset    the client's connection is reset (RST); when it begins,
                  every request in flight through the proxy is reset
  outage refuse   the proxy stops listening: new connections are refused
  blip latency    the request waits the delay before it is forwarded
  blip blackhole  the request is held until the client gives up
  error-rate      that fraction is answered at once with the status
Brownouts cut herdbench's own target model and are refused here; the
upstream's real capacity and recovery apply.

With --retry NAME the proxy also retries upstream, as a middle tier of a
chain does (client -> herdbench proxy -> service): every request it
forwards is one request of herdbench's retry strategy NAME, one of the
scenario's strategies or a preset (grpc, envoy, botocore-standard,
aws-sdk-go-v2-standard, go-retryablehttp, cenkalti-backoff-v4, ...:
docs/policies.md lists them). A failed attempt (a connection error, a
5xx or 429, the strategy's per-attempt timeout) is retried after the
strategy's backoff, within its budget, breaker and throttle, which every
forwarded request shares; the first success, or the last failure, goes
back to the client. A 4xx other than 429 goes back at once. Bodies up to
1 MiB are kept to be sent again. A POST or PATCH is sent once, as the
swarm sends it, unless the strategy says retry_non_idempotent (envoy,
grpc, the aws and the Go libraries' presets do) or the request carries
its idempotency_header (Idempotency-Key by default).
In a scenario that chains tiers, --tier names the tier the proxy plays:
its faults, and the strategy as that tier retries it (every method, as a
tier retries herdbench's calls, unless the tier says otherwise).
  herdbench proxy --upstream http://127.0.0.1:9000 --retry grpc
  herdbench proxy --upstream http://127.0.0.1:9000 --scenario layers --tier api --retry every-tier

The plan starts with the proxy, or with --hold when asked. The control API
and metrics (herdbench_proxy_*) are on --control-addr, with the same checks
as for herdbench target (JSON POSTs, Host and Origin, an optional token);
so is the live page of --ui ADDR, with its buttons.
Both addresses are on loopback unless --allow-remote; the upstream is
where you send it, anywhere. At most --max-in-flight requests are
forwarded at once and as many wait; beyond that the proxy answers 503 at
once (X-Herdbench-Proxy: overloaded; a gRPC proxy's call: UNAVAILABLE,
with x-herdbench-proxy: overloaded in its header), so its memory stays
bounded. Point the swarm at the proxy (a loopback address, so no
--allow-remote is needed even when the upstream is remote):
  herdbench proxy --upstream https://staging.internal --scenario gameday.yaml --hold
  herdbench scenario gameday.yaml --target http://127.0.0.1:8090/ --chaos-control http://127.0.0.1:8091

It records every request it receives, on the plan's clock, with the
swarm's recorder: your own clients get a swarm's results folder (10 ms
timeline, herd factor, recovery, latency, report.html) on POST
/control/results, when --exit-after passes and on Ctrl-C, with the
scenario's thresholds checked. Tell clients apart with --cohort-by and
their retries with --attempt-header:
  herdbench proxy --upstream http://127.0.0.1:9000 --scenario gameday.yaml \
    --cohort-by user-agent --attempt-header amz-sdk-request --exit-after 60s
Figures the traffic cannot tell (amplification without attempt numbers,
request latency) are null, and say so. docs/game-day.md has a rehearsal.

Ctrl-C stops it (exit 0, or 3 if a threshold failed on the recording).

Flags:
`

func runProxy(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runProxyOn(ctx, nil, args, stdout, stderr)
}

// runProxyOn is runProxy on the network n (nil: the host's).
func runProxyOn(ctx context.Context, n *serveNet, args []string, stdout, stderr io.Writer) int {
	f := serveFlags{net: n}
	var upstream string
	var maxInFlight int
	var retry, upstreamProto string
	fs := proxyFlags(&f, &upstream, &maxInFlight, &retry, &upstreamProto, stderr)
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "herdbench proxy: unexpected argument %q; name the scenario with --scenario\n", fs.Arg(0))
		return exitUsage
	}
	if code := f.check("proxy", stderr); code != exitOK {
		return code
	}
	if maxInFlight < 1 {
		fmt.Fprintf(stderr, "herdbench proxy: --max-in-flight %d: forward at least 1 request at once\n", maxInFlight)
		return exitUsage
	}
	if upstream == "" {
		fmt.Fprintln(stderr, "herdbench proxy: --upstream is required: the URL of the service to put the proxy in front of, e.g. --upstream http://127.0.0.1:9000")
		return exitUsage
	}
	grpcProxy := f.protocol == "grpc"
	if _, err := wire.Parse(f.protocol); err != nil && !grpcProxy {
		fmt.Fprintf(stderr, "herdbench proxy: --protocol %q: write http1 (HTTP/1.1), h2c, h2 or grpc\n", f.protocol)
		return exitUsage
	}
	up, err := proxy.ParseUpstream(upstream)
	if err != nil {
		fmt.Fprintf(stderr, "herdbench proxy: --upstream: %v\n", err)
		return exitUsage
	}
	plan, err := f.loadServerPlan(fs)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	proto, upProto, grpcProxy, code := proxyWires(&f, plan, up, grpcProxy, retry, upstreamProto, stderr)
	if code != exitOK {
		return code
	}
	if err := proxy.CheckPlan(plan.Chaos); err != nil {
		fmt.Fprintf(stderr, "herdbench proxy: scenario %s: %v\n", plan.Name, err)
		return exitUsage
	}
	var strategy *clients.Strategy
	if retry != "" {
		if strategy, err = f.parsed.RetryStrategy(retry, f.tier, scenarios.Overrides{Seed: &plan.Seed}); err != nil {
			fmt.Fprintf(stderr, "herdbench proxy: %v\n", err)
			return exitUsage
		}
	}
	exp, code := f.otlp.start(ctx, "proxy", f.allowRemote, stderr)
	if code != exitOK {
		return code
	}
	lat := telemetry.NewServer("proxy", exp)
	rec := newRecorder("proxy", up.Redacted(), plan, &f.record, stderr, f.logger("proxy", stderr))
	p, err := proxy.Start(proxy.Options{
		Addr: f.listen, Upstream: up, Plan: plan.Chaos, Hold: f.hold, Listen: f.listenFunc(), MaxInFlight: maxInFlight, MaxConns: f.maxConns,
		RNG: seeds.Stream(plan.Seed, seeds.Target), Retry: strategy, Seed: plan.Seed, Observer: serverObserver(rec.observer(), lat),
		Transport: f.upstreamTransport(), Protocol: proto, UpstreamProtocol: upProto, GRPC: grpcProxy,
	})
	if err != nil {
		shutdownOTLP(exp, "proxy", stderr)
		fmt.Fprintf(stderr, "herdbench proxy: %v\nChoose another address with --listen.\n", err)
		return exitFailed
	}
	collector := telemetry.NewProxyCollector(p)
	if exp != nil {
		if err := telemetry.ExportServer(exp, collector); err != nil {
			_ = p.Close()
			shutdownOTLP(exp, "proxy", stderr)
			fmt.Fprintf(stderr, "herdbench proxy: --otlp: %v\n", err)
			return exitFailed
		}
	}
	if f.builtin != "" {
		f.logger("proxy", stderr)("%s", f.builtin)
	}
	if !f.quiet {
		scheme := p.URL()
		if grpcProxy {
			scheme = "grpc://" + p.Addr()
		}
		f.logger("proxy", stderr)("serving %s%s -> %s (scenario %s%s, seed %d%s)", scheme, protoText(proto), up.Redacted(), plan.Name, tierText(plan, f.tier), plan.Seed, retryingText(retry, strategy))
	}
	return serve(ctx, "proxy", &f, p.Server, []prometheus.Collector{collector, lat.Collector()}, exp, proxy.CheckFault, p.Close, rec, stdout, stderr)
}

// proxyFlags is the proxy command's flag set, over f and the proxy's own
// flags.
func proxyFlags(f *serveFlags, upstream *string, maxInFlight *int, retry, upstreamProto *string, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet("proxy", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(upstream, "upstream", "", "the service to forward to, e.g. http://127.0.0.1:9000 (required)")
	f.add(fs, "127.0.0.1:8090", "127.0.0.1:8091", min(proxy.DefaultMaxConns, netguard.TrafficLimits(2).MaxConns),
		"(about 20 KB and two open files each; the default keeps the proxy under 200 MB)")
	fs.StringVar(retry, "retry", "", "retry upstream with this strategy: a strategy of --scenario (as --tier retries it, in a chain of tiers) or a preset (grpc, envoy, botocore-standard, aws-sdk-go-v2-standard, go-retryablehttp, ...: docs/policies.md); default: forward each request once")
	fs.StringVar(upstreamProto, "upstream-protocol", "", "how to reach the upstream: http1 (default), h2c (HTTP/2 with prior knowledge, an http:// upstream) or h2 (HTTP/2 over TLS, an https:// upstream); not with --retry, whose calls are HTTP/1.1")
	fs.Lookup("protocol").Usage = "what to serve: http1 (HTTP/1.1), h2c or h2 (as herdbench target serves them), or grpc (a transparent gRPC proxy for any method, to a gRPC upstream given as http://HOST:PORT; docs/grpc.md) (default: grpc for a scenario whose target speaks gRPC, target.protocol: grpc; else the scenario's protocol, else http1)"
	fs.IntVar(maxInFlight, "max-in-flight", proxy.DefaultMaxInFlight, "requests (or gRPC calls) forwarded at once (about 70 KB of memory each); as many again wait, and beyond that a request is answered 503 (a call UNAVAILABLE) at once (herdbench_proxy_overloaded_total)")
	fs.SortFlags = false
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), proxyHelp)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), "\nExit codes: 0 stopped; 1 could not start, or could not write the\nrecording's results; 2 bad usage or an invalid scenario; 3 a threshold\nfailed on the recorded traffic.\n")
	}
	return fs
}

// proxyWires reads what a proxy serves (proto, or gRPC: grpcProxy, which
// a gRPC scenario makes the default) and how it reaches its upstream
// (upProto), and refuses what does not go together with --retry; a code
// other than exitOK means stop with it.
func proxyWires(f *serveFlags, plan *scenarios.Plan, up *url.URL, grpcProxy bool, retry, upstreamProto string, stderr io.Writer) (proto, upProto wire.Protocol, grpc bool, code int) {
	var err error
	// A gRPC scenario's (target.protocol: grpc) swarm calls over gRPC:
	// the proxy in front of its service speaks gRPC unless told otherwise.
	grpcProxy = grpcProxy || (f.protocol == "" && plan.GRPC)
	because := ""
	if f.protocol == "" {
		because = fmt.Sprintf(" (scenario %s's target speaks gRPC)", plan.Name)
	}
	if grpcProxy && retry != "" {
		fmt.Fprintf(stderr, "herdbench proxy: --retry retries HTTP requests; a gRPC proxy%s forwards each call once (leave --retry out, or --protocol http1)\n", because)
		return proto, upProto, grpcProxy, exitUsage
	}
	if grpcProxy && upstreamProto != "" {
		fmt.Fprintf(stderr, "herdbench proxy: --upstream-protocol is an HTTP proxy's; a gRPC proxy%s calls its upstream over grpc-go's own HTTP/2 (leave --upstream-protocol out)\n", because)
		return proto, upProto, grpcProxy, exitUsage
	}
	// proto stays HTTP/1.1's zero value for a gRPC proxy
	if !grpcProxy {
		if proto, err = f.protocolOf("proxy", plan); err != nil {
			fmt.Fprintln(stderr, err)
			return proto, upProto, grpcProxy, exitUsage
		}
	}
	upProto, err = wire.Parse(upstreamProto)
	if err != nil {
		fmt.Fprintf(stderr, "herdbench proxy: --upstream-protocol: %v\n", err)
		return proto, upProto, grpcProxy, exitUsage
	}
	if upProto.HTTP2() && retry != "" {
		fmt.Fprintf(stderr, "herdbench proxy: --upstream-protocol %s: %v\n", upProto, proxy.ErrHTTP1Only)
		return proto, upProto, grpcProxy, exitUsage
	}
	if upProto.HTTP2() && up.Scheme != upProto.Scheme() {
		fmt.Fprintf(stderr, "herdbench proxy: --upstream-protocol %s needs an %s:// upstream, not %s\n", upProto, upProto.Scheme(), up.Redacted())
		return proto, upProto, grpcProxy, exitUsage
	}
	return proto, upProto, grpcProxy, exitOK
}

// retryingText says how a proxy retries: ", retrying with NAME: ...", or
// "" for one that forwards each request once.
func retryingText(name string, s *clients.Strategy) string {
	if s == nil {
		return ""
	}
	return fmt.Sprintf(", retrying with %s: %s", name, describeStrategy(s))
}

// tierText names the tier a target or proxy plays, in a chain of tiers:
// ", tier NAME", or "" for a scenario without tiers.
func tierText(p *scenarios.Plan, tier string) string {
	if len(p.Tiers) == 0 {
		return ""
	}
	if tier == "" {
		tier = p.Tiers[len(p.Tiers)-1].Name
	}
	return ", tier " + tier
}

// describeStrategy says a retry strategy in a few words.
func describeStrategy(s *clients.Strategy) string {
	attempts := "unlimited attempts"
	switch {
	case s.MaxAttempts == 1:
		attempts = "1 attempt (no retries)"
	case s.MaxAttempts > 1:
		attempts = fmt.Sprintf("%d attempts", s.MaxAttempts)
	}
	out := fmt.Sprintf("%s, %s backoff from %s", attempts, s.Backoff.Shape, s.Backoff.Base)
	if s.Timeout > 0 {
		out += fmt.Sprintf(", %s per attempt", s.Timeout)
	}
	if s.Budget != nil {
		out += ", " + s.Budget.Kind + " budget"
	}
	return out
}
