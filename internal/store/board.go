package store

import (
	"context"
	"time"
)

// Board is what a console shows of a tenant's sessions, read from the
// store so that every replica shows the same: the tenant's sessions, and
// per session a bounded feed of what its calls did and the permission
// requests that wait for an answer. The entries' data is opaque to the
// store (the console encodes it).
type Board interface {
	// ListSessions returns up to limit sessions of tenant, newest first.
	// Sessions that expired or were deleted are left out.
	ListSessions(ctx context.Context, tenant string, limit int) ([]*Session, error)
	// AppendFeed adds entries to the end of the session's feed, numbered
	// on from the last entry's Seq; only the newest MaxFeedEntries are
	// kept. ErrNotFound when the session is absent.
	AppendFeed(ctx context.Context, sessionID string, data ...[]byte) error
	// ReadFeed returns the kept entries with Seq > after, oldest first.
	// When there are none it waits up to wait for one. A missing session
	// has an empty feed.
	ReadFeed(ctx context.Context, sessionID string, after int64, wait time.Duration) ([]FeedEntry, error)
	// PutAsk records a permission request that waits for an answer,
	// listed until DropAsk or until ttl has passed (a replica that died
	// while its call waited leaves no request listed for ever).
	// ErrNotFound when the session is absent.
	PutAsk(ctx context.Context, sessionID, requestID string, data []byte, ttl time.Duration) error
	// DropAsk removes a request; an absent one is no error.
	DropAsk(ctx context.Context, sessionID, requestID string) error
	// ListAsks returns the session's listed requests, oldest first.
	ListAsks(ctx context.Context, sessionID string) ([]PendingAsk, error)
}

// FeedEntry is one entry of a session's feed.
type FeedEntry struct {
	Seq  int64
	Data []byte
}

// PendingAsk is a listed permission request.
type PendingAsk struct {
	RequestID string
	Data      []byte
}

// MaxFeedEntries bounds a session's feed; MaxTenantSessions bounds how
// many sessions of one tenant ListSessions can see (the newest).
const (
	MaxFeedEntries    = 1000
	MaxTenantSessions = 10000
)
