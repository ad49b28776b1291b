package exec

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/notify"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/agenttasks"
)

// A background agent is two completions of one Agent call. The first
// (Completion.Launched) is the call's result, the launch notice, and makes
// the agent a task of the session in the store; the second
// (Completion.Final, any replica, any time later) is the subagent's report,
// which ends that task exactly once: TaskOutput then reads it, on any
// replica. The call's result is not changed by the report (it was the
// model's long ago); the report goes to the task and, as Claude Code's
// task-notification, to the session's notification queue.

// launched records the background agent a launch completion started.
func (e *Engine) launched(ctx context.Context, c *Call, del *tool.Delegation) error {
	if del.Child == nil || del.ChildSessionID == "" {
		return nil
	}
	err := agenttasks.Launch(ctx, e.cfg.Store, c.Session.ID, store.AgentTask{
		ID: del.ChildSessionID, ToolUseID: c.ToolUseID,
		AgentType: del.Child.AgentType, Description: del.Child.Description,
		Started: time.Now(),
	})
	if err != nil {
		return tool.Errorf(tool.KindUnavailable, "The background agent could not be recorded, so its report could not be read later: %v", err)
	}
	return nil
}

// reportAgent ends a background agent's task with the orchestrator's
// report. ErrNoDelegatedCall when the session launched no such agent from
// that call; ErrCallCompleted when its task has ended already (a second
// report, or TaskStop stopped it: the error says which).
func (e *Engine) reportAgent(ctx context.Context, sessionID, toolUseID string, comp tool.Completion) error {
	if comp.AgentID == "" {
		return fmt.Errorf("call %s of session %s: a final report names the agent (agent_id): %w", toolUseID, sessionID, ErrNoDelegatedCall)
	}
	r := agenttasks.Report{ToolUseID: toolUseID, Text: reportText(comp.Content), Failed: comp.IsError}
	if u := comp.Usage; u != nil {
		r.Usage = &store.AgentTaskUsage{Tokens: u.Tokens, ToolUses: u.ToolUses, DurationMS: u.DurationMS}
	}
	a, err := agenttasks.Finish(ctx, e.cfg.Store, sessionID, comp.AgentID, r, time.Now())
	var ended *agenttasks.EndedError
	switch {
	case err == nil:
		// Claude Code's task-notification of the agent, queued for the
		// parent's conversation like every background task's.
		notify.New(e.cfg.Store, e.cfg.Logger).Post(ctx, sessionID, agenttasks.Notification(a))
		e.backgroundStopped(ctx, sessionID, a)
		return nil
	case errors.Is(err, agenttasks.ErrNotFound), errors.Is(err, agenttasks.ErrWrongCall):
		return fmt.Errorf("call %s of session %s: no background agent %s launched by it: %w", toolUseID, sessionID, comp.AgentID, ErrNoDelegatedCall)
	case errors.As(err, &ended):
		return fmt.Errorf("call %s of session %s: background agent %s is %s: %w", toolUseID, sessionID, comp.AgentID, ended.Task.State, ErrCallCompleted)
	}
	return err
}

func reportText(blocks []tool.Block) string {
	var s string
	for i, b := range blocks {
		if b.Type != tool.BlockText {
			continue
		}
		if i > 0 {
			s += "\n"
		}
		s += b.Text
	}
	return s
}

// backgroundStopped runs the SubagentStop hooks once a background agent's
// report is in (a foreground agent's run in completed). The report has no
// call stream to go on (the Agent call ended at the launch), so the hooks'
// runs are logged and traced only; a hook that fails is reported the same
// way and changes nothing, as the report is taken already.
func (e *Engine) backgroundStopped(ctx context.Context, sessionID string, a *store.AgentTask) {
	h := e.subagentHooks()
	if h == nil {
		return
	}
	sess, err := e.cfg.Store.GetSession(ctx, sessionID)
	if err != nil {
		e.cfg.Logger.Warn("the SubagentStop hooks of a background agent could not be run: its session could not be read", "session_id", sessionID, "agent_id", a.ID, "error", err)
		return
	}
	out, err := h.SubagentStop(ctx, hooks.SubagentEvent{
		Session:   hooks.Session{ID: sess.ID, Workspace: sess.Root(), Cwd: sess.Cwd, PermissionMode: sess.Mode},
		AgentID:   a.ID,
		AgentType: a.AgentType, LastMessage: a.Report,
	})
	if err != nil {
		e.cfg.Logger.Warn("the SubagentStop hooks could not be run", "session_id", sessionID, "agent_id", a.ID, "error", err)
	}
	for _, r := range out.Reports {
		e.cfg.Telemetry.Hook(ctx, string(r.Event), string(r.Status), r.Duration)
		RecordHookRun(ctx, e.cfg.Logger, e.cfg.Telemetry.Tracer(), r,
			slog.String("session_id", sessionID), slog.String("tool_use_id", a.ToolUseID), slog.String("agent_id", a.ID))
	}
}
