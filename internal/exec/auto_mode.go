package exec

import (
	"context"
	"strings"

	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/tool"
)

// ClassifierSource is the decision source of what auto mode's classifier
// decided.
const ClassifierSource = "classifier"

// classifierDenied starts the Reason of a call the classifier denied;
// what follows is the classifier's own reason.
const classifierDenied = "denied by auto mode's classifier: "

// retryText is what the model reads, next to the refusal, when a
// PermissionDenied hook answered "retry": true (Claude Code's words).
const retryText = "The PermissionDenied hook indicated you may retry this tool call."

// ClassifierDenial is the decision for a call the classifier denied for
// reason (never empty): the model reads Claude Code's words for it, and
// the PermissionDenied hooks get the reason.
func ClassifierDenial(asked policy.Decision, reason string) policy.Decision {
	return policy.Decision{Behavior: policy.Deny, Reason: classifierDenied + reason, Source: ClassifierSource,
		Parts: asked.Parts, Warnings: asked.Warnings,
		Message: "Permission for this action was denied by the Claude Code auto mode classifier. Reason: " + reason}
}

// classifierReason returns the classifier's reason of a decision
// ClassifierDenial made, and whether it is one.
func classifierReason(d policy.Decision) (string, bool) {
	if d.Behavior != policy.Deny || d.Source != ClassifierSource {
		return "", false
	}
	return strings.CutPrefix(d.Reason, classifierDenied)
}

// permissionDenied is the refusal of a call the classifier denied, after
// the PermissionDenied hooks have run: they cannot undo it, but a hook's
// "retry": true tells the model, outside the result, that it may make the
// call again (it is then decided anew, the classifier asked again).
func (p PolicyStage) permissionDenied(ctx context.Context, c *Call, text, reason string) *tool.Result {
	r := tool.ErrorResult(tool.KindPermissionDenied, text)
	if !hooksOn(p.Hooks) {
		return r
	}
	te := c.hookEvent()
	te.Reason = reason
	out, err := p.Hooks.PermissionDenied(ctx, te)
	p.Report.report(ctx, c, out.Reports)
	if err != nil {
		if p.Report.Logger != nil {
			p.Report.Logger.Warn("the PermissionDenied hooks could not be run", "session_id", c.Session.ID, "tool_use_id", c.ToolUseID, "error", err)
		}
		return r
	}
	if out.Retry {
		r.ModelContext = append(r.ModelContext, retryText)
	}
	return hookMeta(r, out.Common)
}

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
