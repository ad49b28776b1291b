package redisstore

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// notePoll bounds one wait of a notification reader: Redis Pub/Sub drops
// a message published while this replica's subscription reconnects, and
// the read that follows the poll finds what that message announced.
const notePoll = 2 * time.Second

// noteWaker wakes this replica's waiting notification readers when any
// replica adds a notification to their session: scriptAddNote publishes
// the session id on <prefix>notes, and one subscription per replica (made
// at the first wait) fans it out. Readers then read the stream again, so
// a wake carries no data and a spurious one costs one read.
type noteWaker struct {
	c       redis.UniversalClient
	channel string

	mu      sync.Mutex
	waiters map[string]map[chan struct{}]struct{}
	sub     *redis.PubSub
	closed  bool
	wg      sync.WaitGroup
}

func (s *Store) wakeChannel() string { return s.opts.KeyPrefix + "notes" }

// waker returns the store's waker, made at the first use.
func (s *Store) waker() *noteWaker {
	s.wakeOnce.Do(func() {
		s.wake = &noteWaker{c: s.c, channel: s.wakeChannel(), waiters: make(map[string]map[chan struct{}]struct{})}
	})
	return s.wake
}

// register adds a waiter for the session: the channel is closed at the
// session's next notification. done removes it; call it in any case.
func (w *noteWaker) register(sessionID string) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		// The store is closing: the reader polls until its wait ends.
		return ch, func() {}
	}
	w.subscribeLocked()
	set := w.waiters[sessionID]
	if set == nil {
		set = make(map[chan struct{}]struct{})
		w.waiters[sessionID] = set
	}
	set[ch] = struct{}{}
	return ch, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if set := w.waiters[sessionID]; set != nil {
			delete(set, ch)
			if len(set) == 0 {
				delete(w.waiters, sessionID)
			}
		}
	}
}

// subscribeLocked starts the subscription once. go-redis keeps it
// connected (resubscribing after a reconnection) until it is closed.
func (w *noteWaker) subscribeLocked() {
	if w.sub != nil {
		return
	}
	w.sub = w.c.Subscribe(context.Background(), w.channel)
	msgs := w.sub.Channel()
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		for m := range msgs {
			w.wakeAll(m.Payload)
		}
	}()
}

func (w *noteWaker) wakeAll(sessionID string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for ch := range w.waiters[sessionID] {
		close(ch)
	}
	delete(w.waiters, sessionID)
}

// close ends the subscription; waiting readers fall back on their poll.
func (w *noteWaker) close() {
	w.mu.Lock()
	w.closed = true
	sub := w.sub
	w.mu.Unlock()
	if sub != nil {
		sub.Close()
		w.wg.Wait()
	}
}
