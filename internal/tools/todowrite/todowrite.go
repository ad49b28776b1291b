// Package todowrite implements the TodoWrite tool: the model's task list
// for the session, replaced whole by each call and kept in the session's
// state.
//
// Decisions, following Claude Code's TodoWrite: every item has content,
// status (pending, in_progress or completed) and activeForm, the first and
// last non-empty; nothing else is accepted. The guidance to keep exactly
// one item in progress is guidance for the model, as in Claude Code, and
// is not enforced: a list with none or several in progress is stored as
// given. When every item is completed the stored list is cleared (the
// work is done), as Claude Code does; the result still shows the list
// that was sent. The result's text is Claude Code's one sentence and
// nothing else (the model wrote the list; repeating it costs tokens and
// is not what Claude Code sends); the old and the new list are in meta
// old_todos and new_todos. The tool changes nothing in the
// workspace, so it is declared read-only and needs no permission, as in
// Claude Code; it is not concurrency-safe, so that two updates in one turn
// apply in order. Limits of toold's own (the store holds the list): at
// most 500 items, each field at most 10,000 characters.
package todowrite

import (
	"context"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/toold/toold/internal/tool"
)

// BlobKey is the session blob the list is kept under.
const BlobKey = "todos"

const (
	maxItems      = 500
	maxFieldChars = 10_000
)

// Statuses an item may have.
const (
	Pending    = "pending"
	InProgress = "in_progress"
	Completed  = "completed"
)

// Todo is one item of the list, in the shape the model writes it.
type Todo struct {
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"activeForm"`
}

// New returns the TodoWrite tool.
func New() tool.Tool { return todoTool{} }

type todoTool struct{}

func (todoTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        "TodoWrite",
		Description: description,
		InputSchema: json.RawMessage(inputSchema),
		InputMessages: map[string]string{
			"todos[].content minLength":    "Content cannot be empty",
			"todos[].activeForm minLength": "Active form cannot be empty",
		},
		SearchHint: "task list plan progress checklist",
	}
}

type input struct {
	Todos []Todo `json:"todos"`
}

func (todoTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for TodoWrite: %v", err)
	}
	if err := Validate(in.Todos); err != nil {
		return nil, err
	}
	if in.Todos == nil {
		in.Todos = []Todo{}
	}
	return &call{todos: in.Todos}, nil
}

// Validate checks a list the way the tool's schema does, with messages
// that name the item at fault.
func Validate(todos []Todo) error {
	if len(todos) > maxItems {
		return tool.InvalidInputf("todos has %d items; at most %d are allowed.", len(todos), maxItems)
	}
	for i, t := range todos {
		switch {
		case t.Content == "":
			return tool.InvalidInputf("todos[%d].content is empty: describe the task.", i)
		case t.ActiveForm == "":
			return tool.InvalidInputf("todos[%d].activeForm is empty: give the task in the present continuous form, such as \"Running the tests\".", i)
		case t.Status != Pending && t.Status != InProgress && t.Status != Completed:
			return tool.InvalidInputf("todos[%d].status is %q; it must be pending, in_progress or completed.", i, t.Status)
		case utf8.RuneCountInString(t.Content) > maxFieldChars || utf8.RuneCountInString(t.ActiveForm) > maxFieldChars:
			return tool.InvalidInputf("todos[%d] is too long: content and activeForm hold at most %d characters each.", i, maxFieldChars)
		}
	}
	return nil
}

type call struct{ todos []Todo }

func (c *call) Traits() tool.Traits { return tool.Traits{ReadOnly: true} }

func (c *call) Activity() tool.Activity {
	done := 0
	for _, t := range c.todos {
		if t.Status == Completed {
			done++
		}
	}
	return tool.Activity{Summary: fmt.Sprintf("Update todos (%d of %d done)", done, len(c.todos))}
}

func (c *call) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	if env.State == nil {
		return nil, tool.Errorf(tool.KindInternal, "TodoWrite has no session state to keep the list in.")
	}
	old, err := Load(ctx, env.State)
	if err != nil {
		return nil, err
	}
	keep := c.todos
	if allDone(c.todos) {
		keep = []Todo{}
	}
	data, err := json.Marshal(keep)
	if err != nil {
		return nil, tool.Errorf(tool.KindInternal, "encoding the todo list: %v", err)
	}
	if err := env.State.PutBlob(ctx, BlobKey, data); err != nil {
		return nil, err
	}
	res := tool.Text(successText)
	res.WithMeta("old_todos", asMeta(old))
	res.WithMeta("new_todos", asMeta(c.todos))
	return res, nil
}

// Load returns the session's stored list (empty when there is none).
func Load(ctx context.Context, st tool.SessionState) ([]Todo, error) {
	data, ok, err := st.GetBlob(ctx, BlobKey)
	if err != nil || !ok {
		return []Todo{}, err
	}
	var todos []Todo
	if err := json.Unmarshal(data, &todos); err != nil {
		// A list that does not decode is replaced; it is only the model's
		// notes, and refusing every update would leave it stuck.
		return []Todo{}, nil
	}
	return todos, nil
}

func allDone(todos []Todo) bool {
	for _, t := range todos {
		if t.Status != Completed {
			return false
		}
	}
	return len(todos) > 0
}

// successText is Claude Code's whole result text, which models know.
const successText = "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable"

// asMeta is the list as plain JSON values, the form result metadata
// travels in.
func asMeta(todos []Todo) []any {
	out := make([]any, len(todos))
	for i, t := range todos {
		out[i] = map[string]any{"content": t.Content, "status": t.Status, "activeForm": t.ActiveForm}
	}
	return out
}
