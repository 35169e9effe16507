package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/herdbench/herdbench/engine"
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
	chaosControl string
}

func (g *gameDayFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&g.target, "target", "", "send the swarm to this URL instead of embedded targets (overrides target.url); the chaos plan is then not applied by this command")
	fs.BoolVar(&g.allowRemote, "allow-remote", false, "allow a target that is not on loopback (127.0.0.0/8, ::1, localhost)")
	fs.StringVar(&g.metricsAddr, "metrics-addr", "", "serve live Prometheus metrics of the cohorts at http://ADDR/metrics while the run lasts, e.g. 127.0.0.1:9100")
	fs.StringVar(&g.chaosControl, "chaos-control", "", "control URL of a herdbench proxy or target (its --control-addr, e.g. http://127.0.0.1:8091): its chaos plan is started at the run's t = 0")
}

// gameDay is what the flags set up around a run.
type gameDay struct {
	flags     *gameDayFlags
	collector *telemetry.SwarmCollector
	metrics   *http.Server
	served    chan struct{}
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
		if err := chaosControlStatus(ctx, g.chaosControl); err != nil {
			fmt.Fprintf(stderr, "herdbench scenario: --chaos-control: %v\nStart the proxy or target first (herdbench proxy --hold ...), or drop --chaos-control.\n", err)
			return nil, exitUsage
		}
	}
	if g.metricsAddr != "" {
		ln, err := net.Listen("tcp", g.metricsAddr)
		if err != nil {
			fmt.Fprintf(stderr, "herdbench scenario: --metrics-addr: %v\n", err)
			return nil, exitUsage
		}
		gd.collector = telemetry.NewSwarmCollector()
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", telemetry.Handler(gd.collector))
		gd.metrics = &http.Server{Handler: mux, ErrorLog: log.New(io.Discard, "", 0), ReadHeaderTimeout: 10 * time.Second}
		gd.served = make(chan struct{})
		go func() {
			defer close(gd.served)
			_ = gd.metrics.Serve(ln)
		}()
		fmt.Fprintf(stderr, "herdbench: live metrics on http://%s/metrics\n", ln.Addr())
	}
	return gd, exitOK
}

// started is called once the run has started (before its t = 0): it gives
// the live metrics their run and starts the chaos proxy's plan at t = 0.
func (gd *gameDay) started(ctx context.Context, r *engine.Run) error {
	if gd.collector != nil {
		gd.collector.Set(r)
	}
	if gd.flags.chaosControl != "" {
		if err := chaosControlStart(ctx, gd.flags.chaosControl, r.Origin); err != nil {
			return fmt.Errorf("--chaos-control: %w", err)
		}
	}
	return nil
}

// Close stops the live metrics.
func (gd *gameDay) Close() {
	if gd == nil || gd.metrics == nil {
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
	fmt.Fprintf(w, "herdbench: target %s (external): herdbench does not inject faults into it", plan.TargetURL)
	switch {
	case plan.Chaos == nil || len(plan.Chaos.Faults()) == 0:
		fmt.Fprintln(w, ".")
	case g.chaosControl != "":
		fmt.Fprintf(w, "; the proxy or target at %s applies the chaos plan, started at the run's t = 0.\n", g.chaosControl)
	default:
		fmt.Fprintln(w, "; the scenario's faults are recorded as the expected times only. To apply them, put 'herdbench proxy --scenario FILE --hold' in front of the service and pass --chaos-control.")
	}
	if n := len(plan.Strategies); n > 1 {
		fmt.Fprintf(w, "herdbench: note: all %d cohorts send to this one service at once and share its capacity; for a fair comparison run one at a time (--strategies NAME).\n", n)
	}
}

// exitCodeOf maps a finished run to the exit code: interrupted beats
// failed thresholds.
func exitCodeOf(summaries []*results.Summary, stderr io.Writer) int {
	failed, checked := 0, 0
	for _, s := range summaries {
		if s.Partial {
			return exitSignal
		}
		failed += results.ThresholdsFailed(s.Thresholds)
		checked += len(s.Thresholds)
	}
	if failed > 0 {
		where := ""
		if len(summaries) > 1 {
			where = fmt.Sprintf(" over the %d points of the sweep", len(summaries))
		}
		fmt.Fprintf(stderr, "herdbench: %d of %d threshold checks failed%s (exit code %d)\n", failed, checked, where, exitThresholds)
		return exitThresholds
	}
	return exitOK
}

var controlClient = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}

func chaosControlStatus(ctx context.Context, base string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/control/status", nil)
	if err != nil {
		return err
	}
	return controlCall(req)
}

func chaosControlStart(ctx context.Context, base string, at time.Time) error {
	body, _ := json.Marshal(map[string]time.Time{"at": at.UTC()})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(base, "/")+"/control/start", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	return controlCall(req)
}

func controlCall(req *http.Request) error {
	resp, err := controlClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(b, &e) == nil && e.Error != "" {
			return errors.New(req.URL.String() + ": " + e.Error)
		}
		return fmt.Errorf("%s: %s (is this a herdbench proxy or target control address?)", req.URL, resp.Status)
	}
	return nil
}
