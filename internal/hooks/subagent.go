package hooks

import "context"

// SubagentEvent is a subagent starting or stopping: Session is the
// parent's (the session whose Agent call made it), AgentID the child
// session's id.
type SubagentEvent struct {
	Session   Session
	AgentID   string
	AgentType string
	// LastMessage is the subagent's report (SubagentStop).
	LastMessage string
}

// SubagentStart runs the SubagentStart hooks; matchers match the agent
// type. Their additionalContext (or plain stdout) is context for the
// subagent. Nothing can be blocked.
func (r *Runner) SubagentStart(ctx context.Context, e SubagentEvent) (SessionOutcome, error) {
	in := sessionInput(SubagentStart, e.Session)
	in.AgentID, in.AgentType, in.matchOn = e.AgentID, e.AgentType, e.AgentType
	return r.sessionEvent(ctx, e.Session, in)
}

// SubagentStop runs the SubagentStop hooks; matchers match the agent
// type. The subagent has stopped by then (its loop is the
// orchestrator's), so a hook's "block" is reported, not obeyed.
func (r *Runner) SubagentStop(ctx context.Context, e SubagentEvent) (SessionOutcome, error) {
	in := sessionInput(SubagentStop, e.Session)
	active := false
	in.AgentID, in.AgentType, in.matchOn = e.AgentID, e.AgentType, e.AgentType
	in.StopHookActive, in.LastAssistantMessage = &active, e.LastMessage
	return r.sessionEvent(ctx, e.Session, in)
}
