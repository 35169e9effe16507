package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/herdbench/herdbench/internal/netguard"
	"github.com/herdbench/herdbench/internal/secret"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/exemplar"
	"go.opentelemetry.io/otel/sdk/resource"
)

// DefaultOTLPInterval is how often an OTLP export sends, by default: short,
// so that a collector sees the retry waves, which last seconds.
const DefaultOTLPInterval = time.Second

// OTLPPath is the path metrics are posted to when the --otlp URL names
// none: the OTLP/HTTP default.
const OTLPPath = "/v1/metrics"

// OTLPOptions say where and how an OTLP export sends.
type OTLPOptions struct {
	// URL is the collector's OTLP/HTTP endpoint, e.g.
	// http://127.0.0.1:4318 (then OTLPPath) or a URL with its own path.
	URL string
	// AllowRemote lets URL be off loopback; otherwise its host must
	// resolve to loopback addresses only, checked again at every dial.
	AllowRemote bool
	// Interval is the export period; DefaultOTLPInterval when 0.
	Interval time.Duration
	// Service is the resource's service.name (herdbench-scenario,
	// herdbench-target, herdbench-proxy); Version its service.version.
	Service, Version string
}

// Exporter sends a process's OpenTelemetry metrics over OTLP/HTTP
// (protobuf) at a fixed interval, and once more when shut down.
type Exporter struct {
	provider  *sdkmetric.MeterProvider
	meter     metric.Meter
	transport *http.Transport
	producer  *producer // the latency histograms (expo.go)
}

// scopeName is the instrumentation scope of every herdbench instrument.
const scopeName = "github.com/herdbench/herdbench/telemetry"

// histogram returns a new latency histogram of the export.
func (e *Exporter) histogram(name, description, unit string) *expoHistogram {
	h := newExpoHistogram(name, description, unit)
	e.producer.register(h)
	return h
}

// ErrRemoteOTLP is returned for an --otlp URL off loopback without
// AllowRemote; it wraps netguard.ErrRemote.
var ErrRemoteOTLP = errors.New("the OTLP collector is off loopback")

// CheckOTLPURL checks an --otlp URL: http or https, a host, and, unless
// allowRemote, a host that resolves to loopback addresses only.
func CheckOTLPURL(ctx context.Context, raw string, allowRemote bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--otlp %q: write the collector's OTLP/HTTP URL, e.g. http://127.0.0.1:4318 (metrics are posted to %s unless the URL has a path)", secret.URL(raw), OTLPPath)
	}
	g := netguard.Guard{AllowRemote: allowRemote}
	if _, err := g.Check(ctx, u.Hostname()); err != nil {
		if errors.Is(err, netguard.ErrRemote) {
			return nil, fmt.Errorf("--otlp %s: %w (%w): use a collector on 127.0.0.1, or pass --allow-remote", secret.URL(raw), ErrRemoteOTLP, err)
		}
		return nil, fmt.Errorf("--otlp %s: %w", secret.URL(raw), err)
	}
	return u, nil
}

// StartOTLP checks o.URL and starts exporting to it. Nothing is sent
// before the first interval ends. Latency histograms are exponential
// (base-2) histograms (expo.go); exemplars are off.
func StartOTLP(ctx context.Context, o OTLPOptions) (*Exporter, error) {
	u, err := CheckOTLPURL(ctx, o.URL, o.AllowRemote)
	if err != nil {
		return nil, err
	}
	if strings.Trim(u.Path, "/") == "" {
		u.Path = OTLPPath
	}
	interval := o.Interval
	if interval <= 0 {
		interval = DefaultOTLPInterval
	}
	g := netguard.Guard{AllowRemote: o.AllowRemote}
	// The interlock again at every dial; no proxy from the environment.
	tr := &http.Transport{DialContext: g.DialContext, MaxIdleConns: 2, IdleConnTimeout: 30 * time.Second}
	client := &http.Client{Transport: tr}
	exp, err := otlpmetrichttp.New(ctx,
		otlpmetrichttp.WithEndpointURL(u.String()),
		otlpmetrichttp.WithHTTPClient(client),
		otlpmetrichttp.WithTimeout(max(interval, 2*time.Second)),
		// A send that failed is not sent again: the next interval's
		// cumulative figures replace it.
		otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: false}),
	)
	if err != nil {
		return nil, fmt.Errorf("--otlp %s: %w", secret.URL(o.URL), secret.Error(err))
	}
	res := resource.NewSchemaless(
		attribute.String("service.name", o.Service),
		attribute.String("service.version", o.Version),
	)
	prod := &producer{}
	mp := sdkmetric.NewMeterProvider(
		sdkmetric.WithResource(res),
		sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, sdkmetric.WithInterval(interval), sdkmetric.WithProducer(prod))),
		sdkmetric.WithView(exponentialView()),
		sdkmetric.WithExemplarFilter(exemplar.AlwaysOffFilter),
	)
	return &Exporter{provider: mp, meter: mp.Meter(scopeName), transport: tr, producer: prod}, nil
}

// exponentialView makes every histogram an exponential (base-2) one, at
// most 160 buckets: the scale adapts to the range recorded (scale 3 or
// finer for latencies within a factor of about 1,000 of each other).
func exponentialView() sdkmetric.View {
	return sdkmetric.NewView(
		sdkmetric.Instrument{Kind: sdkmetric.InstrumentKindHistogram},
		sdkmetric.Stream{Aggregation: sdkmetric.AggregationBase2ExponentialHistogram{MaxSize: 160, MaxScale: 20}},
	)
}

// Shutdown sends what was recorded since the last export and stops: the
// end of a run, or Ctrl-C. It waits at most until ctx ends.
func (e *Exporter) Shutdown(ctx context.Context) error {
	if e == nil {
		return nil
	}
	err := e.provider.Shutdown(ctx)
	e.transport.CloseIdleConnections()
	return err
}
