// Package policy decides whether a tool call may run. It defines its own
// input type and imports nothing else from toold, so the engine that feeds
// it and the rules behind it can change independently.
package policy

import (
	"context"
	"encoding/json"

	"github.com/toold/toold/internal/shell"
)

// Behavior is the outcome of a decision.
type Behavior int

const (
	// Allow: the call runs.
	Allow Behavior = iota
	// Deny: the call does not run; the model is told why.
	Deny
	// Ask: the call needs an answer from a person before it runs.
	Ask
)

func (b Behavior) String() string {
	switch b {
	case Allow:
		return "allow"
	case Deny:
		return "deny"
	case Ask:
		return "ask"
	}
	return "unknown"
}

// Request is everything a decision may depend on.
type Request struct {
	SessionID string
	Tool      string
	Input     json.RawMessage
	// Args is Input decoded (the engine has it already).
	Args map[string]any
	// Shell is the analysis of a Bash call's command, when the engine has
	// made it (it analyses each call's line once); nil: the decision
	// analyses the line itself.
	Shell *shell.Analysis
	// ReadOnly is what the invocation declared about itself.
	ReadOnly bool
	// SafetyCheck: the invocation declared that it needs approval no allow
	// rule gives (tool.Traits.SafetyCheck).
	SafetyCheck bool
	// Mode is the session's permission mode in Claude Code's spelling.
	Mode      string
	Cwd       string
	Workspace string
	// Dirs are the workspace and its additional directories.
	Dirs []string
	// Isolated is the workspace a session in a git worktree works apart
	// from (Workspace is then the worktree): a file write there is
	// refused, pointing the model at the worktree's copy, as Claude Code
	// refuses it. Empty outside a worktree.
	Isolated string
	// Rules are the session's own rule sources; Revision changes whenever
	// they (or Mode) change, so compiled rules are cached per revision.
	Rules    SessionRules
	Revision int64
}

// SessionRules are the rule sources that belong to a session.
type SessionRules struct {
	CLIArg  Settings // CreateSession permissions
	User    Settings // the caller's settings
	Session Settings // answers with scope session, UpdateSession
}

// Decision is a decision and what made it.
type Decision struct {
	Behavior Behavior
	// Reason is written for the model (on deny) and the log.
	Reason string
	// Rule and Source name the rule that decided, when one did, or the
	// built-in check (Source "mode", "readOnly", "protectedPath", ...).
	Rule   string
	Source string
	// Parts are the per-command decisions of a Bash call.
	Parts []Part
	// Warnings name destructive commands, for the person asked.
	Warnings []string
	// Suggestions are rules that would allow this call next time.
	Suggestions []string
	// Message, when set, is the refusal the model gets if this decision
	// ends the call unrun (a deny, or an ask nobody granted), worded as
	// Claude Code words it for the same case. The exec stage falls back
	// to its generic texts when it is empty.
	Message string
}

// Part is the decision for one simple command of a Bash call.
type Part struct {
	Command  string
	Behavior Behavior
	Reason   string
	Rule     string
	Source   string
}

// Decider makes decisions. Implementations must be safe for concurrent use.
type Decider interface {
	Decide(ctx context.Context, req Request) (Decision, error)
}
