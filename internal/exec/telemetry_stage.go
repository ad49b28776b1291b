package exec

import (
	"context"
	"errors"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/telemetry"
	"github.com/toold/toold/internal/tool"
)

// The engine's spans and metrics (see internal/telemetry): each stage of a
// call (validation, policy, the tool, persistence) is a span under the
// request's span and a latency sample; hooks are recorded by
// RecordHookRun. With no providers configured the recorder is noop and
// these cost a few calls each.

// SpanStage wraps the stages after it (lookup and validation) in one span
// named Name.
type SpanStage struct {
	Name      string
	Telemetry *telemetry.Recorder
}

func (s SpanStage) Handle(ctx context.Context, c *Call, next Handler) (*tool.Result, error) {
	sctx, st := s.Telemetry.Start(ctx, s.Name, c.Name, c.ToolUseID)
	res, err := next(sctx, c)
	st.SetTool(c.metricTool())
	st.End(sctx, errKind(err))
	return res, err
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
