package memstore

import (
	"context"
	"sort"
	"time"

	"github.com/toold/toold/internal/store"
)

// board is an entry's part of store.Board: its feed and listed asks.
type board struct {
	feed    []store.FeedEntry
	feedSeq int64
	asks    map[string]listedAsk
	askSeq  int64
}

type listedAsk struct {
	data    []byte
	expires time.Time
	order   int64
}

func (m *Store) ListSessions(_ context.Context, tenant string, limit int) ([]*store.Session, error) {
	m.mu.RLock()
	var out []*store.Session
	for _, e := range m.sessions {
		if e.s.Tenant == tenant {
			out = append(out, e.session())
		}
	}
	m.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.After(out[j].CreatedAt)
		}
		return out[i].ID < out[j].ID
	})
	if limit > store.MaxTenantSessions || limit <= 0 {
		limit = store.MaxTenantSessions
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (m *Store) AppendFeed(_ context.Context, id string, data ...[]byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.sessions[id]
	if !ok {
		return notFound(id)
	}
	for _, d := range data {
		e.board.feedSeq++
		e.board.feed = append(e.board.feed, store.FeedEntry{Seq: e.board.feedSeq, Data: append([]byte(nil), d...)})
	}
	// Trimmed when twice the bound, so that the copy is paid once per
	// MaxFeedEntries appends; readers see only the newest MaxFeedEntries.
	if n := len(e.board.feed); n >= 2*store.MaxFeedEntries {
		e.board.feed = append([]store.FeedEntry(nil), e.board.feed[n-store.MaxFeedEntries:]...)
	}
	m.wakeFeeds()
	return nil
}

// wakeFeeds wakes every waiting ReadFeed; the caller holds the write lock.
func (m *Store) wakeFeeds() {
	if m.feedWake != nil {
		close(m.feedWake)
	}
	m.feedWake = make(chan struct{})
}

func (m *Store) ReadFeed(ctx context.Context, id string, after int64, wait time.Duration) ([]store.FeedEntry, error) {
	evs, wake, ok := m.readFeed(id, after)
	if len(evs) > 0 || !ok || wait <= 0 {
		return evs, nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
			return nil, nil
		case <-wake:
		}
		if evs, wake, ok = m.readFeed(id, after); len(evs) > 0 || !ok {
			return evs, nil
		}
	}
}

// readFeed returns the entries after after, the channel closed by the next
// append, and whether the session exists.
func (m *Store) readFeed(id string, after int64) ([]store.FeedEntry, <-chan struct{}, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.feedWake == nil {
		m.feedWake = make(chan struct{})
	}
	e, ok := m.sessions[id]
	if !ok {
		return nil, nil, false
	}
	var out []store.FeedEntry
	kept := e.board.feed
	if n := len(kept); n > store.MaxFeedEntries {
		kept = kept[n-store.MaxFeedEntries:]
	}
	for _, f := range kept {
		if f.Seq > after {
			out = append(out, store.FeedEntry{Seq: f.Seq, Data: append([]byte(nil), f.Data...)})
		}
	}
	return out, m.feedWake, true
}

func (m *Store) PutAsk(_ context.Context, id, requestID string, data []byte, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.sessions[id]
	if !ok {
		return notFound(id)
	}
	if e.board.asks == nil {
		e.board.asks = make(map[string]listedAsk)
	}
	order := e.board.askSeq + 1
	if old, ok := e.board.asks[requestID]; ok {
		order = old.order
	} else {
		e.board.askSeq = order
	}
	e.board.asks[requestID] = listedAsk{data: append([]byte(nil), data...), expires: m.now().Add(ttl), order: order}
	return nil
}

func (m *Store) DropAsk(_ context.Context, id, requestID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.sessions[id]; ok {
		delete(e.board.asks, requestID)
	}
	return nil
}

func (m *Store) ListAsks(_ context.Context, id string) ([]store.PendingAsk, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.sessions[id]
	if !ok {
		return nil, nil
	}
	now := m.now()
	type item struct {
		a     store.PendingAsk
		order int64
	}
	var items []item
	for rid, a := range e.board.asks {
		if !now.Before(a.expires) {
			delete(e.board.asks, rid)
			continue
		}
		items = append(items, item{store.PendingAsk{RequestID: rid, Data: append([]byte(nil), a.data...)}, a.order})
	}
	sort.Slice(items, func(i, j int) bool { return items[i].order < items[j].order })
	out := make([]store.PendingAsk, len(items))
	for i, it := range items {
		out[i] = it.a
	}
	return out, nil
}
