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

// Lookup is the stage that finds the tool a call names: in the registry,
// then (when set) in the session's other tools.
func Lookup(reg *tool.Registry, more ToolSource) Interceptor {
	return func(ctx context.Context, c *Call, next Handler) (*tool.Result, error) {
		if t, ok := reg.Lookup(c.Name); ok {
			c.Tool = t
			c.Def, _ = reg.Definition(c.Name)
			return next(ctx, c)
		}
		if more != nil && c.Session != nil {
			if t, ok := more.Lookup(ctx, c.Session, c.Name); ok {
				c.Tool, c.Def = t, t.Definition()
				return next(ctx, c)
			}
		}
		return nil, tool.Errorf(tool.KindUnknownTool, "No such tool available: %s. Available tools: %s",
			c.Name, strings.Join(reg.Names(), ", "))
	}
}
