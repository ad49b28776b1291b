// Package taskget implements the TaskGet tool: one task of the session's
// task list in full, as Claude Code gives it. An id the list does not have
// is answered "Task not found", as a plain result, as in Claude Code.
package taskget

import (
	"context"
	"encoding/json"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/tasklist"
)

// Name is the tool's name.
const Name = "TaskGet"

// NotFound is Claude Code's text for an id the list does not have.
const NotFound = "Task not found"

// New returns the TaskGet tool over the store's task lists.
func New(st store.TaskLists) tool.Tool { return getTool{st} }

type getTool struct{ st store.TaskLists }

func (getTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        Name,
		Description: description,
		InputSchema: json.RawMessage(inputSchema),
		SearchHint:  "task details description dependencies",
	}
}

type input struct {
	TaskID string `json:"taskId"`
}

func (t getTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for TaskGet: %v", err)
	}
	return call{t.st, in.TaskID}, nil
}

type call struct {
	st store.TaskLists
	id string
}

func (call) Traits() tool.Traits {
	return tool.Traits{ReadOnly: true, ConcurrencySafe: true, Repeatable: true}
}

func (c call) Activity() tool.Activity {
	return tool.Activity{Summary: "Get task #" + c.id, Read: true}
}

func (c call) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	l, err := c.st.GetTasks(ctx, env.SessionID)
	if err != nil {
		return nil, err
	}
	i := l.Find(c.id)
	if i < 0 {
		return tool.Text(NotFound), nil
	}
	return tool.Text(Format(l, l.Tasks[i])), nil
}

// Format is Claude Code's full view of a task: subject, status and
// description, then the open tasks blocking it and the tasks it blocks.
func Format(l *store.TaskList, t store.Task) string {
	s := "Task #" + t.ID + ": " + t.Subject + "\nStatus: " + t.Status + "\nDescription: " + t.Description
	if open := l.OpenBlockers(t); len(open) > 0 {
		s += "\nBlocked by: " + tasklist.Refs(open)
	}
	var blocks []string
	for _, id := range t.Blocks {
		if l.Find(id) >= 0 {
			blocks = append(blocks, id)
		}
	}
	if len(blocks) > 0 {
		s += "\nBlocks: " + tasklist.Refs(blocks)
	}
	return s
}

const description = `Returns one task of this session's task list in full: its subject, status (pending, in_progress or completed) and description, the open tasks that block it and the tasks that wait for it.

- Use it before starting on a task, to read its whole description and check that nothing blocks it any more.
- taskId is the ID TaskCreate gave the task (as "#3" in TaskList, without the "#").
- An ID the list does not have is answered "Task not found". Use TaskList for a summary of every task.`

const inputSchema = `{
  "type": "object",
  "properties": {
    "taskId": {
      "type": "string",
      "description": "The ID of the task to return"
    }
  },
  "required": ["taskId"],
  "additionalProperties": false
}`
