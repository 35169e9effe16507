package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/control"
	"github.com/herdbench/herdbench/internal/netguard"
	"github.com/herdbench/herdbench/internal/wire"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/target"
	"github.com/herdbench/herdbench/telemetry"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"
)

// serveFlags are the flags of the target and proxy commands.
type serveFlags struct {
	listen      string
	controlAddr string
	scenario    string
	tier        string
	parsed      *scenarios.Scenario // --scenario, once loaded
	builtin     string              // builtinNote of --scenario: a built-in ran for a file that is not there
	hold        bool
	seed        uint64
	exitAfter   time.Duration
	quiet       bool
	ui          string // --ui: the live page's address; "" for none

	maxConns         int
	allowRemote      bool
	controlToken     string
	controlTokenFile string
	token            string // the token in force, from a flag, a file or the environment

	// protocol is --protocol, "" for the scenario's.
	protocol string

	record recordFlags
	otlp   otlpFlags
	net    *serveNet // nil: the host's network
}

// protocolOf is what the server speaks: --protocol, else the scenario's.
func (f *serveFlags) protocolOf(role string, plan *scenarios.Plan) (wire.Protocol, error) {
	if f.protocol == "" {
		return plan.Protocol, nil
	}
	p, err := wire.Parse(f.protocol)
	if err != nil {
		return 0, fmt.Errorf("herdbench %s: --protocol: %v", role, err)
	}
	return p, nil
}

// serveNet is where a target or proxy opens its sockets and reaches its
// upstream. Nil is the host's network behind the loopback interlock;
// tests give an in-memory one, to run the command inside a synctest
// bubble.
type serveNet struct {
	listen   func(network, addr string) (net.Listener, error)
	upstream http.RoundTripper
}

func (f *serveFlags) add(fs *pflag.FlagSet, listen, controlAddr string, maxConns int, maxConnsHelp string) {
	fs.StringVar(&f.listen, "listen", listen, "address to serve the traffic on, host:port (port 0 for a free one); off loopback (0.0.0.0:PORT, every interface) needs --allow-remote")
	fs.StringVar(&f.controlAddr, "control-addr", controlAddr, "address of the control API and /metrics, apart from the traffic; off loopback needs --allow-remote and a control token")
	fs.StringVar(&f.scenario, "scenario", "", "scenario file or built-in name whose chaos plan to apply (default: none; faults only by POST /control/inject)")
	fs.StringVar(&f.tier, "tier", "", "in a scenario that chains tiers (tiers:), the tier to play: its capacity model and its faults (default: the bottom tier)")
	fs.BoolVar(&f.hold, "hold", false, "do not start the chaos plan until POST /control/start (or herdbench scenario --chaos-control)")
	fs.Uint64Var(&f.seed, "seed", 0, "random seed of the fault draws (default: the scenario's, or a random one, printed at the start)")
	fs.DurationVar(&f.exitAfter, "exit-after", 0, "stop by itself after this long, e.g. 10m (default: run until Ctrl-C)")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "log nothing but errors")
	fs.IntVar(&f.maxConns, "max-conns", maxConns, "client connections held at once on --listen; more wait in the kernel's backlog until one closes, so slow or idle ones cannot starve the control API "+maxConnsHelp)
	fs.BoolVar(&f.allowRemote, "allow-remote", false, "allow --listen and --control-addr off loopback (127.0.0.0/8, ::1), e.g. 0.0.0.0:PORT for other machines")
	fs.StringVar(&f.controlToken, "control-token", "", "bearer token every call to the control API and /metrics must carry (\"Authorization: Bearer TOKEN\"), at least 16 characters; required for a --control-addr off loopback. Visible in ps: prefer --control-token-file or $"+tokenEnv)
	fs.StringVar(&f.controlTokenFile, "control-token-file", "", "read the control token from this file (default: $"+tokenEnv+", if set)")
	fs.StringVar(&f.ui, "ui", "", uiHelp+" (the control token, when set)")
	fs.StringVar(&f.protocol, "protocol", "", "what to serve: http1 (HTTP/1.1); h2c (HTTP/2 with prior knowledge, and HTTP/1.1, on one cleartext port); h2 (TLS with a certificate made at start, never written to disk, ALPN h2 and http/1.1) (default: the scenario's protocol, else http1)")
	f.record.add(fs)
	f.otlp.add(fs, "the counters and the request latency")
}

// check refuses, before anything starts, addresses off loopback without
// --allow-remote and a control API off loopback without a token, and
// loads the token. A non-zero code means stop with it.
func (f *serveFlags) check(role string, stderr io.Writer) int {
	if f.maxConns < 1 {
		fmt.Fprintf(stderr, "herdbench %s: --max-conns %d: hold at least 1 connection\n", role, f.maxConns)
		return exitUsage
	}
	if _, err := checkAddr("--listen", f.listen, f.allowRemote); err != nil {
		fmt.Fprintf(stderr, "herdbench %s: %v\n", role, err)
		return exitUsage
	}
	remote, err := checkAddr("--control-addr", f.controlAddr, f.allowRemote)
	if err != nil {
		fmt.Fprintf(stderr, "herdbench %s: %v\n", role, err)
		return exitUsage
	}
	f.token, _, err = loadToken(f.controlToken, f.controlTokenFile, "--control-token", "--control-token-file")
	if err != nil {
		fmt.Fprintf(stderr, "herdbench %s: control token: %v\n", role, err)
		return exitUsage
	}
	if remote && f.token == "" {
		fmt.Fprintf(stderr, "herdbench %s: --control-addr %s is off loopback, where anyone who reaches it could stop or inject faults: give it a token with --control-token-file FILE or $%s (e.g. openssl rand -hex 16 > token), and send it as \"Authorization: Bearer TOKEN\"\n", role, f.controlAddr, tokenEnv)
		return exitUsage
	}
	if code := f.otlp.check(role, f.allowRemote, stderr); code != exitOK {
		return code
	}
	if f.ui != "" {
		if err := checkUI(f.ui, f.allowRemote, f.token); err != nil {
			fmt.Fprintf(stderr, "herdbench %s: %v\n", role, err)
			return exitUsage
		}
	}
	return f.record.check(role, stderr)
}

// logger returns the server's log: timestamped lines on stderr, nothing
// with --quiet.
func (f *serveFlags) logger(role string, stderr io.Writer) func(format string, args ...any) {
	return func(format string, args ...any) {
		if !f.quiet {
			fmt.Fprintln(stderr, logLine(time.Now(), role, fmt.Sprintf(format, args...)))
		}
	}
}

// logLine is one line of a server's log: the time, the role, the message.
func logLine(now time.Time, role, msg string) string {
	return now.Format("15:04:05.000") + " herdbench " + role + ": " + msg
}

// limits returns the traffic port's limits with --max-conns, for
// connections that cost perConn open files each.
func (f *serveFlags) limits(perConn int) netguard.Limits {
	l := netguard.TrafficLimits(perConn)
	l.MaxConns = f.maxConns
	return l
}

// listenFunc is how the traffic port is opened: on loopback only unless
// --allow-remote, checked on the address bound.
func (f *serveFlags) listenFunc() func(network, addr string) (net.Listener, error) {
	if f.net != nil {
		return f.net.listen
	}
	return netguard.Guard{AllowRemote: f.allowRemote}.Listen
}

// upstreamTransport is how the proxy reaches its upstream: nil for its own
// transport on the host's network.
func (f *serveFlags) upstreamTransport() http.RoundTripper {
	if f.net != nil {
		return f.net.upstream
	}
	return nil
}

// loadServerPlan reads --scenario for a target or proxy, once the other
// flags are checked; a nil plan with no error means no scenario.
func (f *serveFlags) loadServerPlan(fs *pflag.FlagSet) (*scenarios.Plan, error) {
	if fs.Changed("exit-after") && f.exitAfter <= 0 {
		return nil, fmt.Errorf("herdbench %s: --exit-after %s: give how long to serve, more than 0s (or leave it out to serve until Ctrl-C)", fs.Name(), f.exitAfter)
	}
	o := scenarios.Overrides{Server: true, Tier: f.tier}
	if fs.Changed("seed") {
		o.Seed = &f.seed
	}
	op, err := scenarios.Open(f.scenario, o)
	f.builtin = builtinNote(f.scenario, op)
	if errors.Is(err, scenarios.ErrNotFound) {
		return nil, fmt.Errorf("herdbench %s: --scenario: %w", fs.Name(), err)
	}
	if err != nil {
		return nil, err
	}
	f.parsed = op.Scenario
	if f.scenario != "" {
		// The run the plan times: what is in flight at its end was cut
		// short by it, not timed out (recording.Options.Run).
		f.record.run = op.Plans[0].Duration
	}
	return op.Plans[0], nil
}

// serve runs a started target or proxy with its control API until ctx
// ends or --exit-after passes (control.Serve); then, with a recording, it
// writes its results and returns their exit code.
func serve(ctx context.Context, role string, f *serveFlags, srv *target.Server, collectors []prometheus.Collector, exp *telemetry.Exporter, check func(chaos.Timed) error, closeServer func() error, rec *recorder, stdout, stderr io.Writer) int {
	defer shutdownOTLP(exp, role, stderr) // after the server closed: its last requests are in
	rec.keeper().Listening(srv)
	g := control.GameDay{
		API:  control.Options{Server: srv, Metrics: telemetry.Handler(collectors...), Check: check},
		Addr: f.controlAddr, Listen: f.listenFunc(),
		Access:    func(bound net.Addr) control.Access { return controlAccess(f.controlAddr, bound, f.token) },
		ExitAfter: f.exitAfter, Recording: rec.describe(), Close: closeServer, Logf: f.logger(role, stderr),
	}
	if rec != nil {
		g.API.Results = rec.results
		g.API.RunFor = rec.keeper().SetRun // a swarm's --chaos-control names its run's length
	}
	if f.ui != "" {
		g.UI = func(handler func(control.Access) http.Handler) (io.Closer, error) {
			var herd func() []float64
			if live := rec.keeper().Recording(); live != nil {
				herd = live.HerdSoFar
			}
			u, err := startUI(uiConfig{
				addr: f.ui, allowRemote: f.allowRemote, token: f.token, role: role, title: srv.Addr(),
				source: serverSource(srv, rec.keeper().Recording()), herd: herd, listen: f.listenFunc(), control: handler,
			}, stderr)
			if err != nil {
				return nil, err
			}
			return closer(u.Close), nil
		}
	}
	end, err := control.Serve(ctx, g)
	switch {
	case errors.Is(err, control.ErrControlListen):
		fmt.Fprintf(stderr, "herdbench %s: %v\nChoose another address with --control-addr.\n", role, err)
		return exitFailed
	case err != nil:
		fmt.Fprintf(stderr, "herdbench %s: %v\n", role, err)
		return exitFailed
	}
	code := exitOK
	if end.Stopped != nil {
		fmt.Fprintf(stderr, "herdbench %s: control API stopped: %v\n", role, end.Stopped)
		code = exitFailed
	} else if end.CloseErr != nil {
		fmt.Fprintf(stderr, "herdbench %s: %v\n", role, end.CloseErr)
	}
	if rc := rec.finish(stdout, stderr); code == exitOK {
		code = rc
	}
	return code
}

// closer is a Close without an error as an io.Closer.
type closer func()

func (c closer) Close() error { c(); return nil }

// protoText names a server's protocol after its URL: "" for HTTP/1.1.
func protoText(p wire.Protocol) string {
	if p == wire.HTTP1 {
		return ""
	}
	return " over " + p.String()
}
