package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toold/toold/internal/store"
)

// ErrNoPending: no replica waits for that permission request (answered
// already, timed out, its call was cancelled, or the ids are invalid).
var ErrNoPending = store.ErrNoPending

// Answer is the answer to a permission request, as published to the
// replica that waits for it.
type Answer = store.Answer

// Pending lets a permission request that waits on one replica be answered
// through any replica. Keys, in the hash tag of the session:
//
//	<prefix>{s:<sid>}:pending:<rid>   string marker, TTL: the request is open
//	<prefix>{s:<sid>}:perm:<rid>      Pub/Sub channel the answer goes to
//
// The marker makes the answer exactly-once: Resolve publishes only when it
// deleted the marker. An answer published while the waiting replica's
// subscription is reconnecting is lost; the request then times out.
type Pending struct {
	s   *Store
	ttl time.Duration
}

// Pending returns the shared registry of permission requests on the client
// and prefix of s. ttl bounds the life of a marker whose replica died
// without closing it; it should exceed the ask timeout.
func (s *Store) Pending(ttl time.Duration) *Pending {
	if ttl < time.Millisecond {
		ttl = time.Millisecond
	}
	return &Pending{s: s, ttl: ttl}
}

// requestIDRe: permission requests' ids, and delegated calls' (dlg_,
// which wait for CompleteCall in the same registry).
var requestIDRe = regexp.MustCompile(`^(perm|dlg)_[0-9a-f]{24}$`)

// pendingKeys returns the marker key and the channel of a request.
func (p *Pending) pendingKeys(sessionID, requestID string) (marker, channel string, ok bool) {
	if !validID(sessionID) || !requestIDRe.MatchString(requestID) {
		return "", "", false
	}
	base := p.s.opts.KeyPrefix + "{s:" + sessionID + "}:"
	return base + "pending:" + requestID, base + "perm:" + requestID, true
}

// Open registers a request: it subscribes to the request's channel, then
// sets the marker. The first answer arrives on the returned channel, which
// is closed after close(). close must be called when the caller stops
// waiting; it unsubscribes and drops the marker.
func (p *Pending) Open(ctx context.Context, sessionID, requestID string) (<-chan Answer, func(), error) {
	marker, channel, ok := p.pendingKeys(sessionID, requestID)
	if !ok {
		return nil, nil, fmt.Errorf("permission request %q of session %q: invalid id", requestID, sessionID)
	}
	sub := p.s.c.Subscribe(ctx, channel)
	// Wait for the confirmation: only then can no answer be missed.
	if _, err := sub.Receive(ctx); err != nil {
		sub.Close()
		return nil, nil, unavailable(err)
	}
	if err := p.s.c.Set(ctx, marker, "1", p.ttl).Err(); err != nil {
		sub.Close()
		return nil, nil, unavailable(err)
	}
	msgs := sub.Channel()
	out := make(chan Answer, 1)
	go func() {
		defer close(out)
		for m := range msgs {
			var a Answer
			if json.Unmarshal([]byte(m.Payload), &a) != nil {
				continue // not ours: Resolve publishes only valid JSON
			}
			out <- a
			return
		}
	}()
	closeFn := func() {
		sub.Close()
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		// Best effort: the TTL drops a marker that stays behind.
		_ = p.s.c.Del(dctx, marker).Err()
	}
	return out, closeFn, nil
}

// Resolve delivers an answer to the replica that waits for the request:
// one script drops the marker and publishes when it did. A request that no
// replica waits for, or one answered already, is ErrNoPending.
func (p *Pending) Resolve(ctx context.Context, sessionID, requestID string, a Answer) error {
	marker, channel, ok := p.pendingKeys(sessionID, requestID)
	if !ok {
		return fmt.Errorf("permission request %q of session %q: %w", requestID, sessionID, ErrNoPending)
	}
	payload, err := json.Marshal(a)
	if err != nil {
		return err
	}
	n, err := scriptResolve.Run(ctx, p.s.c, []string{marker}, channel, payload).Int64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return unavailable(err)
	}
	if n != 1 {
		return fmt.Errorf("permission request %s of session %s: %w", requestID, sessionID, ErrNoPending)
	}
	return nil
}
