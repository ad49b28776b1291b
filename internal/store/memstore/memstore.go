// Package memstore is the embedded, in-process store: the default, for a
// single replica.
package memstore

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/toold/toold/internal/store"
)

var _ store.Store = (*Store)(nil)

// Store keeps everything in memory behind one lock; each method is short.
type Store struct {
	mu       sync.RWMutex
	sessions map[string]*entry
	deleted  deletedMarks
	now      func() time.Time
	// feedWake is closed and replaced by every AppendFeed, waking the
	// ReadFeeds that wait.
	feedWake chan struct{}
}

type entry struct {
	s       *store.Session
	stamps  map[string]store.FileStamp
	denials [store.ClassifierDenials + 1][]time.Time // per store.DenialKind, ascending
	calls   map[string]*call
	// expiries orders calls by expiry (expiry.go).
	expiries expiries
	blobs    map[string][]byte
	tasks    *store.TaskList
	agents   map[string]*store.AgentTask
	ver      uint64 // grows with every change of s: the ETag
	board    board
	notes    notes
}

// session returns a copy with the ETag set.
func (e *entry) session() *store.Session {
	c := e.s.Clone()
	c.ETag = strconv.FormatUint(e.ver, 10)
	return c
}

// New returns an empty store.
func New() *Store {
	return &Store{sessions: make(map[string]*entry), now: time.Now}
}

func (m *Store) CreateSession(_ context.Context, s *store.Session) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.sessions[s.ID]; ok {
		return fmt.Errorf("session %s: %w", s.ID, store.ErrExists)
	}
	c := s.Clone()
	c.ETag = ""
	m.sessions[s.ID] = &entry{s: c}
	return nil
}

func (m *Store) GetSession(_ context.Context, id string) (*store.Session, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	e, ok := m.sessions[id]
	if !ok {
		return nil, notFound(id)
	}
	return e.session(), nil
}

func (m *Store) DeleteSession(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.sessions[id]
	if !ok {
		if m.deleted.has(id, m.now()) {
			return fmt.Errorf("session %s: %w", id, store.ErrDeleted)
		}
		return notFound(id)
	}
	delete(m.sessions, id)
	m.deleted.add(e.s, m.now())
	for _, c := range e.calls {
		c.notify()
	}
	e.notes.wakeLocked()
	return nil
}

func (m *Store) UpdateSession(_ context.Context, id string, fn func(*store.Session) error) (*store.Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.sessions[id]
	if !ok {
		return nil, notFound(id)
	}
	c := e.s.Clone()
	if err := fn(c); err != nil {
		return nil, err
	}
	c.ID = id
	c.Revision = e.s.Revision + 1
	c.ETag = ""
	e.s = c
	e.ver++
	return e.session(), nil
}

func (m *Store) RecordDenial(_ context.Context, id string, kind store.DenialKind, at time.Time, window time.Duration) (int, error) {
	if err := store.CheckDenialKind(kind); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.sessions[id]
	if !ok {
		return 0, notFound(id)
	}
	d := append(e.denials[kind], at)
	e.denials[kind] = within(d, at, window)
	return len(e.denials[kind]), nil
}

func (m *Store) CountDenials(_ context.Context, id string, kind store.DenialKind, now time.Time, window time.Duration) (int, error) {
	if err := store.CheckDenialKind(kind); err != nil {
		return 0, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	e, ok := m.sessions[id]
	if !ok {
		return 0, notFound(id)
	}
	return len(within(e.denials[kind], now, window)), nil
}

// within returns the times in (now-window, now]; ts is ascending except
// for the last element, which may be older than the others.
func within(ts []time.Time, now time.Time, window time.Duration) []time.Time {
	from := now.Add(-window)
	out := ts[:0:0]
	for _, t := range ts {
		if t.After(from) && !t.After(now) {
			out = append(out, t)
		}
	}
	return out
}

func (m *Store) SetCwd(_ context.Context, id, cwd string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.sessions[id]
	if !ok {
		return notFound(id)
	}
	e.s.Cwd = cwd
	e.ver++
	return nil
}

func (m *Store) RecordRead(_ context.Context, id, path string, st store.FileStamp) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.sessions[id]
	if !ok {
		return notFound(id)
	}
	if e.stamps == nil {
		e.stamps = make(map[string]store.FileStamp)
	}
	e.stamps[path] = st
	return nil
}

func (m *Store) ReadStamp(_ context.Context, id, path string) (store.FileStamp, bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	e, ok := m.sessions[id]
	if !ok {
		return store.FileStamp{}, false, notFound(id)
	}
	st, ok := e.stamps[path]
	return st, ok, nil
}

func (m *Store) GetBlob(_ context.Context, id, key string) ([]byte, bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	e, ok := m.sessions[id]
	if !ok {
		return nil, false, notFound(id)
	}
	b, ok := e.blobs[key]
	return append([]byte(nil), b...), ok, nil
}

func (m *Store) Close() error { return nil }

// Offers nothing: one replica shares nothing with others.
func (m *Store) Offers() store.Offers { return store.Offers{} }

func notFound(id string) error { return fmt.Errorf("session %s: %w", id, store.ErrNotFound) }
