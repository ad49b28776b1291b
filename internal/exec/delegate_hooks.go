package exec

import (
	"context"

	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/tool"
)

// subagentHooks runs the SubagentStart and SubagentStop hooks;
// *hooks.Runner implements it. A HookRunner without it fires none.
type subagentHooks interface {
	SubagentStart(ctx context.Context, e hooks.SubagentEvent) (hooks.SessionOutcome, error)
	SubagentStop(ctx context.Context, e hooks.SubagentEvent) (hooks.SessionOutcome, error)
}

var _ subagentHooks = (*hooks.Runner)(nil)

func (e *Engine) subagentHooks() subagentHooks {
	if !hooksOn(e.cfg.Hooks) {
		return nil
	}
	h, _ := e.cfg.Hooks.(subagentHooks)
	return h
}

func (e *Engine) subagentEvent(c *Call, del *tool.Delegation, last string) hooks.SubagentEvent {
	return hooks.SubagentEvent{
		Session: c.hookEvent().Session, AgentID: del.ChildSessionID,
		AgentType: del.Child.AgentType, LastMessage: last,
	}
}

// subagentStarted runs the SubagentStart hooks of a child just made and
// returns what they add to the subagent's context. A hook that fails to
// run is reported; it does not stop the subagent (the event cannot block).
func (e *Engine) subagentStarted(ctx context.Context, c *Call, del *tool.Delegation) []string {
	h := e.subagentHooks()
	if h == nil {
		return nil
	}
	out, err := h.SubagentStart(ctx, e.subagentEvent(c, del, ""))
	if err != nil {
		e.cfg.Logger.Warn("the SubagentStart hooks could not be run", "session_id", c.Session.ID, "tool_use_id", c.ToolUseID, "error", err)
	}
	e.reportHooks().report(ctx, c, out.Reports)
	return out.AdditionalContext
}

// subagentStopped runs the SubagentStop hooks once the orchestrator gave
// the subagent's report.
func (e *Engine) subagentStopped(ctx context.Context, c *Call, del *tool.Delegation, comp tool.Completion) {
	h := e.subagentHooks()
	if h == nil || del.Child == nil || comp.Launched {
		return
	}
	var last string
	for _, b := range comp.Content {
		if b.Type == tool.BlockText {
			last += b.Text
		}
	}
	out, err := h.SubagentStop(ctx, e.subagentEvent(c, del, last))
	if err != nil {
		e.cfg.Logger.Warn("the SubagentStop hooks could not be run", "session_id", c.Session.ID, "tool_use_id", c.ToolUseID, "error", err)
	}
	e.reportHooks().report(ctx, c, out.Reports)
}

func (e *Engine) reportHooks() hookReporter {
	return hookReporter{Logger: e.cfg.Logger, Telemetry: e.cfg.Telemetry}
}
