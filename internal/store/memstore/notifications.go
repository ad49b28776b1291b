package memstore

import (
	"context"
	"time"

	"github.com/toold/toold/internal/store"
)

// notes is an entry's notification queue: the newest notifications, oldest
// first, and the channel that the next change (an add, the session's
// delete) closes, waking the readers that wait.
type notes struct {
	list []store.Notification
	seq  int64
	wake chan struct{}
}

// wakeLocked wakes the waiting readers; the caller holds the write lock.
func (n *notes) wakeLocked() {
	if n.wake != nil {
		close(n.wake)
		n.wake = nil
	}
}

func (m *Store) AddNotification(_ context.Context, id string, n store.Notification) (int64, error) {
	if err := store.CheckNotification(n); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.sessions[id]
	if !ok {
		return 0, notFound(id)
	}
	q := &e.notes
	q.seq++
	n.Seq = q.seq
	q.list = append(q.list, n)
	// Trimmed when twice the bound, so that the copy is paid once per
	// MaxNotifications adds; readers see only the newest MaxNotifications.
	if len(q.list) >= 2*store.MaxNotifications {
		q.list = append([]store.Notification(nil), q.list[len(q.list)-store.MaxNotifications:]...)
	}
	q.wakeLocked()
	return n.Seq, nil
}

func (m *Store) ReadNotifications(ctx context.Context, id string, after int64, limit int, wait time.Duration) (store.NotificationPage, error) {
	page, wake, err := m.readNotes(id, after, limit)
	if err != nil || len(page.Notifications) > 0 || wait <= 0 {
		return page, err
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return store.NotificationPage{}, ctx.Err()
		case <-t.C:
			return page, nil
		case <-wake:
		}
		if page, wake, err = m.readNotes(id, after, limit); err != nil || len(page.Notifications) > 0 {
			return page, err
		}
	}
}

// readNotes returns the kept notifications after after and the channel
// closed by the session's next change.
func (m *Store) readNotes(id string, after int64, limit int) (store.NotificationPage, <-chan struct{}, error) {
	if limit <= 0 || limit > store.MaxNotifications {
		limit = store.MaxNotifications
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.sessions[id]
	if !ok {
		return store.NotificationPage{}, nil, notFound(id)
	}
	q := &e.notes
	if q.wake == nil {
		q.wake = make(chan struct{})
	}
	kept := q.list
	if len(kept) > store.MaxNotifications {
		kept = kept[len(kept)-store.MaxNotifications:]
	}
	after = max(after, 0)
	var page store.NotificationPage
	if len(kept) > 0 && kept[0].Seq > after+1 {
		page.Dropped = kept[0].Seq - after - 1
	}
	for _, n := range kept {
		if n.Seq > after && len(page.Notifications) < limit {
			page.Notifications = append(page.Notifications, n)
		}
	}
	return page, q.wake, nil
}
