package memstore

import (
	"context"
	"time"

	"github.com/toold/toold/internal/store"
)

// deletedMarks remember deleted sessions for store.DeletedKeep, oldest
// first, so that a retried DeleteSession is answered "already deleted".
// The caller holds the store's lock.
type deletedMarks struct {
	byID  map[string]deletedMark
	order []string // ids in the order they were marked
}

type deletedMark struct {
	s  *store.Session
	at time.Time
}

func (d *deletedMarks) add(s *store.Session, now time.Time) {
	d.prune(now)
	if d.byID == nil {
		d.byID = make(map[string]deletedMark)
	}
	if _, ok := d.byID[s.ID]; !ok {
		d.order = append(d.order, s.ID)
	}
	d.byID[s.ID] = deletedMark{s: s.Clone(), at: now}
}

func (d *deletedMarks) get(id string, now time.Time) (*store.Session, bool) {
	mk, ok := d.byID[id]
	if !ok || now.Sub(mk.at) >= store.DeletedKeep {
		return nil, false
	}
	return mk.s.Clone(), true
}

func (d *deletedMarks) has(id string, now time.Time) bool {
	_, ok := d.get(id, now)
	return ok
}

// prune drops the marks older than store.DeletedKeep; the work is paid by
// the deletes that made them.
func (d *deletedMarks) prune(now time.Time) {
	n := 0
	for n < len(d.order) {
		id := d.order[n]
		if mk, ok := d.byID[id]; ok && now.Sub(mk.at) < store.DeletedKeep {
			break
		}
		delete(d.byID, id)
		n++
	}
	d.order = d.order[n:]
}

func (m *Store) DeletedSession(_ context.Context, id string) (*store.Session, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if s, ok := m.deleted.get(id, m.now()); ok {
		return s, nil
	}
	return nil, notFound(id)
}

func (m *Store) SessionExists(_ context.Context, id string) (bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	_, ok := m.sessions[id]
	return ok, nil
}
