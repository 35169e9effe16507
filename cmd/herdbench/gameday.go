package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/control"
	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/internal/netguard"
	"github.com/herdbench/herdbench/internal/safefile"
	"github.com/herdbench/herdbench/internal/secret"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/telemetry"
	"github.com/spf13/pflag"
)

// gameDayFlags are the scenario command's flags for external targets, live
// metrics and a chaos proxy's clock.
type gameDayFlags struct {
	target       string
	allowRemote  bool
	metricsAddr  string
	metricsToken string // --metrics-token-file
	chaosControl string
	tokenFile    string
	otlp         otlpFlags
	ui           string
	uiTokenFile  string
	headers      []string
	headerFile   string
}

// live names the live outputs set, which watch a real run as it goes.
func (g *gameDayFlags) live() []string {
	var out []string
	for _, x := range []struct {
		set  bool
		flag string
	}{{g.metricsAddr != "", "--metrics-addr"}, {g.otlp.url != "", "--otlp"}, {g.ui != "", "--ui"}} {
		if x.set {
			out = append(out, x.flag)
		}
	}
	return out
}

func (g *gameDayFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&g.target, "target", "", "send the swarm to this URL instead of embedded targets (overrides target.url); the chaos plan is then not applied by this command")
	fs.BoolVar(&g.allowRemote, "allow-remote", false, "allow a --target, --chaos-control, --metrics-addr or --otlp off loopback (127.0.0.0/8, ::1), decided from the addresses the host resolves to")
	fs.StringVar(&g.metricsAddr, "metrics-addr", "", "serve live Prometheus metrics of the cohorts at http://ADDR/metrics while the run lasts, e.g. 127.0.0.1:9100; off loopback needs --allow-remote and a token (--metrics-token-file)")
	fs.StringVar(&g.metricsToken, "metrics-token-file", "", "file holding the token --metrics-addr asks for (Authorization: Bearer TOKEN; default: $"+tokenEnv+", if set); required for a --metrics-addr off loopback")
	fs.StringVar(&g.chaosControl, "chaos-control", "", "control URL of a herdbench proxy or target (its --control-addr, e.g. http://127.0.0.1:8091): its chaos plan is started at the run's t = 0")
	fs.StringVar(&g.tokenFile, "chaos-control-token-file", "", "file holding the --chaos-control API's token (default: $"+tokenEnv+", if set)")
	g.otlp.add(fs, "the cohorts' counters and attempt latency")
	fs.StringVar(&g.ui, "ui", "", uiHelp+" (--ui-token-file)")
	fs.StringVar(&g.uiTokenFile, "ui-token-file", "", "file holding the token the --ui page asks for (default: $"+tokenEnv+", if set); required for a --ui off loopback")
	fs.StringArrayVar(&g.headers, "header", nil, "add this header to every request, e.g. --header 'Authorization: Bearer ...' (repeatable); its value is redacted from the results")
	fs.StringVar(&g.headerFile, "header-file", "", "add the headers of this file (one 'Name: value' a line) to every request; their values are redacted from the results")
}

// requestHeaders reads --header and --header-file. Their values are sent
// as written, braces included. An error never quotes a value: it may be
// a secret.
func (g *gameDayFlags) requestHeaders() ([]clients.Header, error) {
	var out []clients.Header
	add := func(where, line string) error {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return fmt.Errorf("%s: write a header as 'Name: value'", where)
		}
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !scenarios.ValidHeaderName(name) { // never quoted: the line may be a secret
			return fmt.Errorf("%s: the header's name is empty or holds a character a header name may not; names are letters, digits and !#$%%&'*+-.^_`|~", where)
		}
		if msg := scenarios.HeaderProblem(name, value); msg != "" {
			return fmt.Errorf("%s: %s", where, msg)
		}
		// Sent as written: a secret holds no placeholders.
		out = append(out, clients.Header{Name: name, Value: strings.ReplaceAll(value, "{", "{{")})
		return nil
	}
	for i, h := range g.headers {
		if err := add(fmt.Sprintf("--header (the %s)", ordinal(i+1)), h); err != nil {
			return nil, err
		}
	}
	if g.headerFile != "" {
		// The user's own file, anywhere (safefile's rule for a flag's
		// file): regular and bounded, so a FIFO or /dev/zero is refused
		// at once rather than waited on or read without end.
		data, err := safefile.ReadPath(g.headerFile, maxHeaderFile)
		if err != nil {
			return nil, fmt.Errorf("--header-file %v", err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSuffix(line, "\r")
			if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			if err := add(fmt.Sprintf("--header-file %s line %d", g.headerFile, i+1), line); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// maxHeaderFile is the most read of a --header-file: headers, one a line.
const maxHeaderFile = 1 << 20

// ordinal writes n as 1st, 2nd, 3rd, 4th, ...
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

// gameDay is what the flags set up around a run.
type gameDay struct {
	flags    *gameDayFlags
	control  *control.Client     // nil without --chaos-control
	swarm    *telemetry.Swarm    // nil without --metrics-addr or --otlp
	exporter *telemetry.Exporter // nil without --otlp
	metrics  *http.Server
	served   chan struct{}
	ui       *uiServer            // nil without --ui
	uiSource *swarmSource         // --ui's source
	clock    *results.ClockOffset // a shard's clock against the control API's; nil if not measured
}

// prepare checks and sets up everything before any traffic: the target's
// address, the live metrics listener, the chaos control. A non-zero code
// means stop with it.
func (g *gameDayFlags) prepare(ctx context.Context, plan *scenarios.Plan, stderr io.Writer) (*gameDay, int) {
	gd := &gameDay{flags: g}
	if plan.TargetURL != "" {
		if err := engine.CheckTarget(plan.TargetURL, plan.AllowRemote); err != nil {
			fmt.Fprintf(stderr, "herdbench scenario: %v\nNothing was sent.\n", err)
			return nil, exitUsage
		}
	}
	if g.chaosControl != "" {
		cc, err := newChaosControl(ctx, g.chaosControl, g.tokenFile, netguard.Guard{AllowRemote: g.allowRemote})
		if err != nil {
			fmt.Fprintf(stderr, "herdbench scenario: --chaos-control: %v\nNothing was sent.\n", err)
			return nil, exitUsage
		}
		if _, err := cc.Status(ctx); err != nil {
			fmt.Fprintf(stderr, "herdbench scenario: --chaos-control: %v\nStart the proxy or target first (herdbench proxy --hold ...), or drop --chaos-control.\n", err)
			return nil, exitUsage
		}
		gd.control = cc
	}
	if code := g.otlp.check("scenario", g.allowRemote, stderr); code != exitOK {
		return nil, code
	}
	var metricsToken string
	if g.metricsAddr != "" {
		tok, _, err := loadToken("", g.metricsToken, "", "--metrics-token-file")
		if err == nil {
			err = checkServed("--metrics-addr", g.metricsAddr, g.allowRemote, tok, "watch the run's live metrics", "--metrics-token-file FILE", "send \"Authorization: Bearer TOKEN\" (Prometheus: authorization: {credentials_file: FILE})")
		}
		if err != nil {
			fmt.Fprintf(stderr, "herdbench scenario: %v\n", err)
			return nil, exitUsage
		}
		metricsToken = tok
	}
	if g.metricsAddr != "" || g.otlp.url != "" {
		exp, code := g.otlp.start(ctx, "scenario", g.allowRemote, stderr)
		if code != exitOK {
			return nil, code
		}
		sw, err := telemetry.NewSwarm(exp)
		if err != nil {
			shutdownOTLP(exp, "scenario", stderr)
			fmt.Fprintf(stderr, "herdbench scenario: --otlp: %v\n", err)
			return nil, exitFailed
		}
		gd.swarm, gd.exporter = sw, exp
	}
	if g.metricsAddr != "" {
		ln, err := netguard.Guard{AllowRemote: g.allowRemote}.Listen("tcp", g.metricsAddr)
		if err != nil {
			shutdownOTLP(gd.exporter, "scenario", stderr)
			fmt.Fprintf(stderr, "herdbench scenario: --metrics-addr: %v\n", err)
			return nil, exitUsage
		}
		limits := netguard.ControlLimits()
		gd.metrics = limits.Server(metricsHandler(g.metricsAddr, ln.Addr(), metricsToken, telemetry.Handler(gd.swarm.Collectors()...)))
		gd.served = make(chan struct{})
		go func() {
			defer close(gd.served)
			_ = limits.Serve(gd.metrics, ln)
		}()
		fmt.Fprintf(stderr, "herdbench: live metrics on http://%s/metrics\n", ln.Addr())
	}
	if g.ui != "" {
		tok, _, err := loadToken("", g.uiTokenFile, "", "--ui-token-file")
		if err == nil {
			err = checkUI(g.ui, g.allowRemote, tok)
		}
		if err != nil {
			gd.Close(stderr)
			fmt.Fprintf(stderr, "herdbench scenario: %v\n", err)
			return nil, exitUsage
		}
		gd.uiSource = &swarmSource{}
		gd.ui, err = startUI(uiConfig{addr: g.ui, allowRemote: g.allowRemote, token: tok, role: "scenario", title: plan.Name, source: gd.uiSource.sample, herd: gd.uiSource.herd}, stderr)
		if err != nil {
			gd.Close(stderr)
			fmt.Fprintf(stderr, "herdbench scenario: %v\n", err)
			return nil, exitUsage
		}
	}
	return gd, exitOK
}

// metricsHandler serves GET /metrics of --metrics-addr, given as addr and
// bound to bound, behind the control API's guard (control.Guard): a Host
// that names the address (no DNS rebinding), no other site's Origin, and
// the token when one is set.
func metricsHandler(addr string, bound net.Addr, token string, metrics http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	return control.Guard(controlAccess(addr, bound, token), mux)
}

// started is called once the run has started (before its t = 0): it gives
// the live metrics their run and starts the chaos proxy's plan at t = 0.
func (gd *gameDay) started(ctx context.Context, r *engine.Run) error {
	if gd.swarm != nil {
		gd.swarm.Set(r)
	}
	if gd.uiSource != nil {
		gd.uiSource.set(r)
	}
	if gd.control != nil {
		if _, err := gd.control.Start(ctx, r.Origin, r.Plan.Duration); err != nil {
			return fmt.Errorf("--chaos-control: %w", err)
		}
	}
	return nil
}

// observe is the engine's Options.Observe: the live latency histograms'
// observers, or nil without live metrics.
func (gd *gameDay) observe() func(cohort string) results.Observer {
	if gd == nil || gd.swarm == nil {
		return nil
	}
	return gd.swarm.Cohort
}

// Close stops the live page and the live metrics, and sends the last OTLP export.
func (gd *gameDay) Close(stderr io.Writer) {
	if gd == nil {
		return
	}
	shutdownOTLP(gd.exporter, "scenario", stderr)
	gd.ui.Close()
	if gd.metrics == nil {
		return
	}
	_ = gd.metrics.Close()
	<-gd.served
}

// externalNote says what an external target means for the chaos plan and
// for the cohorts.
func externalNote(w io.Writer, plan *scenarios.Plan, g *gameDayFlags) {
	if plan.TargetURL == "" {
		return
	}
	fmt.Fprintf(w, "herdbench: target %s (external): herdbench does not inject faults into it", secret.URL(plan.TargetURL))
	switch {
	case plan.Chaos == nil || len(plan.Chaos.Faults()) == 0:
		fmt.Fprintln(w, ".")
	case g.chaosControl != "":
		fmt.Fprintf(w, "; the proxy or target at %s applies the chaos plan, started at the run's t = 0.\n", g.chaosControl)
	default:
		fmt.Fprintln(w, "; the scenario's faults are recorded as the expected times only. To apply them, put 'herdbench proxy --scenario FILE --hold' in front of the service and pass --chaos-control.")
	}
	if n := len(plan.Strategies); n > 1 {
		all := fmt.Sprintf("all %d", n)
		if n == 2 {
			all = "both"
		}
		fmt.Fprintf(w, "herdbench: note: %s cohorts send to this one service at once and share its capacity; for a fair comparison run one at a time (--strategies NAME).\n", all)
	}
}

// newChaosControl returns the client of --chaos-control's API, with the
// token from --chaos-control-token-file or the environment.
func newChaosControl(ctx context.Context, raw, tokenFile string, g netguard.Guard) (*control.Client, error) {
	tok, _, err := loadToken("", tokenFile, "", "--chaos-control-token-file")
	if err != nil {
		return nil, err
	}
	c, err := control.NewClient(ctx, raw, control.ClientOptions{Token: tok, Guard: g})
	if errors.Is(err, netguard.ErrRemote) {
		return nil, fmt.Errorf("%w: pass --allow-remote", err)
	}
	return c, err
}
