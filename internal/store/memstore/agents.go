package memstore

import (
	"context"
	"fmt"

	"github.com/toold/toold/internal/store"
)

func (m *Store) GetAgentTask(_ context.Context, id, agentID string) (*store.AgentTask, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	e, ok := m.sessions[id]
	if !ok {
		return nil, notFound(id)
	}
	a, ok := e.agents[agentID]
	if !ok {
		return nil, fmt.Errorf("session %s: agent task %s: %w", id, agentID, store.ErrNotFound)
	}
	return a.Clone(), nil
}

// UpdateAgentTask runs fn under the store's lock, which is what makes the
// update atomic; fn only computes.
func (m *Store) UpdateAgentTask(_ context.Context, id, agentID string, fn func(*store.AgentTask) error) (*store.AgentTask, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.sessions[id]
	if !ok {
		return nil, notFound(id)
	}
	c := &store.AgentTask{}
	if a, ok := e.agents[agentID]; ok {
		c = a.Clone()
	}
	if err := fn(c); err != nil {
		return nil, err
	}
	if e.agents == nil {
		e.agents = make(map[string]*store.AgentTask)
	}
	e.agents[agentID] = c.Clone()
	return c, nil
}
