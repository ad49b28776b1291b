package session

import (
	"context"

	"github.com/toold/toold/internal/store"
)

// Lifecycle is told when sessions start and end: the SessionStart and
// SessionEnd hooks. Neither can refuse anything; what they report is
// theirs to log.
type Lifecycle interface {
	// SessionStarted runs after the session is stored, before CreateSession
	// answers.
	SessionStarted(ctx context.Context, s *store.Session)
	// SessionEnded runs after the session's calls stopped and its state was
	// dropped.
	SessionEnded(ctx context.Context, s *store.Session)
}

// SetLifecycle sets who is told about starting and ending sessions; call it
// before serving.
func (m *Manager) SetLifecycle(l Lifecycle) { m.lifecycle = l }

func (m *Manager) started(ctx context.Context, s *store.Session) {
	if m.lifecycle != nil {
		m.lifecycle.SessionStarted(ctx, s)
	}
}

func (m *Manager) ended(ctx context.Context, s *store.Session) {
	if m.lifecycle != nil {
		m.lifecycle.SessionEnded(ctx, s)
	}
}
