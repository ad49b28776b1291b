package exec

import (
	"context"
	"time"

	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/telemetry"
	"github.com/toold/toold/internal/tool"
)

// AskConfig governs permission requests and denial tracking.
type AskConfig struct {
	// Pending holds the requests calls wait on (default NewPending(): one
	// replica; cmd/toold sets the store's shared one when it has one).
	Pending PendingRequests
	// Timeout is how long a request waits for an answer before the call is
	// denied (default 5 minutes).
	Timeout time.Duration
	// DenialLimit permission requests people refused (or left
	// unanswered) within DenialWindow make further asks of the session
	// denied at once, until the window moves past them. 0 turns this off,
	// which is the default: Claude Code keeps asking however often it was
	// refused (DenialWindow defaults to 5 minutes). Auto mode's
	// classifier counts its own denials apart (its brake).
	DenialLimit  int
	DenialWindow time.Duration
	Now          func() time.Time
	// Classifier, when set, answers the asks of sessions in auto mode
	// before a person is asked (auto_mode.go).
	Classifier Classifier
}

func (a *AskConfig) defaults() {
	if a.Pending == nil {
		a.Pending = NewPending()
	}
	if a.Timeout <= 0 {
		a.Timeout = 5 * time.Minute
	}
	if a.DenialWindow <= 0 {
		a.DenialWindow = 5 * time.Minute
	}
	if a.Now == nil {
		a.Now = time.Now
	}
}

// Asker answers a call the policy stage left at ask: it runs next when
// the call may go on, or returns the refusal. The default asks a person
// (PersonAsk); an automatic judge plugs in here, in front of it or
// instead.
type Asker interface {
	Ask(ctx context.Context, c *Call, dec policy.Decision, next Handler) (*tool.Result, error)
}

// PolicyStage asks the decider whether the call may run, combines the
// answer with the PreToolUse hooks' (Call.PreHook), puts an ask in auto
// mode to the Classifier, applies denial tracking to what still asks,
// reports the decision, and then runs the call, hands an ask to Asks, or
// refuses it in Claude Code's words.
type PolicyStage struct {
	Decider    policy.Decider
	Classifier Classifier
	Asks       Asker
	Denials    DenialTracking
	// Hooks runs the PermissionDenied hooks of a call the classifier
	// denied; Report puts their runs on the stream.
	Hooks  HookRunner
	Report hookReporter
	// Telemetry and OnDecision (the audit log) are told every decision.
	Telemetry  *telemetry.Recorder
	OnDecision func(ctx context.Context, c *Call, dec policy.Decision)
}

func (p PolicyStage) Handle(ctx context.Context, c *Call, next Handler) (*tool.Result, error) {
	pctx, st := p.Telemetry.Start(ctx, telemetry.StagePolicy, c.metricTool(), c.ToolUseID)
	dec, err := p.Decider.Decide(pctx, c.PolicyRequest())
	if err != nil {
		err = tool.Errorf(tool.KindUnavailable, "The permission check could not be made, so the call did not run: %v", err)
		p.decided(pctx, st, c, dec, err)
		return nil, err
	}
	dec = p.withHooks(pctx, c, dec)
	asked, limited := dec, false
	if dec.Behavior == policy.Ask {
		if c.unclaimed {
			st.End(pctx, "")
			return nil, errNeedsClaim
		}
		dec = autoMode(pctx, p.Classifier, c, dec)
	}
	if dec.Behavior == policy.Ask {
		asked = dec
		dec = p.Denials.limit(pctx, c, dec)
		limited = dec.Behavior != policy.Ask
	}
	c.Sink.Emit(Event{ToolUseID: c.ToolUseID, Decision: &dec})
	p.decided(pctx, st, c, dec, nil)
	switch dec.Behavior {
	case policy.Allow:
		return next(ctx, c)
	case policy.Ask:
		return p.Asks.Ask(ctx, c, dec, next)
	default:
		r := refusalOf(c, c.Cwd())
		var text string
		switch {
		case limited:
			// Denied without asking: the model reads what an ask nobody
			// granted reads (Claude Code's denial tracking changes no
			// text).
			text = r.askText(asked, askedByRule(asked))
		case p.askedInDontAsk(pctx, c, dec):
			text = r.dontAskText(dec)
		default:
			text = r.denyText(dec)
		}
		if reason, ok := classifierReason(dec); ok {
			return p.permissionDenied(ctx, c, text, reason), nil
		}
		return nil, tool.Errorf(tool.KindPermissionDenied, "%s", text)
	}
}

// decided records the decision the call got: on the policy span, in the
// metrics and through OnDecision.
func (p PolicyStage) decided(ctx context.Context, st telemetry.Stage, c *Call, dec policy.Decision, err error) {
	if err != nil {
		st.End(ctx, errKind(err))
		return
	}
	b := dec.Behavior.String()
	if st.Recording() {
		st.SetAttributes(telemetry.AttrBehavior.String(b), telemetry.AttrRule.String(dec.Rule), telemetry.AttrSource.String(dec.Source))
	}
	st.End(ctx, "")
	p.Telemetry.Decision(ctx, c.metricTool(), b, dec.Source)
	if p.OnDecision != nil {
		p.OnDecision(ctx, c, dec)
	}
}

// askedInDontAsk reports whether a denial is dontAsk mode's answer to a
// call that would have asked, rather than a deny rule's: decided again in
// default mode, such a call asks (or is allowed, when only a hook asked).
func (p PolicyStage) askedInDontAsk(ctx context.Context, c *Call, dec policy.Decision) bool {
	if c.Session.Mode != "dontAsk" {
		return false
	}
	if dec.Source == "hook" {
		return true
	}
	req := c.PolicyRequest()
	req.Mode = "default"
	again, err := p.Decider.Decide(ctx, req)
	return err != nil || again.Behavior != policy.Deny
}

// withHooks combines the PreToolUse hooks' decision with the rules':
// rule deny > rule ask > hook deny/ask > hook allow > the mode's ask.
// A hook's allow skips only the prompt a mode would show: the call is
// decided again as in bypassPermissions, where deny rules, ask rules and
// the checks no mode approves (removing a critical path) still hold. A
// hook's ask (or defer) makes an allowed call ask, and dontAsk denies it.
func (p PolicyStage) withHooks(ctx context.Context, c *Call, dec policy.Decision) policy.Decision {
	v := c.PreHook
	if v == nil {
		return dec
	}
	switch v.Decision {
	case hooks.Allow:
		if dec.Behavior == policy.Allow {
			return dec
		}
		again, err := asBypass(ctx, c, p.Decider)
		if err != nil || again.Behavior != policy.Allow {
			return dec
		}
		return policy.Decision{Behavior: policy.Allow, Reason: "allowed by a PreToolUse hook" + suffix(v.Reason), Source: "hook", Parts: again.Parts}
	case hooks.Ask, hooks.Defer:
		if dec.Behavior != policy.Allow {
			return dec
		}
		out := policy.Decision{Behavior: policy.Ask, Reason: "a PreToolUse hook asks for approval" + suffix(v.Reason), Source: "hook", Parts: dec.Parts, Warnings: dec.Warnings,
			Message: hookAskText(c.ToolName(), v.Reason)}
		if c.Session.Mode == "dontAsk" {
			out.Behavior = policy.Deny
			out.Reason += " (dontAsk mode denies whatever would ask)"
		}
		return out
	}
	return dec
}

// asBypass decides the call as bypassPermissions mode would: what remains
// is what no hook and no mode can approve.
func asBypass(ctx context.Context, c *Call, d policy.Decider) (policy.Decision, error) {
	req := c.PolicyRequest()
	req.Mode = "bypassPermissions"
	return d.Decide(ctx, req)
}

func suffix(reason string) string {
	if reason == "" {
		return ""
	}
	return ": " + reason
}
