package exec

import (
	"context"
	"errors"
	"fmt"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// followEnd says how following a call ended.
type followEnd int

const (
	followFinal  followEnd = iota // the final event was forwarded
	followAbsent                  // the call has no record (released, expired)
	followFailed                  // reading failed; an error was returned
)

// follow forwards a call's stored events after seq `after`, marked
// replayed, and waits for live ones until the final event. A call whose
// owner's lease lapsed is finished here with an "outcome unknown" result:
// it may have partly run, so it is never run again.
func (e *Engine) follow(ctx context.Context, ref store.CallRef, after int64, sink Sink) (followEnd, error) {
	wait := e.cfg.Journal.FollowWait
	for {
		evs, st, expired, err := e.cfg.Store.ReadEvents(ctx, ref, after, wait)
		if err != nil {
			return followFailed, err
		}
		for _, se := range evs {
			ev, err := StoredEvent(se)
			if err != nil {
				return followFailed, fmt.Errorf("stored event %d of call %s: %w: %w", se.Seq, ref.ToolUseID, store.ErrUnavailable, err)
			}
			ev.ToolUseID, ev.Seq, ev.Replayed = ref.ToolUseID, se.Seq, true
			sink.Emit(ev)
			after = se.Seq
			if se.Final {
				return followFinal, nil
			}
		}
		switch {
		case st == store.CallAbsent:
			return followAbsent, nil
		case expired:
			e.abandon(ctx, ref, after)
		case st == store.CallDone && len(evs) == 0:
			// Done, yet nothing after `after` and no final seen: the
			// record is being replaced or dropped; read again.
			if ctx.Err() != nil {
				return followFailed, ctx.Err()
			}
		}
	}
}

// abandon finishes a call whose owner stopped renewing its lease.
func (e *Engine) abandon(ctx context.Context, ref store.CallRef, last int64) {
	res := tool.ErrorResult(tool.KindInternal, "The toold replica running this call stopped before the call finished, so its outcome is unknown: it may have partly run. Check its effects before trying again with a new tool_use_id.")
	ev := Event{ToolUseID: ref.ToolUseID, Seq: last + 1, Result: &Outcome{Result: res}}
	data, err := encodeEvent(ev)
	if err != nil {
		e.cfg.Logger.Error("encoding an abandoned call's result failed", "error", err)
		return
	}
	owner := e.newOwner()
	err = e.cfg.Store.FinishCall(context.WithoutCancel(ctx), ref, owner,
		[]store.CallEvent{{Seq: ev.Seq, Data: data, Final: true}}, store.Effects{}, e.cfg.Journal.Times)
	if err != nil && !errors.Is(err, store.ErrNotOwner) {
		e.cfg.Logger.Error("finishing an abandoned call failed", "session_id", ref.SessionID, "tool_use_id", ref.ToolUseID, "error", err)
		return
	}
	e.cfg.Logger.Warn("call abandoned by its replica finished as unknown", "session_id", ref.SessionID, "tool_use_id", ref.ToolUseID)
}

// Attach forwards the events of one call after seq `after` and follows it
// to its result. ErrNoSuchCall when the session has no record of it.
func (e *Engine) Attach(ctx context.Context, sessionID, toolUseID string, after int64, sink Sink) error {
	if err := e.checkOwner(ctx, sessionID); err != nil {
		return err
	}
	ref := store.CallRef{SessionID: sessionID, ToolUseID: toolUseID}
	end, err := e.follow(ctx, ref, after, sink)
	switch {
	case err != nil:
		return err
	case end == followAbsent:
		return fmt.Errorf("call %s of session %s: %w (never sent, cancelled before it started, or its result expired)", toolUseID, sessionID, ErrNoSuchCall)
	}
	return nil
}

// runOrFollow handles a call this batch does not own: it follows the
// owner's run, and when the call turns out to have no record (its owner
// released it unstarted) claims it and runs it here.
func (e *Engine) runOrFollow(ctx context.Context, c *Call, prepErr error, owner string) {
	ref := store.CallRef{SessionID: c.Session.ID, ToolUseID: c.ToolUseID}
	for {
		end, err := e.follow(ctx, ref, 0, c.Sink)
		switch {
		case end == followFinal:
			return
		case err != nil:
			e.unrecorded(ctx, c, err)
			return
		}
		_, res, err := e.cfg.Store.BeginCalls(ctx, ref.SessionID, owner, []store.Claim{{ToolUseID: c.ToolUseID, Fingerprint: fingerprint(c.Request)}}, e.cfg.Journal.Times)
		if err != nil {
			e.unrecorded(ctx, c, err)
			return
		}
		if res[0].Owned() {
			e.one(ctx, c, prepErr, owner)
			return
		}
	}
}

// unrecorded reports a failure to the client without storing it: the call
// itself is someone else's.
func (e *Engine) unrecorded(ctx context.Context, c *Call, err error) {
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	c.Sink.Emit(Event{ToolUseID: c.ToolUseID, Result: &Outcome{Result: ResultFromError(err)}})
}
