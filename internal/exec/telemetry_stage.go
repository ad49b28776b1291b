package exec

import (
	"context"
	"errors"

	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/telemetry"
	"github.com/toold/toold/internal/tool"
)

// The engine's spans and metrics (see internal/telemetry): each stage of a
// call (validation, policy, the tool, persistence) is a span under the
// request's span and a latency sample; hooks are recorded by
// RecordHookRun. With no providers configured the recorder is noop and
// these cost a few calls each.

// validateStage wraps the prepare phase (lookup and validation).
func (e *Engine) validateStage() Interceptor {
	return func(ctx context.Context, c *Call, next Handler) (*tool.Result, error) {
		sctx, st := e.cfg.Telemetry.Start(ctx, telemetry.StageValidate, c.Name, c.ToolUseID)
		res, err := next(sctx, c)
		st.SetTool(c.metricTool())
		st.End(sctx, errKind(err))
		return res, err
	}
}

// toolStage is the innermost interceptor: the tool's own run, with its
// exit code and error kind; a Bash run counts as a running process.
func (e *Engine) toolStage() Interceptor {
	return func(ctx context.Context, c *Call, next Handler) (*tool.Result, error) {
		name := c.metricTool()
		sctx, st := e.cfg.Telemetry.Start(ctx, telemetry.StageTool, name, c.ToolUseID)
		if name == "Bash" {
			defer e.cfg.Telemetry.ProcessStarted(ctx, "bash")()
		}
		res, err := next(sctx, c)
		kind := errKind(err)
		if err == nil && res != nil {
			if res.IsError {
				kind = res.Kind.String()
			}
			if code, ok := res.Meta["exit_code"].(int); ok {
				st.SetAttributes(telemetry.AttrExitCode.Int(code))
			}
		}
		st.End(sctx, kind)
		return res, err
	}
}

// policyStage opens the policy span; decided closes it.
func (e *Engine) policyStage(ctx context.Context, c *Call) (context.Context, telemetry.Stage) {
	return e.cfg.Telemetry.Start(ctx, telemetry.StagePolicy, c.metricTool(), c.ToolUseID)
}

// decided records the decision the call got: on the policy span, in the
// metrics and through Config.OnDecision (the audit log).
func (e *Engine) decided(ctx context.Context, st telemetry.Stage, c *Call, dec policy.Decision, err error) {
	if err != nil {
		st.End(ctx, errKind(err))
		return
	}
	b := dec.Behavior.String()
	if st.Recording() {
		st.SetAttributes(telemetry.AttrBehavior.String(b), telemetry.AttrRule.String(dec.Rule), telemetry.AttrSource.String(dec.Source))
	}
	st.End(ctx, "")
	e.cfg.Telemetry.Decision(ctx, c.metricTool(), b, dec.Source)
	if e.cfg.OnDecision != nil {
		e.cfg.OnDecision(ctx, c, dec)
	}
}

// persisted wraps the step that stores a call's result (the journal
// commit) in a span and counts the finished call by outcome, unless
// commit says the call will run again.
func (e *Engine) persisted(ctx context.Context, c *Call, res *tool.Result, commit func(context.Context) bool) {
	sctx, st := e.cfg.Telemetry.Start(ctx, telemetry.StagePersist, c.metricTool(), c.ToolUseID)
	final := commit(sctx)
	st.End(sctx, "")
	if !final {
		return
	}
	outcome := "ok"
	if res.IsError {
		outcome = res.Kind.String()
	}
	e.cfg.Telemetry.Call(ctx, c.metricTool(), outcome)
}

// hookRan records a hook run's duration.
func (e *Engine) hookRan(ctx context.Context, r hooks.Report) {
	e.cfg.Telemetry.Hook(ctx, string(r.Event), string(r.Status), r.Duration)
}

// storeFailed counts a store failure; not-found and conflicts are
// answers, not failures.
func (e *Engine) storeFailed(ctx context.Context, op string, err error) {
	if err != nil && errors.Is(err, store.ErrUnavailable) {
		e.cfg.Telemetry.StoreError(ctx, op)
	}
}

// metricTool is the call's tool label in metrics: its canonical name once
// the lookup found it (a built-in tool or one of the session's), else
// telemetry.UnknownTool. Only known names become series, so callers
// cannot grow the metrics by sending made-up names.
func (c *Call) metricTool() string {
	if c.Tool != nil {
		return c.Def.Name
	}
	return telemetry.UnknownTool
}

// errKind names an error the way results do ("" for none).
func errKind(err error) string {
	if err == nil {
		return ""
	}
	return ResultFromError(err).Kind.String()
}
