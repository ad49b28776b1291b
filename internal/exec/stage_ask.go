package exec

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// SessionUpdater changes a stored session (store.Store does): an answer
// "for the session" and a hook's added rules are kept there.
type SessionUpdater interface {
	UpdateSession(ctx context.Context, id string, fn func(*store.Session) error) (*store.Session, error)
}

// PersonAsk is the default Asker: the PermissionRequest hooks may answer
// first; otherwise the call's stream carries a permission request and the
// call waits for Resolve (on any replica sharing Pending), up to Timeout.
// A refusal or no answer is a denial (DenialTracking); an allow for the
// session adds the suggested rules to it.
type PersonAsk struct {
	Pending PendingRequests
	Timeout time.Duration
	Denials DenialTracking
	// Hooks, with Schemas and Decider, runs the PermissionRequest hooks,
	// whose updatedInput is validated and judged by the rules again.
	Hooks   HookRunner
	Report  hookReporter
	Schemas *schemas
	Decider policy.Decider
	// Sessions stores remembered rules; Rules checks a hook's before.
	Sessions SessionUpdater
	Rules    RuleChecker
	// Classifier, in auto mode, hears how the person answered.
	Classifier Classifier
	Logger     *slog.Logger
}

func (a PersonAsk) Ask(ctx context.Context, c *Call, dec policy.Decision, next Handler) (*tool.Result, error) {
	if res, err, handled := a.permissionHooks(ctx, c, &dec, next); handled {
		return res, err
	}
	if c.streamless {
		// Nobody can be asked on this request.
		return nil, errNeedsStream
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
		a.Denials.record(ctx, c)
		answered(ctx, a.Classifier, c, false)
		return nil, tool.Errorf(tool.KindPermissionDenied, "Permission to use %s was denied: nobody answered the permission request within %s.", c.ToolName(), a.Timeout)
	case ans := <-answers:
		answered(ctx, a.Classifier, c, ans.Allow)
		if !ans.Allow {
			a.Denials.record(ctx, c)
			text := refusalOf(c, c.Cwd()).hostDeniedText(dec, askedByRule(dec), ans.Message)
			return nil, tool.Errorf(tool.KindPermissionDenied, "%s", text)
		}
		if ans.ForSession && len(dec.Suggestions) > 0 {
			if err := a.remember(ctx, c.Session.ID, dec.Suggestions); err != nil {
				return nil, err
			}
		}
		return next(ctx, c)
	}
}

// permissionHooks runs the PermissionRequest hooks of a call about to wait
// for a person. handled: the hooks answered and res, err is the call's
// outcome; otherwise the request goes to a person with *dec (which an
// allow with updatedInput may have changed).
func (a PersonAsk) permissionHooks(ctx context.Context, c *Call, dec *policy.Decision, next Handler) (res *tool.Result, err error, handled bool) {
	if !hooksOn(a.Hooks) {
		return nil, nil, false
	}
	te := c.hookEvent()
	te.PermissionSuggestions = hooks.PermissionSuggestions(dec.Suggestions)
	out, herr := a.Hooks.PermissionRequest(ctx, te)
	a.Report.report(ctx, c, out.Reports)
	if herr != nil {
		return nil, tool.Errorf(tool.KindPermissionDenied, "The PermissionRequest hooks could not be run, so the call to %s was blocked: %v", c.ToolName(), herr), true
	}
	switch out.Decision {
	case hooks.Deny:
		msg := fmt.Sprintf("Permission to use %s was denied by a PermissionRequest hook.", c.ToolName())
		if out.Message != "" {
			msg += " " + out.Message
		}
		r := tool.ErrorResult(tool.KindPermissionDenied, msg)
		if out.Interrupt {
			r.WithMeta("hook_interrupt", true)
		}
		return hookMeta(r, out.Common), nil, true
	case hooks.Allow:
		if out.UpdatedInput != nil {
			if err := a.Schemas.reprepare(c, out.UpdatedInput, hooks.PermissionRequest); err != nil {
				return nil, err, true
			}
			// The deny and ask rules judge the new input.
			again, err := asBypass(ctx, c, a.Decider)
			if err != nil {
				return nil, tool.Errorf(tool.KindUnavailable, "The permission check could not be made, so the call did not run: %v", err), true
			}
			switch again.Behavior {
			case policy.Deny:
				return nil, tool.Errorf(tool.KindPermissionDenied, "%s", refusalOf(c, c.Cwd()).denyText(again)), true
			case policy.Ask:
				*dec = again
				return nil, nil, false
			}
		}
		a.applyPermissionUpdates(ctx, c, out.UpdatedPermissions)
		res, err := next(ctx, c)
		if err == nil && res != nil {
			res = hookMeta(res, out.Common)
		}
		return res, err, true
	}
	return nil, nil, false
}

// applyPermissionUpdates applies a PermissionRequest allow's addRules
// updates to the session's rules, whatever their destination: toold keeps
// no settings files of its own. Rules are checked first: one that does
// not parse would break every later call of the session. Other update
// types are logged and not applied.
func (a PersonAsk) applyPermissionUpdates(ctx context.Context, c *Call, updates []json.RawMessage) {
	u := hooks.ParseRuleUpdates(updates)
	for _, raw := range u.Ignored {
		a.Logger.Warn("a PermissionRequest hook's permission update is not applied", "session_id", c.Session.ID, "tool_use_id", c.ToolUseID, "update", string(raw))
	}
	if u.Empty() || a.Rules == nil {
		return
	}
	_, err := a.Sessions.UpdateSession(context.WithoutCancel(ctx), c.Session.ID, func(s *store.Session) error {
		r := &s.SessionRules
		r.Allow, r.Deny, r.Ask = union(r.Allow, u.Allow), union(r.Deny, u.Deny), union(r.Ask, u.Ask)
		return a.Rules.Check(s.Root(), policy.SessionRules{
			CLIArg:  policy.Settings{Allow: s.Allow, Deny: s.Deny, Ask: s.Ask},
			User:    policy.Settings{Allow: s.User.Allow, Deny: s.User.Deny, Ask: s.User.Ask},
			Session: policy.Settings{Allow: r.Allow, Deny: r.Deny, Ask: r.Ask},
		})
	})
	if err != nil {
		a.Logger.Warn("a PermissionRequest hook's rules were not added", "session_id", c.Session.ID, "tool_use_id", c.ToolUseID, "error", err)
	}
}

// remember adds allow rules to the session source.
func (a PersonAsk) remember(ctx context.Context, sessionID string, rules []string) error {
	_, err := a.Sessions.UpdateSession(ctx, sessionID, func(s *store.Session) error {
		s.SessionRules.Allow = union(s.SessionRules.Allow, rules)
		return nil
	})
	if err != nil {
		return fmt.Errorf("remember the answer: %w", err)
	}
	return nil
}

func union(list, add []string) []string {
	for _, x := range add {
		if !contains(list, x) {
			list = append(list, x)
		}
	}
	return list
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
