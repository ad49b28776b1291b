// Package sendmessage is the SendMessage tool: the model sends a message
// to a subagent it started (by the agentId its Agent result gave: the
// child session's id) or, from a subagent, to "main", its parent. The
// recipient's model loop is the orchestrator's, so the call is delegated
// with the recipient's session named; a recipient that is neither is
// answered at once, as Claude Code answers it.
package sendmessage

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/toold/toold/internal/tool"
)

// Name is the tool's name.
const Name = "SendMessage"

// New returns the SendMessage tool.
func New() tool.Tool { return sendTool{} }

type sendTool struct{}

func (sendTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        Name,
		Description: description,
		InputSchema: json.RawMessage(inputSchema),
		SearchHint:  "message agent subagent continue",
		Delegated:   true,
	}
}

type input struct {
	To      string `json:"to"`
	Summary string `json:"summary"`
	Message string `json:"message"`
}

func (sendTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for SendMessage: %v", err)
	}
	return &call{in: in}, nil
}

type call struct{ in input }

// reply is Claude Code's result shape, its keys in its order.
type reply struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
}

// Traits: a message changes nothing here; what the recipient does is
// checked in its own session.
func (c *call) Traits() tool.Traits { return tool.Traits{ReadOnly: true} }

func (c *call) Activity() tool.Activity { return tool.Activity{Summary: "Message " + c.in.To} }

func (c *call) Run(context.Context, *tool.Env) (*tool.Result, error) {
	return nil, tool.Errorf(tool.KindInternal, "SendMessage is completed by the orchestrator, not run")
}

// Delegate finds the recipient: a child by its session id (a " [ref]"
// suffix, which ListAgents rows may carry in Claude Code, is ignored), or
// "main" for a subagent's parent.
func (c *call) Delegate(_ context.Context, _ *tool.Env, parent string, agents []tool.Agent) (*tool.Delegation, error) {
	to := strings.TrimSpace(c.in.To)
	if i := strings.Index(to, " ["); i > 0 && strings.HasSuffix(to, "]") {
		to = to[:i]
	}
	if to == "main" && parent != "" {
		return &tool.Delegation{TargetSessionID: parent}, nil
	}
	for _, a := range agents {
		if a.SessionID == to {
			return &tool.Delegation{TargetSessionID: a.SessionID}, nil
		}
	}
	// Claude Code 2.1.332's answer (recorded), not an error result.
	msg, _ := json.Marshal(reply{Success: false, Message: "No agent named '" + c.in.To + "' is reachable.\nUse ListAgents to see everyone you can message."})
	return &tool.Delegation{Result: tool.Text(string(msg))}, nil
}

// Complete gives the orchestrator's result as it is; none is a delivery
// in the same JSON shape as the refusal.
func (c *call) Complete(_ context.Context, _ *tool.Env, d *tool.Delegation, comp tool.Completion) (*tool.Completed, error) {
	if comp.IsError {
		return &tool.Completed{Result: &tool.Result{Content: comp.Content, IsError: true, Kind: tool.KindFailed}}, nil
	}
	if len(comp.Content) > 0 {
		return &tool.Completed{Result: &tool.Result{Content: comp.Content}}, nil
	}
	msg, _ := json.Marshal(reply{Success: true, Message: "Message sent to '" + c.in.To + "'."})
	return &tool.Completed{Result: tool.Text(string(msg))}, nil
}
