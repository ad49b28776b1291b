package exec

import (
	"context"
	"strings"

	"github.com/toold/toold/internal/tool"
)

// Lookup is the stage that finds the tool a call names.
func Lookup(reg *tool.Registry) Interceptor {
	return func(ctx context.Context, c *Call, next Handler) (*tool.Result, error) {
		t, ok := reg.Lookup(c.Name)
		if !ok {
			return nil, tool.Errorf(tool.KindUnknownTool, "No such tool available: %s. Available tools: %s",
				c.Name, strings.Join(reg.Names(), ", "))
		}
		c.Tool = t
		c.Def, _ = reg.Definition(c.Name)
		return next(ctx, c)
	}
}
