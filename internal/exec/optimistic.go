package exec

import (
	"context"
	"errors"
	"time"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// errNeedsClaim stops a call's unclaimed run: it needs something an
// unclaimed run may not do (ask a person), so it is run again, claimed.
var errNeedsClaim = errors.New("the call needs a claim")

// unclaimed runs a batch of repeatable calls without claiming them, on the
// session as this replica last read it, and records each with CommitCall:
// one round trip per call. It returns the calls that must go the claimed
// way instead: all of them when one is not repeatable (with the batch as
// it prepared it, so that the claimed way need not prepare it again), and
// those that asked, or ran on a session that has changed since.
func (e *Engine) unclaimed(ctx context.Context, sess *store.Session, reqs []Request, sink Sink) ([]Request, *prepared, error) {
	files, err := e.files.get(sess)
	if err != nil {
		return reqs, nil, nil
	}
	calls := make([]*Call, len(reqs))
	prepErr := make([]error, len(reqs))
	repeatable := true
	for i, r := range reqs {
		c := &Call{Request: r, Session: sess, Files: files, Sink: sink, unclaimed: true}
		if _, prepErr[i] = e.prepare(ctx, c); prepErr[i] == nil && !c.Invocation.Traits().Repeatable {
			repeatable = false
		}
		calls[i] = c
	}
	if !repeatable {
		return reqs, &prepared{sess: sess, calls: calls, errs: prepErr}, nil
	}
	ctx, done := e.active.add(ctx, sess.ID)
	defer done()

	retry := make([]bool, len(calls))
	errs := make([]error, len(calls))
	e.bounded(len(calls), func(i int) {
		retry[i], errs[i] = e.runUnclaimed(ctx, calls[i], prepErr[i])
	})
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	// The calls run again keep the model's order.
	var again []Request
	for i, r := range reqs {
		if retry[i] {
			again = append(again, r)
		}
	}
	if len(again) > 0 {
		e.sessions.drop(sess.ID)
	}
	return again, nil, nil
}

// runUnclaimed runs one call with its events held back, then records it.
// retry: the call must run again, claimed. An error is the store's: the
// request fails as it would had the session not been cached.
func (e *Engine) runUnclaimed(ctx context.Context, c *Call, prepErr error) (retry bool, err error) {
	out := c.Sink
	ctx, stop := e.cancels.track(ctx, store.CallRef{SessionID: c.Session.ID, ToolUseID: c.ToolUseID})
	defer stop()
	c.started = time.Now()
	log := e.newCallLog(c.Session.ID, c.ToolUseID, "", out)
	log.hold = true
	c.Sink, c.log = log, log
	var res *tool.Result
	runErr := prepErr
	if runErr == nil {
		res, runErr = e.safeRun(ctx, c)
	}
	if errors.Is(runErr, errNeedsClaim) {
		return true, nil
	}
	res = e.shapeCall(ctx, c, log, res, runErr)
	final := Event{ToolUseID: c.ToolUseID, Result: &Outcome{Result: res, Duration: time.Since(c.started)}}
	if res.Kind == tool.KindCancelled && !cancelRequested(ctx) {
		// Nothing to record: the request is going away. (A call Cancel
		// named is recorded cancelled, as a claimed one is.)
		log.release(final)
		return false, nil
	}
	var (
		r         store.CommitResult
		commitErr error
	)
	e.persisted(ctx, c, res, func(ctx context.Context) bool {
		r, commitErr = log.commit(ctx, final, fingerprint(c.Request), c.Session.ETag)
		return commitErr == nil && r == store.Committed
	})
	e.storeFailed(ctx, "commit_call", commitErr)
	switch {
	case commitErr != nil:
		return false, commitErr
	case r == store.CommitStale:
		return true, nil
	case r == store.CommitExists:
		c.Sink, c.log = out, nil
		e.runOrFollow(ctx, c, prepErr, e.newOwner())
	}
	return false, nil
}
