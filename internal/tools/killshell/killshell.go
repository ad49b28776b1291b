// Package killshell is the KillShell tool (also answering to TaskStop): it
// stops a background shell of the session, with every process it started.
package killshell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/shells"
)

// New returns the KillShell tool over the session shells of reg.
func New(reg *shells.Registry) tool.Tool { return &killTool{reg: reg} }

type killTool struct{ reg *shells.Registry }

func (t *killTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        "KillShell",
		Description: description,
		InputSchema: json.RawMessage(inputSchema),
		Aliases:     []string{"TaskStop"},
	}
}

type input struct {
	ShellID *string `json:"shell_id"`
	TaskID  *string `json:"task_id"`
}

func (t *killTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for KillShell: %v", err)
	}
	switch {
	case in.ShellID != nil && in.TaskID != nil && *in.ShellID != *in.TaskID:
		return nil, tool.InvalidInputf("shell_id and task_id name different shells; give one of them")
	case in.ShellID != nil && *in.ShellID != "":
		return &call{tool: t, id: *in.ShellID}, nil
	case in.TaskID != nil && *in.TaskID != "":
		return &call{tool: t, id: *in.TaskID}, nil
	}
	return nil, tool.InvalidInputf("shell_id is required: give the ID the Bash call with run_in_background returned")
}

type call struct {
	tool *killTool
	id   string
}

// Traits: a stop changes no file and touches only its own shell, so it may
// run beside other calls.
func (c *call) Traits() tool.Traits { return tool.Traits{ConcurrencySafe: true} }

func (c *call) Activity() tool.Activity {
	return tool.Activity{Summary: "Stop " + c.id}
}

func (c *call) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	info, err := c.tool.reg.Kill(ctx, env.SessionID, c.id)
	switch {
	case errors.Is(err, shells.ErrNotFound):
		return nil, tool.InvalidInputf("%s", c.tool.reg.Unknown(env.SessionID, c.id))
	case errors.Is(err, shells.ErrNotRunning):
		return nil, tool.Failf("Shell %s is not running: it has %s with exit code %d, so nothing was stopped. Its output can still be read with the TaskOutput tool.", c.id, ended(info.State), info.ExitCode)
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, tool.Errorf(tool.KindInternal, "stopping %s failed: %v", c.id, err)
	}
	text := fmt.Sprintf("Killed background shell %s (%s) and every process it started.", c.id, summary(info))
	r := tool.Text(text)
	r.Meta = map[string]any{"task_id": info.ID, "status": info.State.String(), "exit_code": info.ExitCode}
	return r, nil
}

// ended words how a shell that is no longer running ended.
func ended(s shells.State) string {
	switch s {
	case shells.Completed:
		return "completed"
	case shells.Killed:
		return "been killed"
	}
	return "failed"
}

// summary names a shell by its description, else its command's first line.
func summary(info shells.Info) string {
	s := info.Description
	if strings.TrimSpace(s) == "" {
		s = info.Command
	}
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}
