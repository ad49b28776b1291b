// Package tasklist implements the TaskList tool: a summary of every task of
// the session's task list (the list TaskCreate adds to and TaskUpdate
// changes), one line per task, as Claude Code gives it.
//
// The list is in the store, so every replica sees the same one. The tool
// changes nothing, needs no permission and may run beside other reads.
package tasklist

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// Name is the tool's name.
const Name = "TaskList"

// New returns the TaskList tool over the store's task lists.
func New(st store.TaskLists) tool.Tool { return listTool{st} }

type listTool struct{ st store.TaskLists }

func (listTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        Name,
		Description: description,
		InputSchema: json.RawMessage(`{"type": "object", "properties": {}, "additionalProperties": false}`),
		SearchHint:  "tasks todo progress status list",
	}
}

func (t listTool) Parse(json.RawMessage) (tool.Invocation, error) { return call{t.st}, nil }

type call struct{ st store.TaskLists }

func (call) Traits() tool.Traits {
	return tool.Traits{ReadOnly: true, ConcurrencySafe: true, Repeatable: true}
}

func (call) Activity() tool.Activity { return tool.Activity{Summary: "List tasks", List: true} }

func (c call) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	l, err := c.st.GetTasks(ctx, env.SessionID)
	if err != nil {
		return nil, err
	}
	return tool.Text(Format(l)), nil
}

// Format is Claude Code's summary of a list: "#1 [pending] Subject", the
// owner in parentheses when there is one, and the tasks still open that
// block it; "No tasks found" for an empty list.
func Format(l *store.TaskList) string {
	if len(l.Tasks) == 0 {
		return "No tasks found"
	}
	lines := make([]string, len(l.Tasks))
	for i, t := range l.Tasks {
		s := fmt.Sprintf("#%s [%s] %s", t.ID, t.Status, t.Subject)
		if t.Owner != "" {
			s += " (" + t.Owner + ")"
		}
		if open := l.OpenBlockers(t); len(open) > 0 {
			s += " [blocked by " + Refs(open) + "]"
		}
		lines[i] = s
	}
	return strings.Join(lines, "\n")
}

// Refs writes task ids as Claude Code does: "#1, #2".
func Refs(ids []string) string {
	refs := make([]string, len(ids))
	for i, id := range ids {
		refs[i] = "#" + id
	}
	return strings.Join(refs, ", ")
}

const description = `Lists every task of this session's task list, one line per task: its ID, status and subject, its owner in parentheses when one has claimed it, and the open tasks that block it.

- Use it to see what is left to do, which tasks are free to take (pending, no owner, not blocked) and which wait for others, and to pick the next task after finishing one.
- Prefer the lowest ID among the tasks free to take: earlier tasks often prepare later ones.
- Completed tasks no longer count as blockers. Use TaskGet for a task's description and the tasks it blocks.
- The list belongs to the session and is kept by the server, so every call of the session sees the same list.`
