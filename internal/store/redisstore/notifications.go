package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toold/toold/internal/store"
)

// A session's notifications are a stream, <prefix>{s:<id>}:notes, capped at
// store.MaxNotifications entries (XADD MAXLEN drops the oldest). A reader
// that finds nothing new waits on this replica's waker (notewaker.go), not
// on a blocking XREAD: a watch may stay open for hours, and each blocking
// read would hold a pool connection for its whole wait.

func (k keys) notes() string { return k.base + "notes" }

func (s *Store) AddNotification(ctx context.Context, id string, n store.Notification) (int64, error) {
	if err := store.CheckNotification(n); err != nil {
		return 0, err
	}
	k, err := s.keys(id)
	if err != nil {
		return 0, err
	}
	data, err := json.Marshal(n)
	if err != nil {
		return 0, fmt.Errorf("redis: encode notification: %w", err)
	}
	seq, err := scriptAddNote.Run(ctx, s.c, []string{k.session, k.stamps, k.notes()},
		s.ttlMs, store.MaxNotifications, data, s.wakeChannel(), id).Int64()
	switch {
	case errors.Is(err, redis.Nil):
		return 0, notFound(id)
	case err != nil:
		return 0, unavailable(err)
	}
	return seq, nil
}

// ReadNotifications reads the stream; with nothing new it waits for this
// replica's waker to say that the session has a new one (or, should a
// wake have been lost, for the waker's poll interval) and reads again.
func (s *Store) ReadNotifications(ctx context.Context, id string, after int64, limit int, wait time.Duration) (store.NotificationPage, error) {
	k, err := s.keys(id)
	if err != nil {
		return store.NotificationPage{}, err
	}
	if limit <= 0 || limit > store.MaxNotifications {
		limit = store.MaxNotifications
	}
	after = max(after, 0)
	deadline := time.Now().Add(wait)
	for {
		// Registered before the read, so that a notification added
		// between the read and the wait still wakes it.
		woken, done := s.waker().register(id)
		page, err := s.readNotes(ctx, k, id, after, limit)
		left := time.Until(deadline)
		if err != nil || len(page.Notifications) > 0 || left <= 0 {
			done()
			return page, err
		}
		t := time.NewTimer(min(left, notePoll))
		select {
		case <-ctx.Done():
			t.Stop()
			done()
			return store.NotificationPage{}, ctx.Err()
		case <-woken:
		case <-t.C:
		}
		t.Stop()
		done()
	}
}

func (s *Store) readNotes(ctx context.Context, k keys, id string, after int64, limit int) (store.NotificationPage, error) {
	v, err := scriptReadNotes.Run(ctx, s.c, []string{k.session, k.stamps, k.notes()}, s.ttlMs, after, limit).Slice()
	switch {
	case errors.Is(err, redis.Nil):
		return store.NotificationPage{}, notFound(id)
	case err != nil:
		if ctx.Err() != nil {
			return store.NotificationPage{}, ctx.Err()
		}
		return store.NotificationPage{}, unavailable(err)
	}
	var page store.NotificationPage
	for _, e := range v {
		n, err := decodeNote(e)
		if err != nil {
			return store.NotificationPage{}, unavailable(fmt.Errorf("session %s: notification: %w", id, err))
		}
		page.Notifications = append(page.Notifications, n)
	}
	// Seqs are consecutive but for the oldest ones the cap dropped: a
	// first entry past after+1 shows how many of those the reader missed.
	if len(page.Notifications) > 0 {
		page.Dropped = max(0, page.Notifications[0].Seq-after-1)
	}
	return page, nil
}

// decodeNote reads one XRANGE entry from a script's reply: {id, {"d", data}}.
func decodeNote(e any) (store.Notification, error) {
	var n store.Notification
	pair, ok := e.([]any)
	if !ok || len(pair) != 2 {
		return n, fmt.Errorf("unexpected entry %T", e)
	}
	id, _ := pair[0].(string)
	fields, _ := pair[1].([]any)
	if len(id) < 3 || id[:2] != "0-" || len(fields) != 2 || fields[0] != "d" {
		return n, fmt.Errorf("unexpected entry %v", pair[0])
	}
	seq, err := strconv.ParseInt(id[2:], 10, 64)
	if err != nil {
		return n, fmt.Errorf("entry id %q: %w", id, err)
	}
	data, _ := fields[1].(string)
	if err := json.Unmarshal([]byte(data), &n); err != nil {
		return n, err
	}
	n.Seq = seq
	return n, nil
}
