// Package notify makes the notifications Claude Code 2.1.332 puts into the
// conversation when a background task does something no tool call
// returns (a Monitor's events, a background command's end), with Claude
// Code's texts, and queues them in the store (store.Notifications) for
// the orchestrator, which owns the model loop: it reads them with
// ToolService.WatchNotifications or ListNotifications, from any replica,
// and puts each into its next request (see docs/notifications.md).
package notify

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/toold/toold/internal/store"
)

// postTimeout bounds one post: a task's goroutine waits for it.
const postTimeout = 5 * time.Second

// Queue posts notifications to the sessions' queues in the store.
type Queue struct {
	st  store.Notifications
	log *slog.Logger
	now func() time.Time
}

// New returns a queue on st; failures to post are logged on log.
func New(st store.Notifications, log *slog.Logger) *Queue {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Queue{st: st, log: log, now: time.Now}
}

// Post adds n to the session's queue, stamped with the time. It reports
// nothing to the caller, a task that has no one to tell: a session that
// has gone is no failure (nobody reads its notifications any more), and
// anything else is logged. A nil Queue posts nothing.
func (q *Queue) Post(ctx context.Context, sessionID string, n store.Notification) {
	if q == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), postTimeout)
	defer cancel()
	if n.At.IsZero() {
		n.At = q.now()
	}
	if _, err := q.st.AddNotification(ctx, sessionID, n); err != nil && !errors.Is(err, store.ErrNotFound) {
		q.log.Warn("a notification for the model was lost: the store did not take it",
			"session_id", sessionID, "task_id", n.TaskID, "kind", n.Kind, "error", err)
	}
}
