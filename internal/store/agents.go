package store

import (
	"context"
	"time"
)

// Agent task states. A background agent's task is running from its launch
// until the orchestrator reports its end (completed or failed) or TaskStop
// stops it (killed); each of those ends it once, for good.
const (
	AgentRunning   = "running"
	AgentCompleted = "completed"
	AgentFailed    = "failed"
	AgentKilled    = "killed"
)

// AgentTask is a background agent of a session (an Agent call launched in
// the background), kept so that its report can be read later like a
// background task's output, on any replica.
type AgentTask struct {
	// ID is the agent's id: its child session's.
	ID string `json:"id"`
	// ToolUseID is the Agent call that launched it.
	ToolUseID   string `json:"tool_use_id"`
	AgentType   string `json:"agent_type,omitempty"`
	Description string `json:"description,omitempty"`
	State       string `json:"state"`
	// Report is the subagent's final report (or, failed, the reason).
	Report string `json:"report,omitempty"`
	// Usage is what the subagent spent, when the orchestrator said.
	Usage *AgentTaskUsage `json:"usage,omitempty"`
	// Read counts the TaskOutput calls that returned the ended task.
	Read    int       `json:"read,omitempty"`
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended,omitzero"`
}

// AgentTaskUsage is what a subagent spent.
type AgentTaskUsage struct {
	Tokens     int64 `json:"tokens"`
	ToolUses   int64 `json:"tool_uses"`
	DurationMS int64 `json:"duration_ms"`
}

// Clone returns a deep copy.
func (a *AgentTask) Clone() *AgentTask {
	c := *a
	if a.Usage != nil {
		u := *a.Usage
		c.Usage = &u
	}
	return &c
}

// AgentTasks keeps each session's background agents. A task lives and
// dies with its session, on every replica alike.
type AgentTasks interface {
	// GetAgentTask returns a copy of the session's agent task; ErrNotFound
	// if the session or the task is absent.
	GetAgentTask(ctx context.Context, sessionID, agentID string) (*AgentTask, error)
	// UpdateAgentTask applies fn to a copy of the task (a zero AgentTask
	// when there is none yet: fn then creates it, or refuses) and stores
	// the result atomically: of two concurrent updates the later sees the
	// earlier's result, so a state change checked in fn happens once. An
	// error from fn changes nothing and is returned as is; ErrNotFound if
	// the session is absent.
	UpdateAgentTask(ctx context.Context, sessionID, agentID string, fn func(*AgentTask) error) (*AgentTask, error)
}
