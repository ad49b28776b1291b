package exec

import (
	"context"
	"errors"
	"fmt"

	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/tool"
)

// CheckError is a call CheckPermission could not evaluate (unknown tool,
// invalid input); Msg is what the model would have read.
type CheckError struct{ Msg string }

func (e *CheckError) Error() string { return e.Msg }

// CheckPermission returns the decision a call would get, without running
// it, asking anyone, or counting anything.
func (e *Engine) CheckPermission(ctx context.Context, sessionID string, r Request) (policy.Decision, error) {
	sess, err := e.cfg.Store.GetSession(ctx, sessionID)
	if err != nil {
		return policy.Decision{}, err
	}
	if err := session.CheckOwner(ctx, sess); err != nil {
		return policy.Decision{}, err
	}
	files, err := e.files.get(sess)
	if err != nil {
		return policy.Decision{}, fmt.Errorf("%w: %w", ErrWorkspace, err)
	}
	c := &Call{Request: r, Session: sess, Files: files}
	// A tool the session's deny rules remove still gets its decision
	// here (deny, with the rule), which says more than "no such tool".
	if _, err := e.checkPrepare(ctx, c); err != nil {
		msg := ResultFromError(err).Content[0].Text
		var te *tool.Error
		if errors.As(err, &te) {
			msg = te.Msg
		}
		return policy.Decision{}, &CheckError{Msg: msg}
	}
	return e.cfg.Policy.Decide(ctx, c.PolicyRequest())
}

// Resolve answers a pending permission request of the session.
func (e *Engine) Resolve(ctx context.Context, sessionID, requestID string, a Answer) error {
	if err := e.checkOwner(ctx, sessionID); err != nil {
		return err
	}
	return e.cfg.Ask.Pending.Resolve(ctx, sessionID, requestID, a)
}
