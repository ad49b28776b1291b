package exec

import (
	"context"
	"strings"

	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// ToolSource finds the tools a session may call beyond the built-in
// registry: its MCP tools.
type ToolSource interface {
	Lookup(ctx context.Context, s *store.Session, name string) (tool.Tool, bool)
}

// ToolRemover says which tools a session's deny rules take away from the
// model (policy.Engine does): Claude Code's filterToolsByDenyRules.
type ToolRemover interface {
	ToolRemoved(req policy.Request, tool string) bool
}

// RemovalRequest is what a ToolRemover needs of a session.
func RemovalRequest(s *store.Session) policy.Request {
	return policy.Request{SessionID: s.ID, Workspace: s.Root(), Rules: session.SessionRules(s), Revision: s.Revision}
}

// Lookup is the stage that finds the tool a call names: in the registry,
// then (when set) in the session's other tools.
func Lookup(reg *tool.Registry, more ToolSource) Interceptor { return lookup(reg, more, nil) }

// lookupStage is Lookup with the tools the session's deny rules remove
// answered as disabled, when the decider can tell them.
func (e *Engine) lookupStage() Interceptor {
	rm, _ := e.cfg.Policy.(ToolRemover)
	return lookup(e.cfg.Registry, e.cfg.Tools, rm)
}

func lookup(reg *tool.Registry, more ToolSource, rm ToolRemover) Interceptor {
	return func(ctx context.Context, c *Call, next Handler) (*tool.Result, error) {
		found := false
		if t, ok := reg.Lookup(c.Name); ok {
			c.Tool = t
			c.Def, _ = reg.Definition(c.Name)
			found = true
		} else if more != nil && c.Session != nil {
			if t, ok := more.Lookup(ctx, c.Session, c.Name); ok {
				c.Tool, c.Def = t, t.Definition()
				found = true
			}
		}
		removed := func(name string) bool {
			if rm == nil || c.Session == nil {
				return false
			}
			req := RemovalRequest(c.Session)
			return rm.ToolRemoved(req, name)
		}
		if found {
			if removed(c.Def.Name) || (c.Name != c.Def.Name && removed(c.Name)) {
				c.Tool, c.Def = nil, tool.Definition{}
				return nil, tool.Errorf(tool.KindUnknownTool, "%s", disabledToolText(c.Name))
			}
			return next(ctx, c)
		}
		// Claude Code points at a tool whose name differs only in case,
		// among the tools the session has.
		for _, n := range reg.Names() {
			if strings.EqualFold(n, c.Name) && !removed(n) {
				return nil, tool.Errorf(tool.KindUnknownTool, "%s", unknownToolText(c.Name)+". Tool names are case-sensitive: call "+n+" instead.")
			}
		}
		return nil, tool.Errorf(tool.KindUnknownTool, "%s", unknownToolText(c.Name))
	}
}

// unknownToolText is Claude Code's answer to a call of a tool it does
// not have (inside the <tool_use_error> tags).
func unknownToolText(name string) string { return "Error: No such tool available: " + name }

// disabledToolText is Claude Code's answer to a call of a tool the
// session's deny rules removed.
func disabledToolText(name string) string {
	return unknownToolText(name) + ". " + name + " is disabled for this session, in subagents as well as here."
}
