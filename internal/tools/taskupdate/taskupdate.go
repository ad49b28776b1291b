// Package taskupdate implements the TaskUpdate tool: it changes a task of
// the session's task list (its texts, owner, status, metadata and
// dependencies) or deletes it, as Claude Code does.
//
// Decisions, following Claude Code 2.1.332 as recorded: the result names
// the fields that changed, in a fixed order ("Updated task #1 owner,
// status, blocks"); a field given with the value it already has is not
// named, so an update that changes nothing reads "Updated task #1 " (with
// the space). status "deleted" removes the task and every reference to it
// and reads "Updated task #1 deleted", whatever else was given. An id the
// list does not have is answered "Task not found", as a plain result.
// addBlocks and addBlockedBy record a dependency on both tasks; an id that
// names no task is kept on this side only (it never shows, since only
// existing tasks are shown). metadata is merged, a null value deleting its
// key. The update is one atomic step of the store, so two updates never
// lose each other's changes.
package taskupdate

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/taskcreate"
	"github.com/toold/toold/internal/tools/taskget"
)

// Name is the tool's name.
const Name = "TaskUpdate"

// Deleted is the status that deletes a task.
const Deleted = "deleted"

// New returns the TaskUpdate tool over the store's task lists.
func New(st store.TaskLists) tool.Tool { return updateTool{st} }

type updateTool struct{ st store.TaskLists }

func (updateTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        Name,
		Description: description,
		InputSchema: json.RawMessage(inputSchema),
		SearchHint:  "task status complete progress owner dependencies",
	}
}

type input struct {
	TaskID       string                     `json:"taskId"`
	Subject      *string                    `json:"subject"`
	Description  *string                    `json:"description"`
	ActiveForm   *string                    `json:"activeForm"`
	Status       *string                    `json:"status"`
	AddBlocks    []string                   `json:"addBlocks"`
	AddBlockedBy []string                   `json:"addBlockedBy"`
	Owner        *string                    `json:"owner"`
	Metadata     map[string]json.RawMessage `json:"metadata"`
}

func (t updateTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for TaskUpdate: %v", err)
	}
	texts := map[string]string{}
	for name, p := range map[string]*string{"subject": in.Subject, "description": in.Description, "activeForm": in.ActiveForm, "owner": in.Owner} {
		if p != nil {
			texts[name] = *p
		}
	}
	if err := taskcreate.CheckText(texts); err != nil {
		return nil, err
	}
	if err := taskcreate.CheckMetadata(in.Metadata); err != nil {
		return nil, err
	}
	if n := len(in.AddBlocks) + len(in.AddBlockedBy); n > taskcreate.MaxTasks {
		return nil, tool.InvalidInputf("addBlocks and addBlockedBy name %d tasks; a list has at most %d.", n, taskcreate.MaxTasks)
	}
	return call{t.st, in}, nil
}

type call struct {
	st store.TaskLists
	in input
}

func (call) Traits() tool.Traits { return tool.Traits{ReadOnly: true} }

func (c call) Activity() tool.Activity {
	s := "Update task #" + c.in.TaskID
	if c.in.Status != nil {
		s += ": " + *c.in.Status
	}
	return tool.Activity{Summary: s}
}

// errNoTask: the list has no task of that id.
var errNoTask = errors.New("no such task")

func (c call) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	var changed []string
	_, err := c.st.UpdateTasks(ctx, env.SessionID, func(l *store.TaskList) error {
		var err error
		changed, err = apply(l, c.in)
		return err
	})
	if errors.Is(err, errNoTask) {
		return tool.Text(taskget.NotFound), nil
	}
	if err != nil {
		return nil, err
	}
	return tool.Text("Updated task #" + c.in.TaskID + " " + strings.Join(changed, ", ")), nil
}

// apply changes l as in asks and returns the names of the fields that
// changed, in Claude Code's order.
func apply(l *store.TaskList, in input) ([]string, error) {
	i := l.Find(in.TaskID)
	if i < 0 {
		return nil, errNoTask
	}
	if in.Status != nil && *in.Status == Deleted {
		remove(l, in.TaskID)
		return []string{Deleted}, nil
	}
	t := &l.Tasks[i]
	var changed []string
	set := func(name string, dst *string, v *string) {
		if v != nil && *v != *dst {
			*dst = *v
			changed = append(changed, name)
		}
	}
	set("subject", &t.Subject, in.Subject)
	set("description", &t.Description, in.Description)
	set("activeForm", &t.ActiveForm, in.ActiveForm)
	if in.Owner != nil && (!t.HasOwner || t.Owner != *in.Owner) {
		t.Owner, t.HasOwner = *in.Owner, true
		changed = append(changed, "owner")
	}
	if in.Metadata != nil {
		if t.Metadata == nil {
			t.Metadata = map[string]json.RawMessage{}
		}
		for k, v := range in.Metadata {
			if string(v) == "null" {
				delete(t.Metadata, k)
			} else {
				t.Metadata[k] = v
			}
		}
		changed = append(changed, "metadata")
	}
	set("status", &t.Status, in.Status)
	id := t.ID
	if link(l, id, in.AddBlocks, false) {
		changed = append(changed, "blocks")
	}
	if link(l, id, in.AddBlockedBy, true) {
		changed = append(changed, "blockedBy")
	}
	return changed, nil
}

// link records that id blocks each of others (or, with blockedBy, that
// each of others blocks id), on both tasks where both exist. It reports
// whether id's own list gained an entry.
func link(l *store.TaskList, id string, others []string, blockedBy bool) bool {
	added := false
	for _, o := range others {
		self := &l.Tasks[l.Find(id)]
		mine, theirs := &self.Blocks, func(t *store.Task) *[]string { return &t.BlockedBy }
		if blockedBy {
			mine, theirs = &self.BlockedBy, func(t *store.Task) *[]string { return &t.Blocks }
		}
		if slices.Contains(*mine, o) {
			continue
		}
		*mine = append(*mine, o)
		added = true
		if j := l.Find(o); j >= 0 {
			if p := theirs(&l.Tasks[j]); !slices.Contains(*p, id) {
				*p = append(*p, id)
			}
		}
	}
	return added
}

// remove deletes the task and every reference to it. The last id stays,
// so the id is not given out again.
func remove(l *store.TaskList, id string) {
	l.Tasks = slices.DeleteFunc(l.Tasks, func(t store.Task) bool { return t.ID == id })
	for i := range l.Tasks {
		t := &l.Tasks[i]
		t.Blocks = slices.DeleteFunc(t.Blocks, func(s string) bool { return s == id })
		t.BlockedBy = slices.DeleteFunc(t.BlockedBy, func(s string) bool { return s == id })
	}
}

const description = `Changes a task of this session's task list, or deletes it.

- Mark a task in_progress before starting on it and completed once it is fully done. Keep it in_progress while tests fail, the work is partial or an error is unresolved, and create a new task for what blocks it. After completing a task, call TaskList to find the next one.
- status deleted removes a task that is no longer needed or was created by mistake; its ID is not given out again.
- subject, description and activeForm replace the task's texts; owner names who works on it (claim a task by setting yourself as owner).
- metadata is merged into the task's metadata; a key set to null is removed.
- addBlocks lists tasks that cannot start before this one is completed; addBlockedBy lists tasks that must be completed before this one can start. Completed tasks no longer block.
- The result names the fields that changed. Read a task's current state with TaskGet before changing it.

Examples: {"taskId": "1", "status": "in_progress"}; {"taskId": "1", "status": "completed"}; {"taskId": "2", "addBlockedBy": ["1"]}; {"taskId": "1", "owner": "my-name"}.`

const inputSchema = `{
  "type": "object",
  "properties": {
    "taskId": {
      "type": "string",
      "description": "The ID of the task to change"
    },
    "subject": {
      "type": "string",
      "description": "The task's new subject"
    },
    "description": {
      "type": "string",
      "description": "The task's new description"
    },
    "activeForm": {
      "type": "string",
      "description": "Present continuous form shown while the task is in progress (e.g. \"Running tests\")"
    },
    "status": {
      "description": "The task's new status, or deleted to remove it",
      "anyOf": [
        {"type": "string", "enum": ["pending", "in_progress", "completed"]},
        {"type": "string", "const": "deleted"}
      ]
    },
    "addBlocks": {
      "type": "array",
      "items": {"type": "string"},
      "description": "IDs of tasks that this task blocks"
    },
    "addBlockedBy": {
      "type": "array",
      "items": {"type": "string"},
      "description": "IDs of tasks that block this task"
    },
    "owner": {
      "type": "string",
      "description": "The task's new owner"
    },
    "metadata": {
      "type": "object",
      "propertyNames": {"type": "string"},
      "additionalProperties": {},
      "description": "Metadata keys to merge into the task; a key set to null is removed"
    }
  },
  "required": ["taskId"],
  "additionalProperties": false
}`
