package exec

import (
	"errors"
	"fmt"
	"sync"
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
}

// Pending holds the permission requests that running calls wait on. This
// in-process registry serves one replica; a shared one replaces it behind
// the same two methods.
type Pending struct {
	mu sync.Mutex
	m  map[pendingKey]chan Answer
}

type pendingKey struct{ session, request string }

// NewPending returns an empty registry.
func NewPending() *Pending { return &Pending{m: make(map[pendingKey]chan Answer)} }

// open registers a request; close must be called when the caller stops
// waiting, answered or not.
func (p *Pending) open(sessionID, requestID string) (<-chan Answer, func()) {
	ch := make(chan Answer, 1)
	k := pendingKey{sessionID, requestID}
	p.mu.Lock()
	p.m[k] = ch
	p.mu.Unlock()
	return ch, func() {
		p.mu.Lock()
		delete(p.m, k)
		p.mu.Unlock()
	}
}

// Resolve delivers an answer. Each request takes one answer; a second one,
// or one for an unknown request, is ErrNoPendingRequest.
func (p *Pending) Resolve(sessionID, requestID string, a Answer) error {
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
