package exec

import (
	"context"
	"fmt"

	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/tool"
)

// Policy is the stage that asks the decider whether the call may run.
func Policy(d policy.Decider) Interceptor {
	return func(ctx context.Context, c *Call, next Handler) (*tool.Result, error) {
		dec, err := d.Decide(ctx, policy.Request{
			SessionID: c.Session.ID,
			Tool:      c.ToolName(),
			Input:     c.Input,
			ReadOnly:  c.Invocation.Traits().ReadOnly,
			Mode:      c.Session.Mode,
			Cwd:       c.Session.Cwd,
			Workspace: c.Session.Workspace,
			Dirs:      c.Files.Dirs(),
		})
		if err != nil {
			return nil, tool.Errorf(tool.KindUnavailable, "The permission check could not be made, so the call did not run: %v", err)
		}
		switch dec.Behavior {
		case policy.Allow:
			return next(ctx, c)
		case policy.Ask:
			return nil, tool.Errorf(tool.KindPermissionDenied,
				"Permission to use %s requires approval, and this server cannot ask for it: %s", c.ToolName(), dec.Reason)
		default:
			return nil, tool.Errorf(tool.KindPermissionDenied, "Permission to use %s has been denied. %s", c.ToolName(), denyDetail(dec))
		}
	}
}

func denyDetail(d policy.Decision) string {
	if d.Rule != "" {
		return fmt.Sprintf("%s (rule %s from %s)", d.Reason, d.Rule, d.Source)
	}
	return d.Reason
}
