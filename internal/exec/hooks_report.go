package exec

import (
	"context"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/telemetry"
	"github.com/toold/toold/internal/tool"
)

// HookRunner runs the hooks of a call's events (Claude Code's hook
// protocol). *hooks.Runner implements it; Config.Hooks nil means none.
type HookRunner interface {
	Enabled() bool
	PreToolUse(ctx context.Context, te hooks.ToolEvent) (hooks.PreOutcome, error)
	PermissionRequest(ctx context.Context, te hooks.ToolEvent) (hooks.PermissionOutcome, error)
	PermissionDenied(ctx context.Context, te hooks.ToolEvent) (hooks.DeniedOutcome, error)
	PostToolUse(ctx context.Context, te hooks.ToolEvent) (hooks.PostOutcome, error)
	PostToolUseFailure(ctx context.Context, te hooks.ToolEvent) (hooks.PostOutcome, error)
}

var _ HookRunner = (*hooks.Runner)(nil)

func hooksOn(h HookRunner) bool { return h != nil && h.Enabled() }

// hookReporter puts each hook run on the call's stream (and so in its
// journal), in the log, in the metrics and in the trace.
type hookReporter struct {
	Logger    *slog.Logger
	Telemetry *telemetry.Recorder
}

func (r hookReporter) report(ctx context.Context, c *Call, reports []hooks.Report) {
	for _, h := range reports {
		c.Sink.Emit(Event{ToolUseID: c.ToolUseID, Hook: &HookRun{
			Event: string(h.Event), Hook: h.Hook, Type: h.Type, Decision: h.Decision,
			Status: string(h.Status), Message: h.Message, ExitCode: h.ExitCode, Duration: h.Duration,
		}})
		r.Telemetry.Hook(ctx, string(h.Event), string(h.Status), h.Duration)
		RecordHookRun(ctx, r.Logger, r.Telemetry.Tracer(), h,
			slog.String("session_id", c.Session.ID), slog.String("tool_use_id", c.ToolUseID), slog.String("tool", c.ToolName()))
	}
}

// RecordHookRun writes one hook run to the log (one line, at a level by
// its outcome) and to the trace
// (one span of tracer, timed by the run itself, under ctx's span; a nil
// tracer records none). Session hooks and async hooks, which have no call
// stream, are recorded with it too.
func RecordHookRun(ctx context.Context, log *slog.Logger, tracer trace.Tracer, r hooks.Report, attrs ...slog.Attr) {
	failed := r.Status == hooks.StatusFailed || r.Status == hooks.StatusTimedOut
	// Failures and refusals are worth a line at INFO; a hook that ran
	// and let the call be is DEBUG, as a call that succeeded is.
	level := slog.LevelDebug
	switch {
	case failed:
		level = slog.LevelWarn
	case r.Status == hooks.StatusBlocked || r.Status == hooks.StatusNonBlocking || r.Decision == "deny":
		level = slog.LevelInfo
	}
	if log.Enabled(ctx, level) {
		attrs = append(attrs,
			slog.String("event", string(r.Event)), slog.String("hook", r.Hook), slog.String("type", r.Type),
			slog.String("status", string(r.Status)), slog.String("decision", r.Decision),
			slog.Int("exit_code", r.ExitCode), slog.Duration("duration", r.Duration))
		if r.Message != "" {
			attrs = append(attrs, slog.String("message", r.Message))
		}
		log.LogAttrs(ctx, level, "hook ran", attrs...)
	}
	if tracer == nil {
		return
	}
	started := r.Started
	if started.IsZero() {
		started = time.Now().Add(-r.Duration)
	}
	_, span := tracer.Start(ctx, "hook "+string(r.Event),
		trace.WithTimestamp(started), trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(
			attribute.String("hook.event", string(r.Event)), attribute.String("hook.name", r.Hook),
			attribute.String("hook.type", r.Type), attribute.String("hook.status", string(r.Status)),
			attribute.String("hook.decision", r.Decision), attribute.Int("hook.exit_code", r.ExitCode),
		))
	if failed {
		span.SetStatus(codes.Error, r.Message)
	}
	span.End(trace.WithTimestamp(started.Add(r.Duration)))
}

// hookMeta passes what hooks say to the orchestrator rather than to the
// model: systemMessage (for the user) and "continue": false (stop the
// agent after this call), as result metadata.
func hookMeta(r *tool.Result, c hooks.Common) *tool.Result {
	if len(c.SystemMessages) > 0 {
		r.WithMeta("hook_system_messages", append([]string(nil), c.SystemMessages...))
	}
	if c.Stop != nil {
		r.WithMeta("hook_stop", true)
		if c.Stop.Reason != "" {
			r.WithMeta("hook_stop_reason", c.Stop.Reason)
		}
	}
	return r
}

// addContext adds one text per item to what the model reads outside the
// result, labelled as Claude Code labels it.
func addContext(r *tool.Result, label string, items []string) {
	for _, s := range items {
		if s != "" {
			r.ModelContext = append(r.ModelContext, label+s)
		}
	}
}
