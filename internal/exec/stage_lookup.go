package exec

import (
	"context"
	"strings"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// ToolSource finds the tools a session may call beyond the built-in
// registry: its MCP tools.
type ToolSource interface {
	Lookup(ctx context.Context, s *store.Session, name string) (tool.Tool, bool)
}

// LookupStage finds the tool a call names: in the registry, then (when
// set) in the session's other tools. With a Remover, a tool the session's
// deny rules take away is answered as disabled. It sets Call.Tool and
// Call.Def.
type LookupStage struct {
	Registry *tool.Registry
	More     ToolSource
	Remover  ToolRemover
}

// Lookup is the lookup stage without removed tools (CheckPermission's).
func Lookup(reg *tool.Registry, more ToolSource) Stage { return LookupStage{Registry: reg, More: more} }

func (s LookupStage) Handle(ctx context.Context, c *Call, next Handler) (*tool.Result, error) {
	found := false
	if t, ok := s.Registry.Lookup(c.Name); ok {
		c.Tool = t
		c.Def, _ = s.Registry.Definition(c.Name)
		found = true
	} else if s.More != nil && c.Session != nil {
		if t, ok := s.More.Lookup(ctx, c.Session, c.Name); ok {
			c.Tool, c.Def = t, t.Definition()
			found = true
		}
	}
	removed := func(name string) bool {
		if s.Remover == nil || c.Session == nil {
			return false
		}
		return s.Remover.ToolRemoved(RemovalRequest(c.Session), name)
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
	for _, n := range s.Registry.Names() {
		if strings.EqualFold(n, c.Name) && !removed(n) {
			return nil, tool.Errorf(tool.KindUnknownTool, "%s", unknownToolText(c.Name)+". Tool names are case-sensitive: call "+n+" instead.")
		}
	}
	return nil, tool.Errorf(tool.KindUnknownTool, "%s", unknownToolText(c.Name))
}

// unknownToolText is Claude Code's answer to a call of a tool it does
// not have (inside the <tool_use_error> tags).
func unknownToolText(name string) string { return "Error: No such tool available: " + name }

// disabledToolText is Claude Code's answer to a call of a tool the
// session's deny rules removed.
func disabledToolText(name string) string {
	return unknownToolText(name) + ". " + name + " is disabled for this session, in subagents as well as here."
}
