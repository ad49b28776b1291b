package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// Options say which exporters to build.
type Options struct {
	// Prometheus builds a meter provider whose metrics Providers.Metrics
	// serves in the Prometheus text format.
	Prometheus bool
	// OTLP exports spans over OTLP/gRPC. OTLPEndpoint is the collector's
	// URL (http://host:4317 for plaintext); empty takes the standard
	// OTEL_EXPORTER_OTLP_ENDPOINT / _TRACES_ENDPOINT variables.
	OTLP         bool
	OTLPEndpoint string
	Version      string
}

// Providers are the tracer and meter providers toold records through:
// noop ones for what is not configured, so that an unconfigured toold
// pays nothing for its instrumentation.
type Providers struct {
	Tracer trace.TracerProvider
	Meter  metric.MeterProvider
	// Metrics serves /metrics; nil without Prometheus.
	Metrics  http.Handler
	shutdown []func(context.Context) error
}

// NoProviders are noop providers: nothing is recorded.
func NoProviders() *Providers {
	return &Providers{Tracer: tracenoop.NewTracerProvider(), Meter: metricnoop.NewMeterProvider()}
}

// NewProviders builds the providers opts ask for.
func NewProviders(ctx context.Context, opts Options) (*Providers, error) {
	p := NoProviders()
	if !opts.Prometheus && !opts.OTLP {
		return p, nil
	}
	// The environment (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) wins
	// over the defaults: detectors applied later override earlier ones.
	res, err := resource.New(ctx,
		resource.WithTelemetrySDK(),
		resource.WithAttributes(attribute.String("service.name", "toold"), attribute.String("service.version", opts.Version)),
		resource.WithFromEnv(),
	)
	if err != nil {
		return nil, fmt.Errorf("telemetry resource: %w", err)
	}
	if opts.Prometheus {
		reg := prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		exp, err := otelprom.New(otelprom.WithRegisterer(reg))
		if err != nil {
			return nil, fmt.Errorf("prometheus exporter: %w", err)
		}
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp), sdkmetric.WithResource(res))
		p.Meter = mp
		p.Metrics = promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
		p.shutdown = append(p.shutdown, mp.Shutdown)
	}
	if opts.OTLP {
		var eo []otlptracegrpc.Option
		if opts.OTLPEndpoint != "" {
			eo = append(eo, otlptracegrpc.WithEndpointURL(opts.OTLPEndpoint))
		}
		// New does not dial: an unreachable collector costs dropped
		// spans, never a failed start.
		exp, err := otlptracegrpc.New(ctx, eo...)
		if err != nil {
			p.Shutdown(ctx)
			return nil, fmt.Errorf("OTLP trace exporter: %w", err)
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		p.Tracer = tp
		p.shutdown = append(p.shutdown, tp.Shutdown)
	}
	return p, nil
}

// Shutdown flushes what is buffered (spans not yet exported) and stops
// the exporters.
func (p *Providers) Shutdown(ctx context.Context) error {
	var errs []error
	for i := len(p.shutdown) - 1; i >= 0; i-- {
		errs = append(errs, p.shutdown[i](ctx))
	}
	p.shutdown = nil
	return errors.Join(errs...)
}
