package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/herdbench/herdbench/target"
	"github.com/herdbench/herdbench/telemetry"
	"github.com/spf13/pflag"
	"go.opentelemetry.io/otel"
)

// otlpFlags are the --otlp flags of the scenario, target and proxy
// commands.
type otlpFlags struct {
	url      string
	interval time.Duration
}

func (o *otlpFlags) add(fs *pflag.FlagSet, what string) {
	fs.StringVar(&o.url, "otlp", "", "also export "+what+" as OpenTelemetry metrics to this OTLP/HTTP collector, e.g. http://127.0.0.1:4318 (posted to "+telemetry.OTLPPath+" unless the URL has a path); off loopback needs --allow-remote")
	fs.DurationVar(&o.interval, "otlp-interval", telemetry.DefaultOTLPInterval, "how often --otlp exports; the last export is at the end (or at Ctrl-C)")
}

// minOTLPInterval keeps an export from costing more than the run.
const minOTLPInterval = 100 * time.Millisecond

// check refuses a bad --otlp URL or interval before anything starts.
func (o *otlpFlags) check(role string, allowRemote bool, stderr io.Writer) int {
	if o.url == "" {
		return exitOK
	}
	if o.interval < minOTLPInterval {
		fmt.Fprintf(stderr, "herdbench %s: --otlp-interval %s: export at most every %s, e.g. --otlp-interval 1s\n", role, o.interval, minOTLPInterval)
		return exitUsage
	}
	if _, err := telemetry.CheckOTLPURL(context.Background(), o.url, allowRemote); err != nil {
		fmt.Fprintf(stderr, "herdbench %s: %v\n", role, err)
		return exitUsage
	}
	return exitOK
}

// start starts the export, or returns nil without --otlp. Export errors
// are logged on stderr, at most one every 10 s.
func (o *otlpFlags) start(ctx context.Context, role string, allowRemote bool, stderr io.Writer) (*telemetry.Exporter, int) {
	if o.url == "" {
		return nil, exitOK
	}
	var mu sync.Mutex
	var last time.Time
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(last) >= 10*time.Second {
			last = time.Now()
			fmt.Fprintf(stderr, "herdbench %s: --otlp: %v\n", role, err)
		}
	}))
	exp, err := telemetry.StartOTLP(ctx, telemetry.OTLPOptions{
		URL: o.url, AllowRemote: allowRemote, Interval: o.interval,
		Service: "herdbench-" + role, Version: herdbenchVersion(),
	})
	if err != nil {
		fmt.Fprintf(stderr, "herdbench %s: %v\n", role, err)
		return nil, exitUsage
	}
	return exp, exitOK
}

// shutdownOTLP sends the last export, waiting at most 5 s for the
// collector (whatever ctx the run had: a Ctrl-C still flushes).
func shutdownOTLP(exp *telemetry.Exporter, role string, stderr io.Writer) {
	if exp == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := exp.Shutdown(ctx); err != nil {
		fmt.Fprintf(stderr, "herdbench %s: --otlp: the last export: %v\n", role, err)
	}
}

// observers tells each of its observers, in order, what a server sees.
type observers []target.Observer

func (os observers) PlanStarted(t0 time.Time) {
	for _, o := range os {
		o.PlanStarted(t0)
	}
}

func (os observers) Observe(ob target.Observation) {
	for _, o := range os {
		o.Observe(ob)
	}
}

// serverObserver is the server's observer: the recording's, if any, and
// the latency export's.
func serverObserver(rec target.Observer, lat *telemetry.Server) target.Observer {
	if rec == nil {
		return lat
	}
	return observers{rec, lat}
}
