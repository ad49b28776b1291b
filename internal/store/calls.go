package store

import (
	"context"
	"errors"
	"time"
)

// The call journal makes a tool call run at most once per (session,
// tool_use_id) and keeps its events, so that a retry gets the stored
// outcome and a client can resume a broken stream from any replica.
//
// A call's life: BeginCalls claims it for an owner (one batch on one
// replica) with a lease; the owner appends events while it runs, renews the
// lease while it runs long, and FinishCall stores the last events, the
// result and the call's effects on the session in one atomic step. A call
// that was cancelled before it started is released instead, so that a retry
// may run it. A claim whose owner's lease lapsed without a result belongs
// to a replica that died: anyone may finish it (with an "outcome unknown"
// result), never run it again.

// CallStatus is where a call is in its life.
type CallStatus int

const (
	// CallAbsent: no record; the call never ran, was released, or its
	// record expired.
	CallAbsent CallStatus = iota
	// CallRunning: claimed and not finished.
	CallRunning
	// CallDone: finished; its events end with the final one.
	CallDone
)

func (s CallStatus) String() string {
	switch s {
	case CallRunning:
		return "running"
	case CallDone:
		return "done"
	default:
		return "absent"
	}
}

// ErrCallConflict: the tool_use_id was used in the session for a call with
// other content (a different tool or input).
var ErrCallConflict = errors.New("tool_use_id already used for a different call")

// ErrNotOwner: the call is claimed by another owner whose lease has not
// lapsed, or is no longer running.
var ErrNotOwner = errors.New("call not owned")

// Claim asks for one call of a batch.
type Claim struct {
	ToolUseID string
	// Fingerprint identifies the call's content (tool and input), so that a
	// retry can be told from a reuse of the id for something else.
	Fingerprint string
}

// ClaimResult is what BeginCalls found for one claim.
type ClaimResult struct {
	// Status is CallAbsent when the claim succeeded: the caller owns the
	// call and must run it and then finish or release it. Otherwise the
	// call is someone else's (CallRunning) or finished (CallDone).
	Status CallStatus
}

// Owned reports whether the claim made the caller the call's owner.
func (r ClaimResult) Owned() bool { return r.Status == CallAbsent }

// CallEvent is one stored event of a call. Data is opaque to the store.
type CallEvent struct {
	Seq int64
	// Data is the event's bytes. An event the engine hands over may come
	// as a Value instead, which encodes itself only when a store needs
	// bytes: a store that keeps events in memory keeps the Value and hands
	// it back as it is (the engine never changes an event it stored).
	Data  []byte
	Value EventValue
	// Final marks the result: the last event of a call.
	Final bool
}

// EventValue is an event that encodes itself on demand.
type EventValue interface {
	// EncodeEvent returns the event's bytes, or nil when it cannot be
	// encoded (the store then leaves it out, as one it never got).
	EncodeEvent() []byte
}

// Bytes is the event's bytes: Data, or its Value encoded; nil when there
// are none.
func (e CallEvent) Bytes() []byte {
	if e.Data != nil || e.Value == nil {
		return e.Data
	}
	return e.Value.EncodeEvent()
}

// Effects are the changes a call makes to its session's state, applied
// together with its result. Reads holds the stamps of files read or
// written; Cwd, when not empty, is the new current directory; Blobs are
// values stored by key (a todo list, a large result).
type Effects struct {
	Reads map[string]FileStamp
	Cwd   string
	Blobs map[string][]byte
}

// CallTimes are the lifetimes of call records.
type CallTimes struct {
	// Lease is how long a claim stays its owner's without renewal.
	Lease time.Duration
	// Keep is how long a record (and its events) is kept, counted from the
	// claim and again from the finish.
	Keep time.Duration
}

// CommitResult is what CommitCall did.
type CommitResult int

const (
	// Committed: the call's record was created, done, with its events and
	// effects.
	Committed CommitResult = iota
	// CommitStale: the session changed since the ETag was read; nothing
	// was stored.
	CommitStale
	// CommitExists: the call has a record already (another run of it);
	// nothing was stored.
	CommitExists
)

// CallRef names one call.
type CallRef struct {
	SessionID string
	ToolUseID string
}

// Journal is the call journal; every Store implements it.
type Journal interface {
	// BeginCalls returns the session, with its idle TTL refreshed, and
	// claims every call for owner in one atomic step. When any claim
	// conflicts (ErrCallConflict, wrapped with the tool_use_id), nothing is
	// claimed. A claim already held by the same owner counts as made (a
	// retried request). ErrNotFound when the session is absent.
	BeginCalls(ctx context.Context, sessionID, owner string, claims []Claim, t CallTimes) (*Session, []ClaimResult, error)
	// AppendEvents stores events of a running call owned by owner.
	AppendEvents(ctx context.Context, ref CallRef, owner string, evs []CallEvent) error
	// FinishCall stores the last events (the final one last), applies the
	// effects to the session and marks the call done, atomically. The
	// caller must own the call, or its owner's lease must have lapsed
	// (ErrNotOwner otherwise, and nothing changes).
	FinishCall(ctx context.Context, ref CallRef, owner string, evs []CallEvent, fx Effects, t CallTimes) error
	// CommitCall records a call that ran without a claim, in one atomic
	// step: only if the session's ETag is still etag and the call has no
	// record, it creates the record done, with the events (the final one
	// last) and the effects. It serves calls that may safely run twice
	// (read-only ones): they run first and are recorded after, so that the
	// call costs one round trip. ErrCallConflict when a record of the id has
	// another fingerprint; ErrNotFound when the session is absent.
	CommitCall(ctx context.Context, ref CallRef, fingerprint, etag string, evs []CallEvent, fx Effects, t CallTimes) (CommitResult, error)
	// ReleaseCall drops owner's claim of a call that never started, with
	// its events; a call owned by another owner is left alone.
	ReleaseCall(ctx context.Context, ref CallRef, owner string) error
	// RenewLeases extends the leases of running calls owned by owner.
	RenewLeases(ctx context.Context, owner string, refs []CallRef, lease time.Duration) error
	// ReadEvents returns the stored events with Seq > after, in order, and
	// the call's status. When there are none and the call runs, it waits up
	// to wait for more. expired reports a running call whose owner's lease
	// has lapsed.
	ReadEvents(ctx context.Context, ref CallRef, after int64, wait time.Duration) (evs []CallEvent, st CallStatus, expired bool, err error)
}

// MaxCallEvents bounds the events kept of one call: the oldest progress
// events are dropped first, the final one never. A call that prints for
// hours must not fill the store; the result carries the output anyway.
const MaxCallEvents = 2048
