package main

import (
	"context"
	"fmt"
	"io"

	"github.com/herdbench/herdbench/internal/netguard"
	"github.com/herdbench/herdbench/seeds"
	"github.com/herdbench/herdbench/target"
	"github.com/herdbench/herdbench/target/model"
	"github.com/herdbench/herdbench/telemetry"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"
)

const targetHelp = `Usage: herdbench target [--scenario NAME|FILE] [flags]

Runs herdbench's fault-injecting target on its own, for a swarm in another
process (herdbench scenario X --target http://ADDR/) or any other client:
the same capacity model (slots, queue, queue timeout, service time, cold
start) and chaos plan as the embedded target, read from the scenario's
target and chaos sections. Every request, on any path, is served by the
model: 200 "ok", or as the active faults say.

The chaos plan starts when the target starts, or with --hold when asked
(POST /control/start, or herdbench scenario --chaos-control). The control
API and the Prometheus metrics are on --control-addr, apart from the
traffic, so no path clashes and an outage never cuts off the controls:
  GET  /control/status    the plan's clock, faults, counters (JSON)
  POST /control/start     (re)start the plan now, or at {"at": "<RFC 3339 time>"},
                          for a run of {"duration": "12s"} (the recording's end)
  POST /control/stop      end every fault now
  POST /control/inject    a fault now: {"kind":"outage","mode":"503","for":"5s"}
  GET  /metrics           herdbench_target_* (docs/game-day.md lists them)
A POST needs "Content-Type: application/json"; a request whose Host is not
the control address, or whose Origin is another site, is refused (a web
page cannot drive the API); with a token (--control-token-file, or
$HERDBENCH_CONTROL_TOKEN) every call needs "Authorization: Bearer TOKEN".
--ui ADDR serves a live page (charts by outcome, the fault plan, start,
stop and inject buttons) behind the same checks and token.

In a scenario that chains tiers (tiers:), the target plays one of them,
the bottom one unless --tier names another: that tier's capacity model and
the faults aimed at it.

Examples:
  herdbench target --scenario outage --listen 127.0.0.1:8080
  herdbench target --scenario layers --tier service --listen 127.0.0.1:9000
  herdbench target --listen 127.0.0.1:9000 --control-addr 127.0.0.1:9001   # healthy, faults by hand
  curl -X POST 127.0.0.1:8081/control/inject -H 'Content-Type: application/json' -d '{"kind":"outage","mode":"reset","for":"3s"}'
  herdbench target --listen 0.0.0.0:8080 --control-addr 0.0.0.0:8081 --allow-remote --control-token-file token   # for other machines

It binds only the two addresses given, on loopback unless --allow-remote;
a control address off loopback also needs a token. Slow and idle
connections are cut off (headers within 10 s, idle for 5 minutes) and at
most --max-conns are held, so the control API answers whatever the traffic
port is sent.

It records every request it receives, like herdbench proxy (see its
--help): a results folder on POST /control/results, at --exit-after and on
Ctrl-C; --cohort-by and --attempt-header tell clients and retries apart,
--no-record turns it off. Ctrl-C stops it (exit 0, or 3 if a threshold
failed on the recording).

Flags:
`

func runTarget(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f serveFlags
	fs := pflag.NewFlagSet("target", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	f.add(fs, "127.0.0.1:8080", "127.0.0.1:8081", netguard.TrafficLimits(1).MaxConns,
		fmt.Sprintf("(default: what this process's %d open files allow, ulimit -n, after a reserve)", netguard.OpenFiles()))
	fs.SortFlags = false
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), targetHelp)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), "\nExit codes: 0 stopped; 1 could not start, or could not write the\nrecording's results; 2 bad usage or an invalid scenario; 3 a threshold\nfailed on the recorded traffic.\n")
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "herdbench target: unexpected argument %q; name the scenario with --scenario\n", fs.Arg(0))
		return exitUsage
	}
	if code := f.check("target", stderr); code != exitOK {
		return code
	}
	plan, err := f.loadServerPlan(fs)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	proto, err := f.protocolOf("target", plan)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	exp, code := f.otlp.start(ctx, "target", f.allowRemote, stderr)
	if code != exitOK {
		return code
	}
	lat := telemetry.NewServer("target", exp)
	rec := newRecorder("target", "", plan, &f.record, stderr, f.logger("target", stderr))
	srv, err := target.Listen(target.Options{
		Addr: f.listen, Config: plan.Target, Plan: plan.Chaos, Hold: f.hold, Listen: f.listenFunc(), Limits: f.limits(1),
		RNG: seeds.Stream(plan.Seed, seeds.Target), Observer: serverObserver(rec.observer(), lat), Protocol: proto,
	})
	if err != nil {
		shutdownOTLP(exp, "target", stderr)
		fmt.Fprintf(stderr, "herdbench target: %v\nChoose another address with --listen.\n", err)
		return exitFailed
	}
	collector := telemetry.NewTargetCollector(srv)
	if exp != nil {
		if err := telemetry.ExportServer(exp, collector); err != nil {
			_ = srv.Close()
			shutdownOTLP(exp, "target", stderr)
			fmt.Fprintf(stderr, "herdbench target: --otlp: %v\n", err)
			return exitFailed
		}
	}
	if f.builtin != "" {
		f.logger("target", stderr)("%s", f.builtin)
	}
	if !f.quiet {
		c := plan.Target
		cold := ""
		if c.ColdStart.Ramp > 0 {
			cold = fmt.Sprintf(", cold start from %.0f%% over %s", 100*c.ColdStart.From, c.ColdStart.Ramp)
		}
		url := srv.URL()
		if c.Protocol == model.GRPC {
			url = "grpc://" + srv.Addr()
		}
		f.logger("target", stderr)("serving %s%s (scenario %s%s: %d slots, queue %d, queue timeout %s, service time %s%s; seed %d)",
			url, protoText(proto), plan.Name, tierText(plan, f.tier), c.Concurrency, c.Queue, c.QueueTimeout, c.ServiceTime, cold, plan.Seed)
	}
	return serve(ctx, "target", &f, srv, []prometheus.Collector{collector, lat.Collector()}, exp, nil, srv.Close, rec, stdout, stderr)
}
