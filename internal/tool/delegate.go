package tool

import "context"

// A delegated tool is one toold cannot finish alone: the model loop lives
// in the orchestrator (a subagent, a question to the user, a plan
// approval). Such a call passes validation, rules and hooks as any call;
// then, instead of running, it announces a delegation on the call's stream
// and waits until the orchestrator completes it (ToolService.CompleteCall,
// through any replica). Its result then goes on as any result: PostToolUse
// hooks, the journal, exactly once.
//
// A tool declares it with Definition.Delegated, and its invocations
// implement Delegator.

// Delegator is the invocation of a delegated tool.
type Delegator interface {
	Invocation
	// Delegate says what the orchestrator is asked to do. A returned
	// error is the call's in-band result: nothing is delegated.
	// agents are the session's children; parent its parent session, if
	// it is a subagent's.
	Delegate(ctx context.Context, env *Env, parent string, agents []Agent) (*Delegation, error)
	// Complete turns the orchestrator's completion into the call's result.
	Complete(ctx context.Context, env *Env, d *Delegation, c Completion) (*Completed, error)
}

// Delegation is what a delegated call asks of the orchestrator.
type Delegation struct {
	// Child, when set, asks the engine for a child session (a subagent's)
	// before the orchestrator is told; ChildSessionID is then its id.
	Child          *ChildSpec
	ChildSessionID string
	// TargetSessionID names the session the call addresses (a message to
	// a subagent): one of the session's agents, or its parent.
	TargetSessionID string
	// Agents lists the session's children (what ListAgents shows).
	Agents []Agent
	// Result, when set, is the call's result at once: toold could answer
	// it alone (a message to no known agent), nothing is delegated.
	Result *Result
}

// ChildSpec is the child session a delegation asks for. It inherits its
// parent's mode, rules, hooks, directories and environment; its current
// directory starts at the parent's and is its own from then on.
type ChildSpec struct {
	AgentType   string
	Description string
	// Worktree gives the child a worktree of its own (isolation:
	// "worktree"), made as EnterWorktree makes one: by the WorktreeCreate
	// hooks when configured, else with git from the repository of the
	// parent's current directory. It is the child's primary directory,
	// policy root and cwd.
	Worktree bool
}

// ChildPlace is where a child session starts: the parent's current
// directory, its directories (primary first) and its commands'
// environment.
type ChildPlace struct {
	Cwd     string
	Dirs    []string
	Environ []string
}

// Agent is a child session of a session: a subagent it started.
type Agent struct {
	SessionID   string
	AgentType   string
	Description string
}

// Completion is the orchestrator's answer to a delegated call.
type Completion struct {
	// Content is the result the orchestrator gives (a subagent's final
	// report, a message's reply). IsError marks a failure.
	Content []Block `json:"content,omitempty"`
	IsError bool    `json:"is_error,omitempty"`
	// Answers are AskUserQuestion's: question text → the answer (several
	// choices joined with ", "); Notes the user's notes per question.
	Answers map[string]string `json:"answers,omitempty"`
	Notes   map[string]string `json:"notes,omitempty"`
	// Approved is a plan approval's verdict; Mode the permission mode the
	// session continues in when approved (default "default").
	Approved bool   `json:"approved,omitempty"`
	Mode     string `json:"mode,omitempty"`
	// Usage is what a subagent spent, when the orchestrator reports it.
	Usage *AgentUsage `json:"usage,omitempty"`
	// Launched says a background agent was started and reports later.
	Launched bool `json:"launched,omitempty"`
	// Final is that later report: the end of the background agent AgentID
	// that the call launched (Content its report, IsError a failure).
	Final   bool   `json:"final,omitempty"`
	AgentID string `json:"agent_id,omitempty"`
}

// AgentUsage is what a subagent spent.
type AgentUsage struct {
	Tokens     int64 `json:"tokens"`
	ToolUses   int64 `json:"tool_uses"`
	DurationMS int64 `json:"duration_ms"`
}

// Completed is a delegated call's result and its effect on the session.
type Completed struct {
	Result *Result
	// Mode, when set, is the session's permission mode from now on (a
	// plan approval leaves plan mode).
	Mode string
}
