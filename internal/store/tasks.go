package store

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
)

// Task statuses, in Claude Code's spelling.
const (
	TaskPending    = "pending"
	TaskInProgress = "in_progress"
	TaskCompleted  = "completed"
)

// TaskList is a session's task list (the TaskCreate/TaskUpdate tools): its
// tasks in the order they were created, and the last id given out. Ids are
// never reused: LastID only grows, so a deleted task's id stays unused.
type TaskList struct {
	LastID int64  `json:"last_id"`
	Tasks  []Task `json:"tasks,omitempty"`
}

// Task is one entry of a task list.
type Task struct {
	ID          string `json:"id"`
	Subject     string `json:"subject"`
	Description string `json:"description"`
	ActiveForm  string `json:"active_form,omitempty"`
	Status      string `json:"status"`
	// Owner is who claimed the task; HasOwner tells an owner set to ""
	// from none, as Claude Code does.
	Owner    string `json:"owner,omitempty"`
	HasOwner bool   `json:"has_owner,omitempty"`
	// Blocks are the tasks waiting for this one; BlockedBy the tasks this
	// one waits for. Both are kept in step by the tools.
	Blocks    []string                   `json:"blocks,omitempty"`
	BlockedBy []string                   `json:"blocked_by,omitempty"`
	Metadata  map[string]json.RawMessage `json:"metadata,omitempty"`
}

// Find returns the index of the task with that id, or -1.
func (l *TaskList) Find(id string) int {
	return slices.IndexFunc(l.Tasks, func(t Task) bool { return t.ID == id })
}

// OpenBlockers are the tasks of t.BlockedBy that still exist and are not
// completed: the ones Claude Code shows as blocking it.
func (l *TaskList) OpenBlockers(t Task) []string {
	var open []string
	for _, id := range t.BlockedBy {
		if i := l.Find(id); i >= 0 && l.Tasks[i].Status != TaskCompleted {
			open = append(open, id)
		}
	}
	return open
}

// Clone returns a deep copy.
func (l *TaskList) Clone() *TaskList {
	c := &TaskList{LastID: l.LastID, Tasks: make([]Task, len(l.Tasks))}
	for i, t := range l.Tasks {
		t.Blocks = slices.Clone(t.Blocks)
		t.BlockedBy = slices.Clone(t.BlockedBy)
		t.Metadata = maps.Clone(t.Metadata)
		c.Tasks[i] = t
	}
	return c
}

// TaskLists is the part of the store that keeps each session's task list.
// A list lives and dies with its session, on every replica alike.
type TaskLists interface {
	// GetTasks returns a copy of the session's task list (empty when no
	// task was ever created); ErrNotFound if the session is absent.
	GetTasks(ctx context.Context, id string) (*TaskList, error)
	// UpdateTasks applies fn to a copy of the session's task list and
	// stores the result atomically: of two concurrent updates, neither is
	// lost (the later one sees the earlier's result). An error from fn
	// changes nothing and is returned as is; ErrNotFound if the session is
	// absent.
	UpdateTasks(ctx context.Context, id string, fn func(*TaskList) error) (*TaskList, error)
}
