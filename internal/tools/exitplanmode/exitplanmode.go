// Package exitplanmode is the ExitPlanMode tool: the model asks the user
// to approve its plan and leave plan mode. The approval is the
// orchestrator's to get, so the call is delegated; an approval switches
// the session's permission mode (to the one CompleteCall names, default
// "default") before the result is reported.
package exitplanmode

import (
	"context"
	"encoding/json"

	"github.com/toold/toold/internal/tool"
)

// Name is the tool's name.
const Name = "ExitPlanMode"

// New returns the ExitPlanMode tool.
func New() tool.Tool { return exitTool{} }

type exitTool struct{}

func (exitTool) Definition() tool.Definition {
	return tool.Definition{
		Name:         Name,
		Description:  description,
		InputSchema:  json.RawMessage(inputSchema),
		SearchHint:   "plan mode approve plan exit",
		Delegated:    true,
		MovesSession: true,
	}
}

// Parse takes any object: Claude Code's schema allows every property and
// the one it names is deprecated.
func (exitTool) Parse(json.RawMessage) (tool.Invocation, error) { return call{}, nil }

type call struct{}

// Traits: asking for approval changes nothing; the mode switch is the
// completion's, applied by the engine.
func (call) Traits() tool.Traits { return tool.Traits{ReadOnly: true} }

func (call) Activity() tool.Activity { return tool.Activity{Summary: "Ask to approve the plan"} }

func (call) Run(context.Context, *tool.Env) (*tool.Result, error) {
	return nil, tool.Errorf(tool.KindInternal, "ExitPlanMode is completed by the orchestrator, not run")
}

func (call) Delegate(context.Context, *tool.Env, string, []tool.Agent) (*tool.Delegation, error) {
	return &tool.Delegation{}, nil
}

// Complete: an approval reads as Claude Code's (recorded with 2.1.332)
// and leaves plan mode; a refusal is an error result with the
// orchestrator's text (Claude Code gives the host's message as it is).
func (call) Complete(_ context.Context, _ *tool.Env, _ *tool.Delegation, comp tool.Completion) (*tool.Completed, error) {
	if comp.Approved && !comp.IsError {
		mode := comp.Mode
		if mode == "" || mode == "plan" {
			mode = "default"
		}
		return &tool.Completed{Result: tool.Text("User has approved exiting plan mode. You can now proceed."), Mode: mode}, nil
	}
	content := comp.Content
	if len(content) == 0 {
		content = []tool.Block{{Type: tool.BlockText, Text: "The user did not approve the plan; stay in plan mode."}}
	}
	return &tool.Completed{Result: &tool.Result{Content: content, IsError: true, Kind: tool.KindPermissionDenied}}, nil
}
