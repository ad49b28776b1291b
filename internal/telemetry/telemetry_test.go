package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func TestLogLinesCarryTheTraceID(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(LogHandler(slog.NewJSONHandler(&buf, nil))).With("component", "test")
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewInMemoryExporter()))
	ctx, span := tp.Tracer("test").Start(context.Background(), "Execute")
	log.InfoContext(ctx, "traced")
	log.Info("untraced")
	span.End()

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("log lines: %q", buf.String())
	}
	var traced, untraced map[string]any
	json.Unmarshal([]byte(lines[0]), &traced)
	json.Unmarshal([]byte(lines[1]), &untraced)
	if traced["trace_id"] != span.SpanContext().TraceID().String() || traced["span_id"] != span.SpanContext().SpanID().String() {
		t.Errorf("traced line = %v, want trace_id %s", traced, span.SpanContext().TraceID())
	}
	if traced["component"] != "test" {
		t.Errorf("attributes of With were lost: %v", traced)
	}
	if _, ok := untraced["trace_id"]; ok {
		t.Errorf("a line without a span has a trace_id: %v", untraced)
	}
}

func TestPrometheusEndpointServesTooldMetrics(t *testing.T) {
	ctx := context.Background()
	p, err := NewProviders(ctx, Options{Prometheus: true, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Shutdown(ctx)
	r := New(p.Tracer, p.Meter)
	r.Call(ctx, "Bash", "ok")
	r.Decision(ctx, "Bash", "deny", "policySettings")
	r.Hook(ctx, "PreToolUse", "ok", 20*time.Millisecond)
	r.StoreError(ctx, "finish_call")
	done := r.ProcessStarted(ctx, "bash")
	_, st := r.Start(ctx, StageTool, "Bash", "t1")
	st.End(ctx, "")

	rec := httptest.NewRecorder()
	p.Metrics.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		`toold_calls_total{otel_scope_name="github.com/toold/toold",otel_scope_schema_url="",otel_scope_version="",outcome="ok",tool="Bash"} 1`,
		`toold_decisions_total{behavior="deny"`,
		`toold_denials_total{otel_scope_name="github.com/toold/toold",otel_scope_schema_url="",otel_scope_version="",source="policySettings",tool="Bash"} 1`,
		`toold_hook_duration_seconds_count{event="PreToolUse"`,
		`toold_store_errors_total{op="finish_call"`,
		`toold_processes_running{kind="bash"`,
		`toold_stage_duration_seconds_count{`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	done()
	if t.Failed() {
		t.Log(body)
	}
}

func TestNilRecorderRecordsNothing(t *testing.T) {
	var r *Recorder
	ctx, st := r.Start(context.Background(), StagePolicy, "Read", "t1")
	st.SetAttributes(AttrExitCode.Int(1))
	st.End(ctx, "failed")
	r.Call(ctx, "Read", "ok")
	r.ProcessStarted(ctx, "bash")()
}

func TestNoopProvidersWhenNothingIsConfigured(t *testing.T) {
	p, err := NewProviders(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Metrics != nil {
		t.Error("a metrics handler without --metrics-listen")
	}
	r := New(p.Tracer, p.Meter)
	allocs := testing.AllocsPerRun(100, func() {
		ctx, st := r.Start(context.Background(), StageTool, "Read", "t1")
		st.End(ctx, "")
	})
	if allocs > 0 {
		t.Errorf("a stage on noop providers allocates %v times", allocs)
	}
}
