// Package taskoutput is the TaskOutput tool (also answering to its older
// name, BashOutput): it returns what a background shell of the session has
// written since the last read, or a background agent's report (see
// internal/tools/agenttasks).
package taskoutput

import (
	"encoding/json"
	"math"
	"regexp"
	"time"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/shells"
)

const (
	defaultTimeoutMS = 30000
	maxTimeoutMS     = 600000
	// maxOutputBytes bounds the output one call returns, as the Bash tool
	// bounds a foreground command's; the newest part is kept.
	maxOutputBytes = 30000
)

// New returns the TaskOutput tool over the session shells of reg.
func New(reg *shells.Registry) tool.Tool { return &outputTool{reg: reg} }

// NewWithAgents returns the TaskOutput tool over the session shells of reg
// and the background agents kept in agents: a task id that is no shell's
// is looked up there.
func NewWithAgents(reg *shells.Registry, agents store.AgentTasks) tool.Tool {
	return &outputTool{reg: reg, agents: agents}
}

type outputTool struct {
	reg    *shells.Registry
	agents store.AgentTasks
}

func (t *outputTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        "TaskOutput",
		Description: description,
		InputSchema: json.RawMessage(inputSchema),
		Aliases:     []string{"BashOutput"},
	}
}

type input struct {
	TaskID  *string  `json:"task_id"`
	BashID  *string  `json:"bash_id"`
	Filter  *string  `json:"filter"`
	Block   *bool    `json:"block"`
	Timeout *float64 `json:"timeout"`
}

func (t *outputTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for TaskOutput: %v", err)
	}
	id, err := shellID(in.TaskID, in.BashID)
	if err != nil {
		return nil, err
	}
	c := &call{tool: t, id: id, wait: defaultTimeoutMS * time.Millisecond}
	// BashOutput, which bash_id belongs to, never waited: a caller that
	// still speaks it gets what it expects.
	c.block = in.BashID == nil
	if in.Block != nil {
		c.block = *in.Block
	}
	if in.Timeout != nil {
		ms := *in.Timeout
		if math.IsNaN(ms) || ms < 0 || ms > maxTimeoutMS {
			return nil, tool.InvalidInputf("timeout is %v ms; it must be from 0 to %d (10 minutes), or left out for the default of %d", ms, maxTimeoutMS, defaultTimeoutMS)
		}
		c.wait = time.Duration(ms * float64(time.Millisecond))
	}
	if in.Filter != nil && *in.Filter != "" {
		re, err := regexp.Compile(*in.Filter)
		if err != nil {
			return nil, tool.InvalidInputf("filter is not a valid regular expression: %v", err)
		}
		c.filter = re
	}
	return c, nil
}

// shellID takes the id from task_id or its older name bash_id.
func shellID(taskID, bashID *string) (string, error) {
	switch {
	case taskID != nil && bashID != nil && *taskID != *bashID:
		return "", tool.InvalidInputf("task_id and bash_id name different shells; give only task_id")
	case taskID != nil && *taskID != "":
		return *taskID, nil
	case bashID != nil && *bashID != "":
		return *bashID, nil
	}
	return "", tool.InvalidInputf("task_id is required: give the ID the Bash call with run_in_background returned")
}

type call struct {
	tool   *outputTool
	id     string
	filter *regexp.Regexp
	block  bool
	wait   time.Duration
}

// Traits: reading moves the shell's read position but changes nothing the
// model's other calls could see.
func (c *call) Traits() tool.Traits {
	return tool.Traits{ReadOnly: true, ConcurrencySafe: true}
}

func (c *call) Activity() tool.Activity {
	return tool.Activity{Summary: "Read output of " + c.id}
}
