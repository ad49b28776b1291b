// Package policy decides whether a tool call may run. It defines its own
// input type and imports nothing else from toold, so the engine that feeds
// it and the rules behind it can change independently.
package policy

import (
	"context"
	"encoding/json"
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
	// ReadOnly is what the invocation declared about itself.
	ReadOnly bool
	// Mode is the session's permission mode in Claude Code's spelling.
	Mode      string
	Cwd       string
	Workspace string
	// Dirs are the workspace and its additional directories.
	Dirs []string
}

// Decision is a decision and what made it.
type Decision struct {
	Behavior Behavior
	// Reason is written for the model (on deny) and the log.
	Reason string
	// Rule and Source name the rule that decided, when one did.
	Rule   string
	Source string
}

// Decider makes decisions. Implementations must be safe for concurrent use.
type Decider interface {
	Decide(ctx context.Context, req Request) (Decision, error)
}
