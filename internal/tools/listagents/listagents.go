// Package listagents is the ListAgents tool: the subagents the session
// started (its child sessions), which SendMessage can reach. toold knows
// them, so the call is answered without the orchestrator, through the
// delegation path (which gives it the session's children).
package listagents

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toold/toold/internal/tool"
)

// Name is the tool's name.
const Name = "ListAgents"

// New returns the ListAgents tool.
func New() tool.Tool { return listTool{} }

type listTool struct{}

func (listTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        Name,
		Description: description,
		InputSchema: json.RawMessage(inputSchema),
		SearchHint:  "list agents subagents sessions",
		Delegated:   true,
	}
}

// Parse: channel and q are "not available in this build" in Claude Code's
// schema too, and the listing is short enough for one page, so no field
// changes what is listed.
func (listTool) Parse(json.RawMessage) (tool.Invocation, error) { return call{}, nil }

type call struct{}

func (call) Traits() tool.Traits { return tool.Traits{ReadOnly: true, ConcurrencySafe: true} }

func (call) Activity() tool.Activity { return tool.Activity{Summary: "List agents", List: true} }

func (call) Run(context.Context, *tool.Env) (*tool.Result, error) {
	return nil, tool.Errorf(tool.KindInternal, "ListAgents is answered through the delegation path, not run")
}

// Delegate answers at once: one row per child, its agentId (what
// SendMessage's to takes) first.
func (call) Delegate(_ context.Context, _ *tool.Env, parent string, agents []tool.Agent) (*tool.Delegation, error) {
	var b strings.Builder
	if parent != "" {
		b.WriteString("main — the conversation that started this agent (send to \"main\")\n")
	}
	if len(agents) == 0 {
		b.WriteString("No subagents — this session has started none. An agent appears here once the Agent tool has started it.")
		return &tool.Delegation{Result: tool.Text(b.String())}, nil
	}
	fmt.Fprintf(&b, "%d subagent(s) this session started; send with SendMessage({to: \"<agentId>\", message: \"...\"}):\n", len(agents))
	for _, a := range agents {
		fmt.Fprintf(&b, "%s — %s: %s\n", a.SessionID, a.AgentType, a.Description)
	}
	return &tool.Delegation{Result: tool.Text(strings.TrimSuffix(b.String(), "\n"))}, nil
}

func (call) Complete(context.Context, *tool.Env, *tool.Delegation, tool.Completion) (*tool.Completed, error) {
	return nil, tool.Errorf(tool.KindInternal, "ListAgents is never delegated")
}
