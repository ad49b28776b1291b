package exec

import (
	"context"
	"errors"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// StoppedAgentStage refuses the calls of a background agent that TaskStop
// stopped: the subagent's loop is the orchestrator's, so the stop cannot
// end it, but its session runs nothing more, on any replica, and the
// orchestrator reads why in the refusal. It costs one store read per call,
// in subagents' sessions only (a session with a parent).
type StoppedAgentStage struct {
	Store store.AgentTasks
}

func (s StoppedAgentStage) Handle(ctx context.Context, c *Call, next Handler) (*tool.Result, error) {
	if s.Store == nil || c.Session == nil || c.Session.Parent == "" {
		return next(ctx, c)
	}
	a, err := s.Store.GetAgentTask(ctx, c.Session.Parent, c.Session.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return next(ctx, c) // a foreground agent, or a parent gone
	case err != nil:
		return nil, tool.Errorf(tool.KindUnavailable, "Whether this agent was stopped could not be read, so %s did not run: %v", c.ToolName(), err)
	case a.State == store.AgentKilled:
		return nil, tool.Errorf(tool.KindCancelled, "This agent was stopped with TaskStop, so its session runs no more calls: %s did not run. End the agent's turn.", c.ToolName())
	}
	return next(ctx, c)
}
