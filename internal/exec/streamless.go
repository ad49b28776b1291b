package exec

import (
	"context"
	"errors"
	"fmt"

	"github.com/toold/toold/internal/store"
)

// StreamlessSink is a Sink that cannot carry what a call would wait on:
// the unary Call RPC's, which answers once, after every call. A call of a
// streamless batch that would wait for a person's permission answer or
// for the orchestrator's completion does not start (NeedsStreamError).
type StreamlessSink interface {
	Sink
	Streamless()
}

func isStreamless(s Sink) bool {
	_, ok := s.(StreamlessSink)
	return ok
}

// errNeedsStream stops a call of a streamless batch before it waits for
// an answer the sink cannot ask for (after the PermissionRequest hooks,
// or once a delegated tool has no answer of its own). Like errNeedsClaim it passes through
// the stages untouched, and the call is released, not journaled.
var errNeedsStream = errors.New("the call needs an Execute stream")

// passesThrough reports whether err is one that the stages hand back
// unchanged: it stops the call's run rather than being its outcome.
func passesThrough(err error) bool {
	return errors.Is(err, errNeedsClaim) || errors.Is(err, errNeedsStream)
}

// NeedsStreamError: a call of a streamless batch would have waited for
// an answer, so neither it nor the calls after it ran; they are released,
// so that the same request sent with Execute runs them (and replays the
// calls that finished before).
type NeedsStreamError struct {
	ToolUseID string
	Tool      string
	// Delegated: the call waits for CompleteCall; otherwise it waits for
	// a permission answer.
	Delegated bool
}

func (e *NeedsStreamError) Error() string {
	what := "would wait for a permission answer"
	if e.Delegated {
		what = "is completed by the orchestrator (CompleteCall)"
	}
	return fmt.Sprintf("call %s (%s) %s, which a unary Call cannot carry: send the request with Execute; the calls that finished are replayed, the rest run", e.ToolUseID, e.Tool, what)
}

// abandon releases a claimed call that did not start, without a result:
// its events are dropped and a retry runs it.
func (l *callLog) abandon(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	l.flushMu.Lock()
	l.mu.Lock()
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	l.done = true
	l.buf = nil
	l.mu.Unlock()
	err := l.e.cfg.Store.ReleaseCall(ctx, l.ref, l.owner)
	l.flushMu.Unlock()
	l.e.leases.drop(l.owner, l.ref)
	if err != nil {
		l.e.cfg.Logger.Error("releasing a call failed", "session_id", l.ref.SessionID, "tool_use_id", l.ref.ToolUseID, "error", err)
	}
}

// releaseRest releases the owned calls of a batch from index from on,
// which did not run because an earlier call needed a stream.
func (e *Engine) releaseRest(ctx context.Context, calls []*Call, claimed []store.ClaimResult, owner string, from int) {
	ctx = context.WithoutCancel(ctx)
	for i := from; i < len(calls); i++ {
		if !claimed[i].Owned() {
			continue
		}
		ref := store.CallRef{SessionID: calls[i].Session.ID, ToolUseID: calls[i].ToolUseID}
		if err := e.cfg.Store.ReleaseCall(ctx, ref, owner); err != nil {
			e.cfg.Logger.Error("releasing a call failed", "session_id", ref.SessionID, "tool_use_id", ref.ToolUseID, "error", err)
		}
		e.leases.drop(owner, ref)
	}
}
