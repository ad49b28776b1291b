package exec

import (
	"context"
	"strings"

	"github.com/toold/toold/internal/telemetry"
	"github.com/toold/toold/internal/tool"
)

// ToolStage is the end of the call path: it announces the call (the
// started event) and runs it in its tool.Env, under the tool span with
// its exit code and error kind. A command tool's run counts as a running
// process.
type ToolStage struct {
	// Environ is the environment of every process a call starts; each
	// session's own variables are added to it.
	Environ []string
	// Hider, when set, gives tools that declare ListsPaths the paths to
	// leave out.
	Hider     PathHider
	Telemetry *telemetry.Recorder
	// Delegated finishes the calls of tools the orchestrator completes
	// (tool.Definition.Delegated); nil refuses them.
	Delegated DelegatedRun
}

// DelegatedRun hands a delegated call to the orchestrator and returns the
// result it completes the call with (Engine.delegated).
type DelegatedRun func(ctx context.Context, c *Call, env *tool.Env) (*tool.Result, error)

// Run is the stage's handler.
func (s ToolStage) Run(ctx context.Context, c *Call) (*tool.Result, error) {
	name := c.metricTool()
	sctx, st := s.Telemetry.Start(ctx, telemetry.StageTool, name, c.ToolUseID)
	if c.Def.Command {
		defer s.Telemetry.ProcessStarted(ctx, strings.ToLower(name))()
	}
	res, err := s.run(sctx, c)
	kind := errKind(err)
	if err == nil && res != nil {
		if res.IsError {
			kind = res.Kind.String()
		}
		if code, ok := res.Meta["exit_code"].(int); ok {
			st.SetAttributes(telemetry.AttrExitCode.Int(code))
		}
	}
	st.End(sctx, kind)
	return res, err
}

func (s ToolStage) run(ctx context.Context, c *Call) (*tool.Result, error) {
	tr := c.Invocation.Traits()
	c.Sink.Emit(Event{ToolUseID: c.ToolUseID, Started: &Started{
		Tool: c.ToolName(), Activity: c.Invocation.Activity(), ReadOnly: tr.ReadOnly,
	}})
	env := &tool.Env{
		SessionID: c.Session.ID,
		ToolUseID: c.ToolUseID,
		Files:     c.Files,
		Cwd:       c.Cwd(),
		Environ:   withSessionEnv(s.Environ, c.Session.Env),
		State:     c.log,
		Progress:  progressSink{id: c.ToolUseID, sink: c.Sink},
	}
	// Only tools that list paths they were not named need the hidden
	// ones, and the lookup costs a rules match.
	if c.Def.ListsPaths && s.Hider != nil {
		env.Hidden = s.Hider.HiddenFunc(c.PolicyRequest())
	}
	if c.Def.Delegated {
		if s.Delegated == nil {
			return nil, tool.Failf("%s is completed by the orchestrator, and this server takes no completions.", c.ToolName())
		}
		return s.Delegated(ctx, c, env)
	}
	return c.Invocation.Run(ctx, env)
}
