package exec

import (
	"context"

	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/tool"
)

// runTool is the innermost handler: it announces the call and runs it.
func (e *Engine) runTool(ctx context.Context, c *Call) (*tool.Result, error) {
	tr := c.Invocation.Traits()
	c.Sink.Emit(Event{ToolUseID: c.ToolUseID, Started: &Started{
		Tool: c.ToolName(), Activity: c.Invocation.Activity(), ReadOnly: tr.ReadOnly,
	}})
	env := &tool.Env{
		SessionID: c.Session.ID,
		ToolUseID: c.ToolUseID,
		Files:     c.Files,
		Cwd:       e.cwd(c),
		Environ:   withSessionEnv(e.cfg.Environ, c.Session.Env),
		State:     c.log,
		Progress:  progressSink{id: c.ToolUseID, sink: c.Sink},
	}
	env.Hidden = e.hidden(c, env.Cwd)
	if c.Def.Delegated {
		return e.delegated(ctx, c, env)
	}
	return c.Invocation.Run(ctx, env)
}

// hider is implemented by deciders that hide paths from listings and
// search results (policy.Engine: Read deny rules).
type hider interface {
	HiddenFunc(policy.Request) func(string) bool
}

var _ hider = (*policy.Engine)(nil)

// hidden is the call's tool.Env.Hidden. Only Glob and Grep list paths
// they were not named, and the lookup costs a rules match, so other tools
// get nil.
func (e *Engine) hidden(c *Call, cwd string) func(string) bool {
	switch c.ToolName() {
	case "Glob", "Grep":
	default:
		return nil
	}
	h, ok := e.cfg.Policy.(hider)
	if !ok {
		return nil
	}
	return h.HiddenFunc(policyRequest(c, cwd))
}

// cwd is the session's current directory, or its workspace when the
// stored one is no longer inside the session's directories.
func (e *Engine) cwd(c *Call) string {
	if c.Session.Cwd != "" && c.Files.Contains(c.Session.Cwd) {
		return c.Session.Cwd
	}
	return c.Files.Primary()
}
