package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/toold/toold/internal/telemetry"
)

// telemetryConfig says where metrics and traces go.
type telemetryConfig struct {
	// MetricsListen serves Prometheus /metrics there; empty: no metrics.
	MetricsListen string
	// OTLPEndpoint exports spans there (--otlp-endpoint, else the standard
	// OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT).
	OTLPEndpoint string
	OTLP         bool
}

type telemetryFlags struct{ metrics, otlp *string }

func addTelemetryFlags(fs *flag.FlagSet) *telemetryFlags {
	return &telemetryFlags{
		metrics: fs.String("metrics-listen", "", "address of the Prometheus /metrics endpoint, e.g. :9464; empty: no metrics endpoint"),
		otlp:    fs.String("otlp-endpoint", "", "OTLP/gRPC collector URL for traces, e.g. http://otel-collector:4317; empty: the standard OTEL_EXPORTER_OTLP_ENDPOINT, if set"),
	}
}

func (f *telemetryFlags) config(getenv func(string) string) (telemetryConfig, error) {
	c := telemetryConfig{MetricsListen: *f.metrics, OTLPEndpoint: *f.otlp}
	if c.MetricsListen != "" {
		if _, _, err := net.SplitHostPort(c.MetricsListen); err != nil {
			return c, fmt.Errorf("--metrics-listen %q: %w", c.MetricsListen, err)
		}
	}
	if c.OTLPEndpoint != "" {
		u, err := url.Parse(c.OTLPEndpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c, fmt.Errorf("--otlp-endpoint %q: want an http:// or https:// URL", c.OTLPEndpoint)
		}
	}
	c.OTLP = c.OTLPEndpoint != "" || getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
	return c, nil
}

// startTelemetry builds the tracer and meter providers, which main hands
// to what records (the engine, the gRPC server, the hook runner's client
// connections: no package uses OTel's global providers), and serves
// /metrics. The returned stop flushes spans and closes the endpoint.
func startTelemetry(ctx context.Context, cfg telemetryConfig, log *slog.Logger) (*telemetry.Providers, func(), error) {
	p, err := telemetry.NewProviders(ctx, telemetry.Options{
		Prometheus: cfg.MetricsListen != "", OTLP: cfg.OTLP, OTLPEndpoint: cfg.OTLPEndpoint, Version: version,
	})
	if err != nil {
		return nil, nil, configError{err}
	}
	var srv *http.Server
	if cfg.MetricsListen != "" {
		lis, err := net.Listen("tcp", cfg.MetricsListen)
		if err != nil {
			p.Shutdown(ctx)
			return nil, nil, err
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", p.Metrics)
		srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := srv.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("metrics endpoint stopped", "error", err)
			}
		}()
		log.Info("metrics listening", "addr", lis.Addr().String())
	}
	if cfg.OTLP {
		log.Info("exporting traces over OTLP", "endpoint", cfg.OTLPEndpoint)
	}
	stop := func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if srv != nil {
			srv.Shutdown(sctx)
		}
		if err := p.Shutdown(sctx); err != nil {
			log.Warn("flushing telemetry", "error", err)
		}
	}
	return p, stop, nil
}

// logHandler adds trace_id and span_id to every log line of a traced
// request.
func logHandler(h slog.Handler) slog.Handler { return telemetry.LogHandler(h) }

// drainDelay waits after readiness turned NOT_SERVING and before the
// server stops taking new streams, so that endpoints (Kubernetes, load
// balancers) stop sending calls here first.
func drainDelay(d time.Duration, log *slog.Logger) {
	if d <= 0 {
		return
	}
	log.Info("draining: not ready, still accepting calls", "delay", d)
	time.Sleep(d)
}
