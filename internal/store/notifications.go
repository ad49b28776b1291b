package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Notification kinds: what a notification tells the model.
const (
	// NoteMonitorEvent: a batch of a Monitor's output lines.
	NoteMonitorEvent = "monitor_event"
	// NoteMonitorNotice: a Monitor's own notice (its expiry, events it
	// suppressed, its stop for too much output).
	NoteMonitorNotice = "monitor_notice"
	// NoteMonitorEnded: a Monitor's command ended by itself.
	NoteMonitorEnded = "monitor_ended"
	// NoteShellEnded: a background Bash command ended by itself.
	NoteShellEnded = "shell_ended"
	// NoteAgentEnded: a background agent ended (its report is in, or
	// TaskStop stopped it).
	NoteAgentEnded = "agent_ended"
)

// Notification is one message for the model that no tool call returns: an
// event of a background task, as Claude Code puts it into the
// conversation (a <task-notification> element). The orchestrator, which
// owns the model loop, reads a session's notifications in order
// (Notifications) and puts each into the next request.
type Notification struct {
	// Seq numbers the session's notifications 1, 2, 3, ... in the order
	// they were added; the store sets it. Readers resume after one.
	Seq int64 `json:"-"`
	// Kind is one of the Note* kinds.
	Kind string `json:"kind"`
	// TaskID is the background task's id; ToolUseID the call that started
	// it.
	TaskID    string `json:"task_id"`
	ToolUseID string `json:"tool_use_id,omitempty"`
	// Status is how the task ended (completed, failed, killed), for the
	// kinds that end a task.
	Status string `json:"status,omitempty"`
	// Text is the <task-notification> element, Claude Code's text.
	Text string `json:"text"`
	// At is when the notification was made.
	At time.Time `json:"at"`
}

// NotificationPage is what one read of a session's notifications returns.
type NotificationPage struct {
	// Notifications are the kept ones after the cursor, oldest first.
	Notifications []Notification
	// Dropped counts the notifications after the cursor that are no
	// longer kept (more than MaxNotifications arrived before they were
	// read): they come before the first returned one.
	Dropped int64
}

// Notifications is the part of the store that queues each session's
// notifications, so that whichever replica's task made one, any replica
// can hand it to the orchestrator. The queue lives and dies with its
// session. It is bounded: only the newest MaxNotifications are kept, and
// a reader that fell further behind is told how many it missed.
type Notifications interface {
	// AddNotification appends n to the session's queue and returns its
	// Seq. ErrNotFound when the session is absent.
	AddNotification(ctx context.Context, sessionID string, n Notification) (int64, error)
	// ReadNotifications returns up to limit (MaxNotifications when limit
	// is 0 or above it) kept notifications with Seq > after, oldest first.
	// When there are none it waits up to wait for one. ErrNotFound when
	// the session is absent, also when it goes away during the wait.
	ReadNotifications(ctx context.Context, sessionID string, after int64, limit int, wait time.Duration) (NotificationPage, error)
}

// MaxNotifications bounds a session's queue; MaxNotificationBytes bounds
// the Text of one notification (AddNotification refuses a longer one, as
// its makers cut what they put in).
const (
	MaxNotifications     = 1000
	MaxNotificationBytes = 64 << 10
)

// ErrNotificationTooLarge: a notification's Text is longer than
// MaxNotificationBytes; nothing was added.
var ErrNotificationTooLarge = errors.New("notification too large")

// CheckNotification refuses a notification the store does not take.
func CheckNotification(n Notification) error {
	if len(n.Text) > MaxNotificationBytes {
		return fmt.Errorf("a notification of %d bytes, at most %d: %w", len(n.Text), MaxNotificationBytes, ErrNotificationTooLarge)
	}
	return nil
}
