package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// Offers are what a store can do beyond Store, for several replicas to
// share: main wires each one it finds into what needs it, and uses its
// one-replica stand-in (exec.NewPending, a local rate limiter, no Cancel
// fan-out, no readiness probe of the store) for a nil one. The memory
// store offers nothing: one replica needs none of it.
type Offers struct {
	// Pending opens a registry of permission requests that any replica
	// sharing the store can answer; ttl bounds the life of a request a
	// dead replica left open (it should exceed the ask timeout).
	Pending func(ttl time.Duration) PendingAsks
	// Cancels carries Cancel requests to the replica that runs the call.
	Cancels CancelChannel
	// Scripts is where the shared rate limiter runs (ratelimit.NewRedis):
	// every replica on it shares each tenant's limits.
	Scripts redis.Scripter
	// Pinger says whether the store answers; readiness follows it.
	Pinger Pinger
}

// PendingAsks is a registry of permission requests shared by replicas.
type PendingAsks interface {
	// Open registers a request; the channel carries its one answer and
	// is closed after close is called.
	Open(ctx context.Context, sessionID, requestID string) (answers <-chan Answer, close func(), err error)
	// Resolve answers a request, on whichever replica it waits;
	// ErrNoPending (wrapped) when none waits for it.
	Resolve(ctx context.Context, sessionID, requestID string, a Answer) error
}

// Answer is the answer to a permission request, as it travels to the
// replica that waits for it.
type Answer struct {
	Allow      bool   `json:"allow"`
	ForSession bool   `json:"for_session"`
	Message    string `json:"message,omitempty"`
	// Completion completes a delegated call (exec.Answer.Completion),
	// opaque here.
	Completion json.RawMessage `json:"completion,omitempty"`
}

// ErrNoPending: no replica waits for that permission request (answered
// already, timed out, its call was cancelled, or the ids are invalid).
var ErrNoPending = errors.New("no pending permission request")

// CancelChannel carries Cancel requests to every replica.
type CancelChannel interface {
	Publish(ctx context.Context, ref CallRef) error
	// Subscribe calls fn with each request until stop is called.
	Subscribe(ctx context.Context, fn func(CallRef)) (stop func(), err error)
}

// Pinger checks that a dependency answers.
type Pinger interface {
	Ping(ctx context.Context) error
}
