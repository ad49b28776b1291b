// Package telemetry holds toold's OpenTelemetry instruments: one span and
// one latency sample per call stage, and the counters operators watch
// (calls by outcome, decisions, denials, hook durations, running
// processes, store errors). A Recorder built from noop providers costs
// next to nothing, so the engine always records through one.
package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// ScopeName is the instrumentation scope of toold's own spans and metrics.
const ScopeName = "github.com/toold/toold"

// Stage names: the span is "toold.<stage>", the latency sample carries
// stage=<stage>.
const (
	StageValidate = "validate"
	StagePolicy   = "policy"
	StageTool     = "tool"
	StagePersist  = "persist"
)

// UnknownTool is the tool label of every call whose name is neither a
// built-in tool nor one of its session's: names come from callers, and a
// label per made-up name would grow the metrics without bound.
const UnknownTool = "unknown"

// Attribute keys of toold's spans.
const (
	AttrTool      = attribute.Key("toold.tool")
	AttrToolUseID = attribute.Key("toold.tool_use_id")
	AttrSessionID = attribute.Key("toold.session_id")
	AttrBehavior  = attribute.Key("toold.decision.behavior")
	AttrRule      = attribute.Key("toold.decision.rule")
	AttrSource    = attribute.Key("toold.decision.source")
	AttrExitCode  = attribute.Key("toold.exit_code")
	AttrErrorKind = attribute.Key("toold.error_kind")
)

// Recorder records spans and metrics of tool calls. Its methods are safe
// for concurrent use; a nil *Recorder records nothing.
type Recorder struct {
	tracer trace.Tracer
	// metered is false on the noop meter provider: the attribute sets of
	// the samples are then not built at all.
	metered     bool
	traced      bool
	calls       metric.Int64Counter
	stage       metric.Float64Histogram
	decisions   metric.Int64Counter
	denials     metric.Int64Counter
	hooks       metric.Float64Histogram
	processes   metric.Int64UpDownCounter
	storeErrors metric.Int64Counter
}

// New builds a Recorder on the given providers (nil: noop).
func New(tp trace.TracerProvider, mp metric.MeterProvider) *Recorder {
	if tp == nil {
		tp = tracenoop.NewTracerProvider()
	}
	if mp == nil {
		mp = metricnoop.NewMeterProvider()
	}
	m := mp.Meter(ScopeName)
	_, noop := mp.(metricnoop.MeterProvider)
	_, untraced := tp.(tracenoop.TracerProvider)
	r := &Recorder{tracer: tp.Tracer(ScopeName), metered: !noop, traced: !untraced}
	// Instrument creation only fails on an invalid name, which these are
	// not; a failed one is a noop instrument, never nil.
	r.calls, _ = m.Int64Counter("toold.calls", metric.WithDescription("Tool calls finished, by tool and outcome (ok or the error kind)."))
	r.stage, _ = m.Float64Histogram("toold.stage.duration", metric.WithUnit("s"), secondBuckets, metric.WithDescription("Time spent in each stage of a tool call."))
	r.decisions, _ = m.Int64Counter("toold.decisions", metric.WithDescription("Permission decisions, by behavior and source."))
	r.denials, _ = m.Int64Counter("toold.denials", metric.WithDescription("Calls denied, by tool and by who denied: a rule's settings source (policySettings, flagSettings, projectSettings, userSettings, localSettings, cliArg, session), hook, denialTracking, or user (a permission request refused or unanswered)."))
	r.hooks, _ = m.Float64Histogram("toold.hook.duration", metric.WithUnit("s"), secondBuckets, metric.WithDescription("Hook run time, by event and status."))
	r.processes, _ = m.Int64UpDownCounter("toold.processes.running", metric.WithDescription("Commands running now, by kind."))
	r.storeErrors, _ = m.Int64Counter("toold.store.errors", metric.WithDescription("Failed state store operations, by operation."))
	return r
}

// Tracer is the recorder's tracer, for spans of its own kind (hook runs);
// nil when nothing is traced.
func (r *Recorder) Tracer() trace.Tracer {
	if r == nil || !r.traced {
		return nil
	}
	return r.tracer
}

// secondBuckets suit latencies from a millisecond (a Read) to minutes (a
// build under Bash); the SDK's defaults are meant for milliseconds.
var secondBuckets = metric.WithExplicitBucketBoundaries(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600)

// Stage is one open stage of a call: End closes its span and records its
// latency.
type Stage struct {
	r     *Recorder
	span  trace.Span
	start time.Time
	name  string
	tool  string
}

// Start opens a stage of the call to tool, as a child of ctx's span (the
// Execute RPC's, or the orchestrator's through W3C trace context).
func (r *Recorder) Start(ctx context.Context, stage, tool, toolUseID string) (context.Context, Stage) {
	if r == nil || (!r.traced && !r.metered) {
		return ctx, Stage{}
	}
	st := Stage{r: r, start: time.Now(), name: stage, tool: tool}
	if r.traced {
		ctx, st.span = r.tracer.Start(ctx, "toold."+stage, trace.WithSpanKind(trace.SpanKindInternal))
		if st.span.IsRecording() {
			st.span.SetAttributes(AttrTool.String(tool), AttrToolUseID.String(toolUseID))
		}
	}
	return ctx, st
}

// Recording reports whether attributes set on the stage are kept; callers
// skip building them otherwise.
func (s Stage) Recording() bool { return s.span != nil && s.span.IsRecording() }

// SetAttributes adds attributes to the stage's span.
func (s Stage) SetAttributes(kv ...attribute.KeyValue) {
	if s.Recording() {
		s.span.SetAttributes(kv...)
	}
}

// SetTool changes the tool label of the stage's latency sample (the span
// keeps the name it was opened with): the validate stage opens before the
// name is looked up.
func (s *Stage) SetTool(tool string) { s.tool = tool }

// End closes the stage. errKind, when not empty, marks the span as failed
// with that error kind.
func (s Stage) End(ctx context.Context, errKind string) {
	if s.r == nil {
		return
	}
	if s.span != nil {
		if errKind != "" && s.span.IsRecording() {
			s.span.SetAttributes(AttrErrorKind.String(errKind))
			s.span.SetStatus(codes.Error, errKind)
		}
		s.span.End()
	}
	if !s.r.metered {
		return
	}
	s.r.stage.Record(ctx, time.Since(s.start).Seconds(), metric.WithAttributes(
		attribute.String("stage", s.name), attribute.String("tool", s.tool)))
}

// Call counts a finished call; outcome is "ok" or the error kind.
func (r *Recorder) Call(ctx context.Context, tool, outcome string) {
	if r == nil || !r.metered {
		return
	}
	r.calls.Add(ctx, 1, metric.WithAttributes(attribute.String("tool", tool), attribute.String("outcome", outcome)))
}

// Decision counts a permission decision; a deny also counts as a denial.
func (r *Recorder) Decision(ctx context.Context, tool, behavior, source string) {
	if r == nil || !r.metered {
		return
	}
	r.decisions.Add(ctx, 1, metric.WithAttributes(attribute.String("behavior", behavior), attribute.String("source", source)))
	if behavior == "deny" {
		r.Denial(ctx, tool, source)
	}
}

// Denial counts a denied call: by a rule's source, or "user" when the
// person asked said no or did not answer.
func (r *Recorder) Denial(ctx context.Context, tool, by string) {
	if r == nil || !r.metered {
		return
	}
	r.denials.Add(ctx, 1, metric.WithAttributes(attribute.String("tool", tool), attribute.String("source", by)))
}

// Hook records one hook run's duration.
func (r *Recorder) Hook(ctx context.Context, event, status string, d time.Duration) {
	if r == nil || !r.metered {
		return
	}
	r.hooks.Record(ctx, d.Seconds(), metric.WithAttributes(attribute.String("event", event), attribute.String("status", status)))
}

// ProcessStarted counts a running command of kind (bash); the returned
// function counts it ended.
func (r *Recorder) ProcessStarted(ctx context.Context, kind string) func() {
	if r == nil || !r.metered {
		return func() {}
	}
	set := metric.WithAttributes(attribute.String("kind", kind))
	r.processes.Add(ctx, 1, set)
	return func() { r.processes.Add(context.WithoutCancel(ctx), -1, set) }
}

// StoreError counts a failed store operation.
func (r *Recorder) StoreError(ctx context.Context, op string) {
	if r == nil || !r.metered {
		return
	}
	r.storeErrors.Add(ctx, 1, metric.WithAttributes(attribute.String("op", op)))
}
