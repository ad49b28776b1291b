package exec

import (
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/store"
)

// What a decider may offer beyond deciding. Each is a declared interface
// that policy.Engine implements; the engine takes them from
// Config.Capabilities, or (unset) from the decider, in CapabilitiesOf only.

// PathHider says which paths listings and search results leave out (Read
// deny rules): tools that declare ListsPaths get it as Env.Hidden.
type PathHider interface {
	HiddenFunc(policy.Request) func(string) bool
}

// ToolRemover says which tools a session's deny rules take away from the
// model: Claude Code's filterToolsByDenyRules.
type ToolRemover interface {
	ToolRemoved(req policy.Request, tool string) bool
}

// SessionForgetter drops what a decider keeps of a session (compiled
// rules) when the session ends.
type SessionForgetter interface {
	Forget(sessionID string)
}

// RuleChecker checks a session's rules before they are stored, so that a
// rule a hook adds that does not parse cannot break the session's later
// calls.
type RuleChecker interface {
	Check(workspace string, rules policy.SessionRules) error
}

// PolicyCapabilities are a decider's optional capabilities; a nil field is
// one it does not have.
type PolicyCapabilities struct {
	Hider     PathHider
	Remover   ToolRemover
	Forgetter SessionForgetter
	Rules     RuleChecker
}

var (
	_ PathHider        = (*policy.Engine)(nil)
	_ ToolRemover      = (*policy.Engine)(nil)
	_ SessionForgetter = (*policy.Engine)(nil)
	_ RuleChecker      = (*policy.Engine)(nil)
)

// CapabilitiesOf is what d declares it can do.
func CapabilitiesOf(d policy.Decider) PolicyCapabilities {
	var c PolicyCapabilities
	c.Hider, _ = d.(PathHider)
	c.Remover, _ = d.(ToolRemover)
	c.Forgetter, _ = d.(SessionForgetter)
	c.Rules, _ = d.(RuleChecker)
	return c
}

// RemovalRequest is what a ToolRemover needs of a session.
func RemovalRequest(s *store.Session) policy.Request {
	return policy.Request{SessionID: s.ID, Workspace: s.Root(), Rules: session.SessionRules(s), Revision: s.Revision}
}
