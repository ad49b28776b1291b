package exec

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/toold/toold/internal/tool"
)

// ErrNoPendingRequest: no call of the session waits for that request id
// (answered already, timed out, or its call was cancelled).
var ErrNoPendingRequest = errors.New("no pending permission request")

// Answer is a person's answer to a permission request.
type Answer struct {
	Allow bool
	// ForSession remembers the request's suggested rules as session rules.
	ForSession bool
	Message    string
	// Completion, when set, completes a delegated call (see
	// delegate.go) instead of answering a permission request.
	Completion *tool.Completion
}

// PendingRequests holds the permission requests that running calls wait on.
// LocalPending serves one replica; a shared implementation (Redis) lets any
// replica answer a request that another one waits on.
type PendingRequests interface {
	// Open registers a request and returns where its answer arrives; close
	// must be called when the caller stops waiting.
	Open(ctx context.Context, sessionID, requestID string) (answers <-chan Answer, close func(), err error)
	// Resolve delivers an answer to whichever replica waits;
	// ErrNoPendingRequest (wrapped) when none waits.
	Resolve(ctx context.Context, sessionID, requestID string, a Answer) error
}

var _ PendingRequests = (*LocalPending)(nil)

// LocalPending is the in-process registry of one replica.
type LocalPending struct {
	mu sync.Mutex
	m  map[pendingKey]chan Answer
}

type pendingKey struct{ session, request string }

// NewPending returns an empty registry.
func NewPending() *LocalPending { return &LocalPending{m: make(map[pendingKey]chan Answer)} }

// Open registers a request; close must be called when the caller stops
// waiting, answered or not. It never fails.
func (p *LocalPending) Open(_ context.Context, sessionID, requestID string) (<-chan Answer, func(), error) {
	ch := make(chan Answer, 1)
	k := pendingKey{sessionID, requestID}
	p.mu.Lock()
	p.m[k] = ch
	p.mu.Unlock()
	return ch, func() {
		p.mu.Lock()
		delete(p.m, k)
		p.mu.Unlock()
	}, nil
}

// Resolve delivers an answer. Each request takes one answer; a second one,
// or one for an unknown request, is ErrNoPendingRequest.
func (p *LocalPending) Resolve(_ context.Context, sessionID, requestID string, a Answer) error {
	k := pendingKey{sessionID, requestID}
	p.mu.Lock()
	ch, ok := p.m[k]
	delete(p.m, k)
	p.mu.Unlock()
	if !ok {
		return fmt.Errorf("request %s of session %s: %w", requestID, sessionID, ErrNoPendingRequest)
	}
	ch <- a
	return nil
}
