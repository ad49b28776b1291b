// Package killshell is the TaskStop tool (also answering to its older name
// KillShell): it stops a background task of the session (a Bash command run
// with run_in_background or moved to the background, or a Monitor), with
// every process it started, or a background agent (see stopAgent).
//
// Decisions, following Claude Code 2.1.332 as recorded: task_id names the
// task, shell_id (deprecated) is read when task_id is missing or empty;
// neither gives "Missing required parameter: task_id". The result of a stop
// is Claude Code's JSON text (message, task_id, task_type, command). A task
// the session does not have, or one that has already ended, is "No task
// found with ID: …", as in Claude Code, where an ended task is no longer a
// task to stop; toold still keeps an ended task's output readable (its
// output file, TaskOutput). Another session's task is not found either.
package killshell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toold/toold/internal/notify"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/agenttasks"
	"github.com/toold/toold/internal/tools/shells"
)

// Name is the tool's name; Alias its older one.
const (
	Name  = "TaskStop"
	Alias = "KillShell"
)

// New returns the TaskStop tool over the session shells of reg.
func New(reg *shells.Registry) tool.Tool { return &killTool{reg: reg} }

// NewWithAgents returns the TaskStop tool over the session shells of reg
// and the background agents kept in agents: a task id that is no shell's
// is looked up there, and a running agent's task is ended as killed (see
// stopAgent), the stop's notification going to q.
func NewWithAgents(reg *shells.Registry, agents store.AgentTasks, q *notify.Queue) tool.Tool {
	return &killTool{reg: reg, agents: agents, queue: q}
}

type killTool struct {
	reg    *shells.Registry
	agents store.AgentTasks
	queue  *notify.Queue
}

func (t *killTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        Name,
		Description: description,
		InputSchema: json.RawMessage(inputSchema),
		Aliases:     []string{Alias},
		SearchHint:  "kill stop background shell task monitor",
	}
}

type input struct {
	ShellID *string `json:"shell_id"`
	TaskID  *string `json:"task_id"`
}

func (t *killTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for TaskStop: %v", err)
	}
	switch {
	case in.TaskID != nil && *in.TaskID != "":
		return &call{tool: t, id: *in.TaskID}, nil
	case in.ShellID != nil && *in.ShellID != "":
		return &call{tool: t, id: *in.ShellID}, nil
	}
	// No id: refused when the call runs, after the permission check, as
	// Claude Code's own check of the input does.
	return &call{tool: t}, nil
}

type call struct {
	tool *killTool
	id   string
}

// Traits: a stop changes no file and touches only the session's own task,
// so it may run beside other calls, and it needs no approval, as in Claude
// Code (declared read-only, which is what the policy allows without asking;
// deny rules and hooks still apply).
func (c *call) Traits() tool.Traits { return tool.Traits{ReadOnly: true, ConcurrencySafe: true} }

func (c *call) Activity() tool.Activity {
	return tool.Activity{Summary: "Stop " + c.id}
}

// stopped is Claude Code's result of a stop.
type stopped struct {
	Message  string `json:"message"`
	TaskID   string `json:"task_id"`
	TaskType string `json:"task_type"`
	Command  string `json:"command"`
}

// jsonText writes v as JavaScript's JSON.stringify does, which is what
// Claude Code's text is: &, < and > as they are, not escaped for HTML.
func jsonText(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

func (c *call) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	if c.id == "" {
		return nil, tool.InvalidInputf("Missing required parameter: task_id")
	}
	info, err := c.tool.reg.Kill(ctx, env.SessionID, c.id)
	switch {
	case errors.Is(err, shells.ErrNotFound) && c.tool.agents != nil:
		return c.stopAgent(ctx, env)
	case errors.Is(err, shells.ErrNotFound), errors.Is(err, shells.ErrNotRunning):
		return nil, tool.Errorf(tool.KindNotFound, "No task found with ID: %s", c.id)
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, tool.Errorf(tool.KindInternal, "stopping %s failed: %v", c.id, err)
	}
	text, err := jsonText(stopped{
		Message:  fmt.Sprintf("Successfully stopped task: %s (%s)", info.ID, info.Command),
		TaskID:   info.ID,
		TaskType: info.Kind.TaskType(),
		Command:  info.Command,
	})
	if err != nil {
		return nil, err
	}
	r := tool.Text(text)
	r.Meta = map[string]any{"task_id": info.ID, "status": info.State.String(), "exit_code": info.ExitCode}
	return r, nil
}

// stopAgent stops a background agent: its task ends as killed in the
// store at once, on every replica. The subagent's loop is the
// orchestrator's, which learns of the stop from this call's result on the
// parent's stream (task_type local_agent, the agent's id) and, if it
// missed that, from the refusal of its final report (FAILED_PRECONDITION).
// The results are Claude Code's (recorded), and so is the notification
// of the stop, which Claude Code gives a stopped agent (unlike a stopped
// shell).
func (c *call) stopAgent(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	a, err := agenttasks.Stop(ctx, c.tool.agents, env.SessionID, c.id, time.Now())
	var ended *agenttasks.EndedError
	switch {
	case errors.Is(err, agenttasks.ErrNotFound):
		return nil, tool.Errorf(tool.KindNotFound, "No task found with ID: %s", c.id)
	case errors.As(err, &ended):
		return nil, tool.InvalidInputf("%s", agenttasks.NotRunning(ended.Task))
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, tool.Errorf(tool.KindUnavailable, "stopping agent %s failed: %v", c.id, err)
	}
	c.tool.queue.Post(ctx, env.SessionID, agenttasks.Notification(a))
	text, err := jsonText(stopped{
		Message:  fmt.Sprintf("Successfully stopped task: %s (%s)", a.ID, a.Description),
		TaskID:   a.ID,
		TaskType: agenttasks.TaskType,
		Command:  a.Description,
	})
	if err != nil {
		return nil, err
	}
	r := tool.Text(text)
	r.Meta = map[string]any{"task_id": a.ID, "task_type": agenttasks.TaskType, "status": a.State, "agent_stopped": true}
	return r, nil
}
