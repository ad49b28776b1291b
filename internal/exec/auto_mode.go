package exec

import (
	"context"

	"github.com/toold/toold/internal/policy"
)

// Classifier answers, in auto mode, the asks the permission rules raise,
// before a person is asked (internal/classifier implements it). It gets
// the call and the ask, and returns the decision that replaces it: allow,
// deny (Message is what the model reads) or ask (a person decides). It
// never fails: a classifier that cannot answer returns ask.
type Classifier interface {
	Classify(ctx context.Context, c *Call, asked policy.Decision) policy.Decision
}

// AnswerObserver is what a Classifier implements to hear how a person
// answered an ask of a session in auto mode (allowed, or denied, nobody
// answering included): part of the session's history it is told.
type AnswerObserver interface {
	Answered(ctx context.Context, c *Call, allowed bool)
}

// answered tells the classifier how a person answered.
func answered(ctx context.Context, cl Classifier, c *Call, allowed bool) {
	if o, ok := cl.(AnswerObserver); ok && c.Session.Mode == "auto" {
		o.Answered(ctx, c, allowed)
	}
}

// autoMode puts an ask to the classifier when the session is in auto mode
// and one is configured. It runs after the rules and the PreToolUse hooks
// have decided, so it never sees a deny; and an ask that an explicit ask
// rule or a hook raised wants a person by name, so it is not put to the
// classifier either.
func autoMode(ctx context.Context, cl Classifier, c *Call, dec policy.Decision) policy.Decision {
	if cl == nil || dec.Behavior != policy.Ask || c.Session.Mode != "auto" {
		return dec
	}
	if dec.Source == "hook" || askedByRule(dec) {
		return dec
	}
	return cl.Classify(ctx, c, dec)
}
