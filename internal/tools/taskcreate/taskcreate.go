// Package taskcreate implements the TaskCreate tool: it adds a task to the
// session's task list, the list that replaces TodoWrite in Claude Code.
//
// Decisions, following Claude Code: a task has a subject, a description,
// an optional activeForm (the spinner text while it is in progress) and
// optional metadata; it starts pending, with no owner and no dependencies.
// Ids are "1", "2", ... in the order of creation and are never reused, not
// even after a task is deleted. The result is Claude Code's one line. The
// list is kept in the store (per session, seen by every replica); the
// tool changes nothing in the workspace, so it needs no permission, and it
// is not concurrency-safe, so that the tasks of one turn get their ids in
// the order they were asked for. Limits of toold's own (the store holds
// the list): at most MaxTasks tasks, each text at most MaxFieldChars
// characters, metadata at most MaxMetadataBytes as JSON.
package taskcreate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// Name is the tool's name.
const Name = "TaskCreate"

// Limits of a task list.
const (
	MaxTasks         = 1000
	MaxFieldChars    = 10_000
	MaxMetadataBytes = 64 << 10
)

// New returns the TaskCreate tool over the store's task lists.
func New(st store.TaskLists) tool.Tool { return createTool{st} }

type createTool struct{ st store.TaskLists }

func (createTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        Name,
		Description: description,
		InputSchema: json.RawMessage(inputSchema),
		SearchHint:  "task list plan progress todo checklist",
		// Listed as required, yet Claude Code 2.1.332 creates a task
		// without one (recorded: tasks-invalid-input).
		MayOmit: []string{"description"},
	}
}

type input struct {
	Subject     string                     `json:"subject"`
	Description string                     `json:"description"`
	ActiveForm  string                     `json:"activeForm"`
	Metadata    map[string]json.RawMessage `json:"metadata"`
}

func (t createTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for TaskCreate: %v", err)
	}
	if err := CheckText(map[string]string{"subject": in.Subject, "description": in.Description, "activeForm": in.ActiveForm}); err != nil {
		return nil, err
	}
	if err := CheckMetadata(in.Metadata); err != nil {
		return nil, err
	}
	// A null value deletes a key in TaskUpdate; in a new task there is
	// nothing to delete, so it is simply not kept.
	for k, v := range in.Metadata {
		if string(v) == "null" {
			delete(in.Metadata, k)
		}
	}
	return call{t.st, in}, nil
}

// CheckText refuses a text field past MaxFieldChars.
func CheckText(fields map[string]string) error {
	for _, name := range []string{"subject", "description", "activeForm", "owner"} {
		if n := utf8.RuneCountInString(fields[name]); n > MaxFieldChars {
			return tool.InvalidInputf("%s is %d characters long; a task's texts may have at most %d.", name, n, MaxFieldChars)
		}
	}
	return nil
}

// CheckMetadata refuses metadata past MaxMetadataBytes.
func CheckMetadata(m map[string]json.RawMessage) error {
	n := 0
	for k, v := range m {
		n += len(k) + len(v)
	}
	if n > MaxMetadataBytes {
		return tool.InvalidInputf("metadata is %d bytes as JSON; a task may have at most %d.", n, MaxMetadataBytes)
	}
	return nil
}

// errFull: the list has MaxTasks tasks.
var errFull = errors.New("task list full")

type call struct {
	st store.TaskLists
	in input
}

func (call) Traits() tool.Traits { return tool.Traits{ReadOnly: true} }

func (c call) Activity() tool.Activity { return tool.Activity{Summary: "Create task: " + c.in.Subject} }

func (c call) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	var id string
	_, err := c.st.UpdateTasks(ctx, env.SessionID, func(l *store.TaskList) error {
		if len(l.Tasks) >= MaxTasks {
			return errFull
		}
		l.LastID++
		id = strconv.FormatInt(l.LastID, 10)
		l.Tasks = append(l.Tasks, store.Task{
			ID: id, Subject: c.in.Subject, Description: c.in.Description, ActiveForm: c.in.ActiveForm,
			Status: store.TaskPending, Metadata: c.in.Metadata,
		})
		return nil
	})
	if errors.Is(err, errFull) {
		return nil, tool.Failf("The task list already has %d tasks, as many as it may have: delete tasks that are done or no longer needed (TaskUpdate with status deleted) first.", MaxTasks)
	}
	if err != nil {
		return nil, err
	}
	return tool.Text(fmt.Sprintf("Task #%s created successfully: %s", id, c.in.Subject)).WithMeta("task_id", id), nil
}

const description = `Adds a task to this session's task list, to plan and track work that takes several steps, and to show the user how far it has got.

Use it when a piece of work has three or more distinct steps, when the user gives several things to do or asks for a task list, and when new steps turn up while working. Do not use it for a single, simple step, or for a conversation without work to track.

- subject: a short title in the imperative ("Fix the login redirect").
- description: what has to be done, in enough detail to do it later.
- activeForm (optional): the same in the present continuous ("Fixing the login redirect"), shown while the task is in progress; without it the subject is shown.
- metadata (optional): any JSON values to keep with the task.

Every task starts pending, without owner or dependencies, and gets the next ID ("1", "2", ...). Check TaskList first so as not to create a task twice; use TaskUpdate to mark a task in progress before starting it and completed when it is done, and to record which tasks block which.`

const inputSchema = `{
  "type": "object",
  "properties": {
    "subject": {
      "type": "string",
      "description": "A short title for the task"
    },
    "description": {
      "type": "string",
      "description": "What has to be done"
    },
    "activeForm": {
      "type": "string",
      "description": "Present continuous form shown while the task is in progress (e.g. \"Running tests\")"
    },
    "metadata": {
      "type": "object",
      "propertyNames": {"type": "string"},
      "additionalProperties": {},
      "description": "Any metadata to keep with the task"
    }
  },
  "required": ["subject", "description"],
  "additionalProperties": false
}`
