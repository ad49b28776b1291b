package exec

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/telemetry"
	"github.com/toold/toold/internal/tool"
)

type telemetryHarness struct {
	*harness
	spans     *tracetest.InMemoryExporter
	metrics   *sdkmetric.ManualReader
	tp        *sdktrace.TracerProvider
	decisions []policy.Decision
}

func newTelemetryHarness(t *testing.T, dec policy.Decider, tools ...tool.Tool) *telemetryHarness {
	t.Helper()
	th := &telemetryHarness{spans: tracetest.NewInMemoryExporter(), metrics: sdkmetric.NewManualReader()}
	th.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(th.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(th.metrics))
	reg, err := tool.NewRegistry(tools...)
	if err != nil {
		t.Fatal(err)
	}
	st := memstore.New()
	e, err := NewEngine(Config{Registry: reg, Store: st, Policy: dec, Telemetry: telemetry.New(th.tp, mp),
		OnDecision: func(_ context.Context, _ *Call, d policy.Decision) { th.decisions = append(th.decisions, d) }})
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	if err := st.CreateSession(context.Background(), &store.Session{ID: "s1", Workspace: dir, Cwd: dir, Mode: "default"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Shutdown(context.Background()) })
	th.harness = &harness{engine: e, store: st, id: "s1", dir: dir}
	return th
}

// execTraced runs a batch under a parent span, as the Execute RPC's.
func (th *telemetryHarness) execTraced(t *testing.T, reqs ...Request) (*recSink, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ctx, parent := th.tp.Tracer("test").Start(ctx, "Execute")
	sink := &recSink{}
	if err := th.engine.Execute(ctx, th.id, reqs, sink); err != nil {
		t.Fatalf("Execute: %v", err)
	}
	parent.End()
	return sink, parent.SpanContext().SpanID().String()
}

func spanAttr(s tracetest.SpanStub, k attribute.Key) (attribute.Value, bool) {
	for _, a := range s.Attributes {
		if a.Key == k {
			return a.Value, true
		}
	}
	return attribute.Value{}, false
}

func TestStageSpansAreChildrenOfTheRequestSpan(t *testing.T) {
	th := newTelemetryHarness(t, policy.WorkspaceOnly{}, &fakeTool{name: "Echo", safe: true})
	th.execTraced(t, call("a", "Echo", map[string]any{"text": "hi"}))
	stubs := th.spans.GetSpans()
	byName := map[string]tracetest.SpanStub{}
	var parentID string
	for _, s := range stubs {
		byName[s.Name] = s
		if s.Name == "Execute" {
			parentID = s.SpanContext.SpanID().String()
		}
	}
	for _, name := range []string{"toold.validate", "toold.policy", "toold.tool", "toold.persist"} {
		s, ok := byName[name]
		if !ok {
			t.Errorf("no %s span; got %v", name, names(stubs))
			continue
		}
		if got := s.Parent.SpanID().String(); got != parentID {
			t.Errorf("%s: parent %s, want the request span %s", name, got, parentID)
		}
		if v, _ := spanAttr(s, telemetry.AttrTool); v.AsString() != "Echo" {
			t.Errorf("%s: toold.tool = %q", name, v.AsString())
		}
	}
	pol := byName["toold.policy"]
	if v, _ := spanAttr(pol, telemetry.AttrBehavior); v.AsString() != "allow" {
		t.Errorf("policy span behavior = %q, want allow", v.AsString())
	}
	if len(th.decisions) != 1 || th.decisions[0].Behavior != policy.Allow {
		t.Errorf("OnDecision saw %+v, want one allow", th.decisions)
	}
}

func TestDenialIsOnTheSpanAndInTheMetrics(t *testing.T) {
	th := newTelemetryHarness(t, denyAll{}, &fakeTool{name: "Echo", safe: true})
	th.execTraced(t, call("a", "Echo", map[string]any{"text": "hi"}))
	var pol *tracetest.SpanStub
	for _, s := range th.spans.GetSpans() {
		if s.Name == "toold.policy" {
			pol = &s
		}
		if s.Name == "toold.tool" {
			t.Error("a denied call has a tool span")
		}
	}
	if pol == nil {
		t.Fatal("no policy span")
	}
	for k, want := range map[attribute.Key]string{telemetry.AttrBehavior: "deny", telemetry.AttrRule: "Fake", telemetry.AttrSource: "test"} {
		if v, _ := spanAttr(*pol, k); v.AsString() != want {
			t.Errorf("policy span %s = %q, want %q", k, v.AsString(), want)
		}
	}
	m := collect(t, th.metrics)
	if n := counter(m, "toold.decisions", "behavior", "deny"); n != 1 {
		t.Errorf("toold.decisions{behavior=deny} = %d, want 1", n)
	}
	if n := counter(m, "toold.denials", "source", "test"); n != 1 {
		t.Errorf("toold.denials{source=test} = %d, want 1", n)
	}
	if n := counter(m, "toold.calls", "outcome", "permission_denied"); n != 1 {
		t.Errorf("toold.calls{outcome=permission_denied} = %d, want 1", n)
	}
}

func TestCallMetricsByOutcomeAndStageLatency(t *testing.T) {
	th := newTelemetryHarness(t, policy.WorkspaceOnly{}, &fakeTool{name: "Echo", safe: true})
	th.execTraced(t,
		call("a", "Echo", map[string]any{"text": "hi"}),
		call("b", "Nope", map[string]any{}),
	)
	m := collect(t, th.metrics)
	if n := counter(m, "toold.calls", "outcome", "ok"); n != 1 {
		t.Errorf("toold.calls{outcome=ok} = %d, want 1", n)
	}
	if n := counter(m, "toold.calls", "outcome", "unknown_tool"); n != 1 {
		t.Errorf("toold.calls{outcome=unknown_tool} = %d, want 1", n)
	}
	stages := map[string]uint64{}
	for _, sm := range m.ScopeMetrics {
		for _, mt := range sm.Metrics {
			if mt.Name != "toold.stage.duration" {
				continue
			}
			for _, dp := range mt.Data.(metricdata.Histogram[float64]).DataPoints {
				v, _ := dp.Attributes.Value("stage")
				stages[v.AsString()] += dp.Count
			}
		}
	}
	// Both calls are validated; only the known tool gets further.
	want := map[string]uint64{"validate": 2, "policy": 1, "tool": 1, "persist": 2}
	for k, n := range want {
		if stages[k] != n {
			t.Errorf("stage %s latency samples = %d, want %d (all: %v)", k, stages[k], n, stages)
		}
	}
}

func names(stubs tracetest.SpanStubs) []string {
	var out []string
	for _, s := range stubs {
		out = append(out, s.Name)
	}
	return out
}

func collect(t *testing.T, r *sdkmetric.ManualReader) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return rm
}

// counter sums the points of an int counter whose attribute k is v.
func counter(rm metricdata.ResourceMetrics, name, k, v string) int64 {
	var n int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				if got, ok := dp.Attributes.Value(attribute.Key(k)); ok && got.AsString() == v {
					n += dp.Value
				}
			}
		}
	}
	return n
}
