package exec

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/toold/toold/internal/store"
)

// ErrCancelRequested is why a call that ToolService.Cancel named stops.
// Such a call ends with the plain cancelled result and, unlike a call whose
// request went away, is journaled even when it had not started: a retry
// gets the cancelled result rather than running it.
var ErrCancelRequested = errors.New("the call was cancelled by request")

// CancelState is what Cancel found for one call.
type CancelState int

const (
	// CancelRequested: the call was running or waiting its turn; it stops
	// and ends with a cancelled result.
	CancelRequested CancelState = iota + 1
	// CancelFinished: the call had its result already; nothing changed.
	CancelFinished
	// CancelNotStarted: the session has no record of the call (not sent
	// yet, or its record expired). A call with that id that arrives soon
	// after ends cancelled without running.
	CancelNotStarted
)

// CancelBus carries cancel requests to every replica, this one included,
// so that a call is cancelled wherever it runs. Without one, Cancel
// reaches this replica's calls only (enough with one replica).
type CancelBus interface {
	// Publish asks every replica to cancel the call.
	Publish(ctx context.Context, ref store.CallRef) error
}

// cancelMemory is how long a cancel request that found no running call on
// a replica is remembered there: the call may be on its way (its request
// not yet claimed, or claimed a moment before the cancel was heard).
const cancelMemory = 2 * time.Minute

// maxCancelMemory bounds the remembered requests.
const maxCancelMemory = 10_000

// callCancels is this replica's registry of cancellable calls.
type callCancels struct {
	mu sync.Mutex
	// live lists the runs of each call (one, but for a retry that
	// follows or a claimed run after an unclaimed one), linked by next.
	live map[store.CallRef]*liveCall
	gone map[store.CallRef]time.Time // cancel requests not matched yet
}

type liveCall struct {
	cancel context.CancelCauseFunc
	next   *liveCall
}

func newCallCancels() *callCancels {
	return &callCancels{live: make(map[store.CallRef]*liveCall), gone: make(map[store.CallRef]time.Time)}
}

// track derives the context one call runs under; stop must be called when
// the call has its result. A call that a remembered request named is
// cancelled at once.
func (r *callCancels) track(ctx context.Context, ref store.CallRef) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	lc := &liveCall{cancel: cancel}
	r.mu.Lock()
	lc.next = r.live[ref]
	r.live[ref] = lc
	at, asked := r.gone[ref]
	if asked {
		delete(r.gone, ref)
	}
	r.mu.Unlock()
	if asked && time.Since(at) < cancelMemory {
		cancel(ErrCancelRequested)
	}
	return ctx, func() {
		r.mu.Lock()
		r.untrack(ref, lc)
		r.mu.Unlock()
		cancel(nil)
	}
}

// untrack takes lc off ref's list; r.mu is held.
func (r *callCancels) untrack(ref store.CallRef, lc *liveCall) {
	head := r.live[ref]
	if head == lc {
		if lc.next == nil {
			delete(r.live, ref)
		} else {
			r.live[ref] = lc.next
		}
		return
	}
	for p := head; p != nil; p = p.next {
		if p.next == lc {
			p.next = lc.next
			return
		}
	}
}

// cancel cancels the call if it runs here, and otherwise remembers the
// request for a while. It reports whether a call was found.
func (r *callCancels) cancel(ref store.CallRef) bool {
	r.mu.Lock()
	calls := r.live[ref]
	found := calls != nil
	if !found {
		now := time.Now()
		if len(r.gone) >= maxCancelMemory {
			for k, at := range r.gone {
				if now.Sub(at) >= cancelMemory {
					delete(r.gone, k)
				}
			}
			for k := range r.gone {
				if len(r.gone) < maxCancelMemory {
					break
				}
				delete(r.gone, k)
			}
		}
		r.gone[ref] = now
	}
	var fns []context.CancelCauseFunc
	for lc := calls; lc != nil; lc = lc.next {
		fns = append(fns, lc.cancel)
	}
	r.mu.Unlock()
	for _, f := range fns {
		f(ErrCancelRequested)
	}
	return found
}

// cancelRequested reports whether ctx ended because Cancel named its call.
func cancelRequested(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), ErrCancelRequested)
}

// Cancel cancels calls of the session by tool_use_id, wherever they run:
// a running call is stopped (its processes killed) and ends with its
// cancelled result, journaled once, on every stream that follows it; a call
// of a batch that has not reached it yet ends cancelled without running. It
// is idempotent: a call that has its result is left alone, and asking again
// changes nothing. It returns what it found for each id, in order, without
// waiting for the calls to stop.
func (e *Engine) Cancel(ctx context.Context, sessionID string, toolUseIDs []string) ([]CancelState, error) {
	if err := e.checkOwner(ctx, sessionID); err != nil {
		return nil, err
	}
	out := make([]CancelState, len(toolUseIDs))
	for i, id := range toolUseIDs {
		ref := store.CallRef{SessionID: sessionID, ToolUseID: id}
		// No events are wanted: only the call's status.
		_, st, _, err := e.cfg.Store.ReadEvents(ctx, ref, 1<<50, 0)
		if err != nil {
			return nil, err
		}
		if st == store.CallDone {
			out[i] = CancelFinished
			continue
		}
		// Running, or no record: a read-only call runs before it is
		// recorded, and a call may be on its way. Every replica hears it.
		found := e.CancelLocal(ref)
		if e.cfg.Cancels != nil {
			if err := e.cfg.Cancels.Publish(ctx, ref); err != nil {
				return nil, err
			}
		}
		if st == store.CallRunning || found {
			out[i] = CancelRequested
		} else {
			out[i] = CancelNotStarted
		}
	}
	return out, nil
}

// CancelLocal cancels the call if it runs on this replica, and otherwise
// remembers the request for a while in case the call arrives. The
// CancelBus's subscriber calls it for every request any replica publishes.
// It reports whether the call was found here.
func (e *Engine) CancelLocal(ref store.CallRef) bool { return e.cancels.cancel(ref) }
