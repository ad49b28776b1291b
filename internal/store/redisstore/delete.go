package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/toold/toold/internal/store"
)

// DeleteSession deletes in bounded steps, so that a session with many call
// records neither outlasts the client's read timeout nor holds Redis (and
// with it every other session) for the whole of it:
//
//  1. scriptMarkDeleted, O(1): the session key becomes the deleted mark;
//     from here on every reader finds the session absent.
//  2. scriptPurgeCalls, repeated: at most Options.DeleteBatch call records
//     per step, until none is left.
//
// Every step is safe to run twice, which matters because go-redis resends a
// script whose reply it did not get (a read timeout): the mark carries a
// token of this call, so a resent first step still knows the delete as its
// own. A delete interrupted between steps leaves the mark and some records,
// which the next DeleteSession of the id finishes (it returns
// store.ErrDeleted); left alone, they expire with their TTLs.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	k, err := s.keys(id)
	if err != nil {
		return err
	}
	var tok [16]byte
	if _, err := rand.Read(tok[:]); err != nil {
		return fmt.Errorf("redis: delete token: %w", err)
	}
	keep := store.DeletedKeep.Milliseconds()
	feed, asks, askexp := k.board()
	r, err := scriptMarkDeleted.Run(ctx, s.c, append(k.all(), k.deleted, feed, asks, askexp, k.classifierDenials, k.notes()), s.ttlMs, keep, hex.EncodeToString(tok[:]), s.wakeChannel(), id).Int64Slice()
	if err != nil {
		return unavailable(err)
	}
	if len(r) != 2 {
		return unexpected(id, r)
	}
	if r[0] == 0 {
		return notFound(id)
	}
	if r[1] > 0 {
		if err := s.purgeCalls(ctx, k); err != nil {
			return err
		}
	}
	if r[0] == 2 {
		return fmt.Errorf("session %s: %w", id, store.ErrDeleted)
	}
	return nil
}

// purgeCalls drops the call records of a deleted session, one bounded step
// (one short script) at a time; other clients' commands run in between.
func (s *Store) purgeCalls(ctx context.Context, k keys) error {
	for {
		left, err := scriptPurgeCalls.Run(ctx, s.c, []string{k.session, k.calls}, k.base, s.opts.DeleteBatch).Int64()
		if err != nil {
			return unavailable(err)
		}
		if s.afterPurgeStep != nil {
			s.afterPurgeStep(left)
		}
		if left == 0 {
			return nil
		}
	}
}

// DeletedSession reads the session JSON that DeleteSession left in the
// mark; it refreshes nothing.
func (s *Store) DeletedSession(ctx context.Context, id string) (*store.Session, error) {
	k, err := s.keys(id)
	if err != nil {
		return nil, err
	}
	b, err := s.c.HGet(ctx, k.deleted, "s").Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		return nil, notFound(id)
	case err != nil:
		return nil, unavailable(err)
	}
	sess, err := decodeSession(b)
	if err != nil {
		return nil, unavailable(fmt.Errorf("session %s: %w", id, err))
	}
	return sess, nil
}

// SessionExists is one EXISTS, which leaves the TTL as it is.
func (s *Store) SessionExists(ctx context.Context, id string) (bool, error) {
	k, err := s.keys(id)
	if err != nil {
		return false, err
	}
	n, err := s.c.Exists(ctx, k.session).Result()
	if err != nil {
		return false, unavailable(err)
	}
	return n == 1, nil
}
