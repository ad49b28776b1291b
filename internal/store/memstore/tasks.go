package memstore

import (
	"context"

	"github.com/toold/toold/internal/store"
)

func (m *Store) GetTasks(_ context.Context, id string) (*store.TaskList, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	e, ok := m.sessions[id]
	if !ok {
		return nil, notFound(id)
	}
	if e.tasks == nil {
		return &store.TaskList{}, nil
	}
	return e.tasks.Clone(), nil
}

// UpdateTasks runs fn under the store's lock, which is what makes the
// update atomic; fn only computes.
func (m *Store) UpdateTasks(_ context.Context, id string, fn func(*store.TaskList) error) (*store.TaskList, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.sessions[id]
	if !ok {
		return nil, notFound(id)
	}
	c := &store.TaskList{}
	if e.tasks != nil {
		c = e.tasks.Clone()
	}
	if err := fn(c); err != nil {
		return nil, err
	}
	e.tasks = c.Clone()
	return c, nil
}
