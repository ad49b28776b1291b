package exec

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// AskConfig governs permission requests and denial tracking.
type AskConfig struct {
	// Pending holds the requests calls wait on (default NewPending(): one
	// replica; cmd/toold sets the Redis one with --redis-url).
	Pending PendingRequests
	// Timeout is how long a request waits for an answer before the call is
	// denied (default 5 minutes).
	Timeout time.Duration
	// DenialLimit denials within DenialWindow make further asks of the
	// session denied at once, until the window moves past them. 0 turns
	// this off, which is the default: Claude Code keeps asking however
	// often it was refused (DenialWindow defaults to 5 minutes).
	DenialLimit  int
	DenialWindow time.Duration
	Now          func() time.Time
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

// policyRequest is what the decider sees of a call: the call as one of
// the tool it is decided as (tool.Definition.DecideAs), if any.
func policyRequest(c *Call, cwd string) policy.Request {
	s := c.Session
	name := c.ToolName()
	if c.Tool != nil && c.Def.DecideAs != "" {
		name = c.Def.DecideAs
	}
	return policy.Request{
		SessionID: s.ID,
		Tool:      name,
		Input:     c.Input,
		Args:      c.Args,
		ReadOnly:  c.Invocation.Traits().ReadOnly,
		Mode:      s.Mode,
		Cwd:       cwd,
		Workspace: s.Workspace,
		Dirs:      c.Files.Dirs(),
		Rules:     session.SessionRules(s),
		Revision:  s.Revision,
	}
}

// Policy is the stage that asks the decider whether the call may run, and
// when the answer is ask, asks the client and waits.
func (e *Engine) Policy(d policy.Decider) Interceptor {
	return func(ctx context.Context, c *Call, next Handler) (*tool.Result, error) {
		pctx, st := e.policyStage(ctx, c)
		dec, err := d.Decide(pctx, policyRequest(c, e.cwd(c)))
		if err != nil {
			err = tool.Errorf(tool.KindUnavailable, "The permission check could not be made, so the call did not run: %v", err)
			e.decided(pctx, st, c, dec, err)
			return nil, err
		}
		dec = e.withHooks(pctx, c, d, dec)
		asked, limited := dec, false
		if dec.Behavior == policy.Ask {
			if c.unclaimed {
				st.End(pctx, "")
				return nil, errNeedsClaim
			}
			dec = e.denialLimit(pctx, c, dec)
			limited = dec.Behavior != policy.Ask
		}
		c.Sink.Emit(Event{ToolUseID: c.ToolUseID, Decision: &dec})
		e.decided(pctx, st, c, dec, nil)
		switch dec.Behavior {
		case policy.Allow:
			return next(ctx, c)
		case policy.Ask:
			return e.ask(ctx, c, dec, next)
		default:
			r := refusalOf(c, e.cwd(c))
			var text string
			switch {
			case limited:
				// Denied without asking: the model reads what an ask
				// nobody granted reads (Claude Code's denial tracking
				// changes no text).
				text = r.askText(asked, askedByRule(asked))
			case e.askedInDontAsk(pctx, c, d, dec):
				text = r.dontAskText()
			default:
				text = r.denyText(dec)
			}
			return nil, tool.Errorf(tool.KindPermissionDenied, "%s", text)
		}
	}
}

// askedInDontAsk reports whether a denial is dontAsk mode's answer to a
// call that would have asked, rather than a deny rule's: decided again in
// default mode, such a call asks (or is allowed, when only a hook asked).
func (e *Engine) askedInDontAsk(ctx context.Context, c *Call, d policy.Decider, dec policy.Decision) bool {
	if c.Session.Mode != "dontAsk" {
		return false
	}
	if dec.Source == "hook" {
		return true
	}
	req := policyRequest(c, e.cwd(c))
	req.Mode = "default"
	again, err := d.Decide(ctx, req)
	return err != nil || again.Behavior != policy.Deny
}

// denialLimit turns an ask into a denial when the session has been denied
// too often lately: an agent that keeps asking for what was refused gets
// an answer at once instead of another prompt.
func (e *Engine) denialLimit(ctx context.Context, c *Call, dec policy.Decision) policy.Decision {
	a := e.cfg.Ask
	if a.DenialLimit <= 0 {
		return dec
	}
	n, err := e.cfg.Store.CountDenials(ctx, c.Session.ID, a.Now(), a.DenialWindow)
	if err != nil {
		// Fail closed: without the count, the call is not asked about.
		return policy.Decision{Behavior: policy.Deny, Reason: "denial tracking is unavailable: " + err.Error(), Source: "denialTracking"}
	}
	if n >= a.DenialLimit {
		dec.Behavior = policy.Deny
		dec.Reason = fmt.Sprintf("%d permission requests of this session were denied in the last %s, so further requests are denied without asking (%s)", n, a.DenialWindow, dec.Reason)
		dec.Source = "denialTracking"
	}
	return dec
}

func (e *Engine) ask(ctx context.Context, c *Call, dec policy.Decision, next Handler) (*tool.Result, error) {
	a := e.cfg.Ask
	if res, err, handled := e.permissionHooks(ctx, c, &dec, next); handled {
		return res, err
	}
	id := newRequestID()
	answers, done, err := a.Pending.Open(ctx, c.Session.ID, id)
	if err != nil {
		return nil, tool.Errorf(tool.KindUnavailable, "Permission to use %s could not be requested: %v", c.ToolName(), err)
	}
	defer done()
	c.Sink.Emit(Event{ToolUseID: c.ToolUseID, PermissionRequest: &PermissionRequest{ID: id, Tool: c.ToolName(), Input: c.Args, Decision: dec}})
	timer := time.NewTimer(a.Timeout)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		e.recordDenial(ctx, c)
		return nil, tool.Errorf(tool.KindPermissionDenied, "Permission to use %s was denied: nobody answered the permission request within %s.", c.ToolName(), a.Timeout)
	case ans := <-answers:
		if !ans.Allow {
			e.recordDenial(ctx, c)
			text := refusalOf(c, e.cwd(c)).hostDeniedText(dec, askedByRule(dec), ans.Message)
			return nil, tool.Errorf(tool.KindPermissionDenied, "%s", text)
		}
		if ans.ForSession && len(dec.Suggestions) > 0 {
			if err := e.remember(ctx, c.Session.ID, dec.Suggestions); err != nil {
				return nil, err
			}
		}
		return next(ctx, c)
	}
}

func (e *Engine) recordDenial(ctx context.Context, c *Call) {
	e.cfg.Telemetry.Denial(ctx, c.metricTool(), "user")
	a := e.cfg.Ask
	if _, err := e.cfg.Store.RecordDenial(context.WithoutCancel(ctx), c.Session.ID, a.Now(), a.DenialWindow); err != nil {
		e.cfg.Logger.Error("recording a denial failed", "session_id", c.Session.ID, "error", err)
	}
}

// remember adds allow rules to the session source.
func (e *Engine) remember(ctx context.Context, sessionID string, rules []string) error {
	_, err := e.cfg.Store.UpdateSession(ctx, sessionID, func(s *store.Session) error {
		for _, r := range rules {
			if !contains(s.SessionRules.Allow, r) {
				s.SessionRules.Allow = append(s.SessionRules.Allow, r)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("remember the answer: %w", err)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func newRequestID() string {
	var b [12]byte
	rand.Read(b[:])
	return "perm_" + hex.EncodeToString(b[:])
}
