package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
)

// PreToolUse runs the PreToolUse hooks of a call, all matching hooks in
// parallel, and combines their decisions: deny > defer > ask > allow.
//
// Where it sits in the engine: after the call's input passed schema
// validation and BEFORE the permission rules are evaluated. The engine then
//  1. stops the call when Decision is Deny (Reason is the text for the
//     model), or when Stop is set (PreOutcome.Decision is then Deny too);
//  2. when UpdatedInput is set, validates it against the tool's schema
//     again (and parses it with the tool) and fails the call as invalid
//     input if it does not fit; from here on the updated input is the
//     call's input;
//  3. evaluates the permission rules on that input and combines: a deny
//     rule denies and an ask rule asks whatever the hook said, because a
//     hook's allow never overrides a deny or ask rule (nor the checks no
//     mode approves, such as removing a critical path); a hook's Ask or
//     Defer makes an allowed call ask; a hook's Allow skips the prompt the
//     mode would otherwise show.
//
// Failures: a hook that fails (see StatusFailed, StatusTimedOut) denies the
// call unless Options.FailOpen. The error is non-nil only when the hooks
// could not be chosen at all (a workspace settings file that does not
// parse); the engine should block the call then.
func (r *Runner) PreToolUse(ctx context.Context, te ToolEvent) (PreOutcome, error) {
	var o PreOutcome
	in := toolInput(PreToolUse, te)
	sh, err := r.session(te.Session)
	if err != nil {
		return o, err
	}
	type vote struct {
		d      Decision
		reason string
		input  json.RawMessage
		hook   string
	}
	var votes []vote
	for _, run := range r.runAll(ctx, r.choose(sh, in, &te), in) {
		v := judge(run, PreToolUse)
		vt := vote{hook: v.report.Hook}
		switch {
		case v.report.Status == StatusAsync:
		case v.failed && !r.opts.FailOpen:
			vt.d = Deny
			vt.reason = "PreToolUse hook " + v.report.Hook + " failed (" + v.report.Message + "); the call is blocked because a failed hook blocks calls"
		case v.failed:
		case v.blocking:
			vt.d, vt.reason = Deny, v.report.Message
			o.Blocking = append(o.Blocking, Blocking{Hook: v.report.Hook, Stderr: v.stderr})
		default:
			vt.d, vt.reason = preDecision(v.out)
			if s := v.out.spec(); s != nil && present(s.UpdatedInput) && vt.d != Deny {
				vt.input = s.UpdatedInput
			}
		}
		if s := v.out.spec(); s != nil && s.AdditionalContext != "" {
			o.AdditionalContext = append(o.AdditionalContext, capText(s.AdditionalContext))
		}
		if vt.d != None {
			v.report.Decision = vt.d.String()
		}
		o.take(v)
		votes = append(votes, vt)
	}
	for _, vt := range votes {
		o.Decision = Combine(o.Decision, vt.d)
	}
	var reasons []string
	for _, vt := range votes {
		if vt.d == o.Decision && vt.reason != "" {
			reasons = append(reasons, capText(vt.reason))
		}
	}
	o.Reason = strings.Join(reasons, "\n")
	if o.Decision != Deny && o.Decision != Defer {
		// Hooks run in parallel on the same input, so two rewrites cannot
		// be chained; rewrites that disagree block the call rather than
		// have toold pick one.
		var from string
		for _, vt := range votes {
			if vt.input == nil {
				continue
			}
			if o.UpdatedInput != nil && !sameJSON(o.UpdatedInput, vt.input) {
				o.Decision, o.UpdatedInput = Deny, nil
				o.Reason = "the PreToolUse hooks " + from + " and " + vt.hook + " rewrote the input differently"
				break
			}
			if o.UpdatedInput == nil {
				o.UpdatedInput, from = compact(vt.input), vt.hook
			}
		}
	}
	if o.Stop != nil {
		// "continue": false outranks every decision: the agent stops, and
		// the call it was about to make does not run.
		o.Decision, o.UpdatedInput = Deny, nil
		o.Reason = firstNonEmpty(o.Stop.Reason, "the PreToolUse hook "+o.Stop.Hook+" stopped the session")
	}
	return o, nil
}

// preDecision reads PreToolUse's decision: hookSpecificOutput's
// permissionDecision, or the deprecated top-level "approve" / "block".
func preDecision(o *output) (Decision, string) {
	if o == nil {
		return None, ""
	}
	reason := o.reason()
	if s := o.Specific; s != nil && s.PermissionDecision != "" {
		return map[string]Decision{"allow": Allow, "ask": Ask, "defer": Defer, "deny": Deny}[s.PermissionDecision], reason
	}
	switch o.Decision {
	case "approve":
		return Allow, reason
	case "block":
		return Deny, reason
	}
	return None, reason
}

// PermissionRequest runs the PermissionRequest hooks of a call that would
// wait for an answer. Allow or Deny answers the request; None leaves it to
// a person. Deny beats allow. On Allow with UpdatedInput the engine
// re-validates the input and evaluates the deny and ask rules on it again.
// Exit code 2 is not honoured for this event (as documented); a failed
// hook makes no decision, since the request still waits for an answer.
func (r *Runner) PermissionRequest(ctx context.Context, te ToolEvent) (PermissionOutcome, error) {
	var o PermissionOutcome
	in := toolInput(PermissionRequest, te)
	sh, err := r.session(te.Session)
	if err != nil {
		return o, err
	}
	var allows []*permDecision
	var denyMsgs []string
	for _, run := range r.runAll(ctx, r.choose(sh, in, &te), in) {
		v := judge(run, PermissionRequest)
		if s := v.out.spec(); !v.blocking && s != nil && s.Decision != nil {
			d := s.Decision
			v.report.Decision = d.Behavior
			if d.Behavior == "deny" {
				o.Decision = Deny
				o.Interrupt = o.Interrupt || d.Interrupt
				if d.Message != "" {
					denyMsgs = append(denyMsgs, capText(d.Message))
				}
			} else {
				allows = append(allows, d)
			}
		}
		o.take(v)
	}
	switch {
	case o.Decision == Deny:
		o.Message = strings.Join(denyMsgs, "\n")
	case len(allows) > 0:
		o.Decision = Allow
		for _, d := range allows {
			if present(d.UpdatedInput) {
				if o.UpdatedInput != nil && !sameJSON(o.UpdatedInput, d.UpdatedInput) {
					// Disagreeing rewrites: leave the answer to a person.
					o.Decision, o.UpdatedInput, o.UpdatedPermissions = None, nil, nil
					return o, nil
				}
				o.UpdatedInput = compact(d.UpdatedInput)
			}
			o.UpdatedPermissions = append(o.UpdatedPermissions, d.UpdatedPermissions...)
		}
	}
	return o, nil
}

// PermissionDenied runs the PermissionDenied hooks of a call auto mode's
// classifier denied; te.Reason is the classifier's reason. Matchers match
// the tool's name. The hooks observe: exit 2 blocks nothing (the call is
// denied already), and "retry": true from any of them sets Retry.
func (r *Runner) PermissionDenied(ctx context.Context, te ToolEvent) (DeniedOutcome, error) {
	var o DeniedOutcome
	in := toolInput(PermissionDenied, te)
	sh, err := r.session(te.Session)
	if err != nil {
		return o, err
	}
	for _, run := range r.runAll(ctx, r.choose(sh, in, &te), in) {
		v := judge(run, PermissionDenied)
		if s := v.out.spec(); !v.blocking && s != nil && s.Retry {
			v.report.Decision = "retry"
			o.Retry = true
		}
		o.take(v)
	}
	return o, nil
}

// PostToolUse runs the PostToolUse hooks of a call that succeeded.
func (r *Runner) PostToolUse(ctx context.Context, te ToolEvent) (PostOutcome, error) {
	return r.post(ctx, PostToolUse, te)
}

// PostToolUseFailure runs the PostToolUseFailure hooks of a call that
// failed while running. It is not for calls refused before they ran
// (invalid input, denied, unknown tool).
func (r *Runner) PostToolUseFailure(ctx context.Context, te ToolEvent) (PostOutcome, error) {
	return r.post(ctx, PostToolUseFailure, te)
}

func (r *Runner) post(ctx context.Context, ev Event, te ToolEvent) (PostOutcome, error) {
	var o PostOutcome
	in := toolInput(ev, te)
	sh, err := r.session(te.Session)
	if err != nil {
		return o, err
	}
	for _, run := range r.runAll(ctx, r.choose(sh, in, &te), in) {
		v := judge(run, ev)
		switch {
		case v.blocking:
			v.report.Decision = "block"
			o.Feedback = append(o.Feedback, v.report.Message)
			stderr := v.stderr
			o.Blocks = append(o.Blocks, PostBlock{Hook: v.report.Hook, Reason: v.report.Message, Stderr: &stderr})
		case ev == PostToolUse && v.out != nil && v.out.Decision == "block":
			v.report.Decision = "block"
			if v.out.Reason != "" {
				o.Feedback = append(o.Feedback, capText(v.out.Reason))
				o.Blocks = append(o.Blocks, PostBlock{Hook: v.report.Hook, Reason: capText(v.out.Reason)})
			}
		}
		if s := v.out.spec(); s != nil {
			if s.AdditionalContext != "" {
				o.AdditionalContext = append(o.AdditionalContext, capText(s.AdditionalContext))
			}
			// The first hook in configuration order that replaces the
			// output wins.
			if ev == PostToolUse && o.UpdatedToolOutput == nil && present(s.UpdatedToolOutput) {
				o.UpdatedToolOutput = s.UpdatedToolOutput
			}
			if ev == PostToolUse && o.UpdatedMCPToolOutput == nil && present(s.UpdatedMCPToolOutput) {
				o.UpdatedMCPToolOutput = s.UpdatedMCPToolOutput
			}
		}
		o.take(v)
	}
	return o, nil
}

// SessionStart runs the SessionStart hooks; matchers match Source. Plain
// stdout of a hook that exits 0 is context for the model, as is
// hookSpecificOutput.additionalContext. Nothing can be blocked.
func (r *Runner) SessionStart(ctx context.Context, e SessionStartEvent) (SessionOutcome, error) {
	in := sessionInput(SessionStart, e.Session)
	in.Source, in.Model = firstNonEmpty(e.Source, "startup"), e.Model
	in.matchOn = in.Source
	return r.sessionEvent(ctx, e.Session, in)
}

// SessionEnd runs the SessionEnd hooks; matchers match Reason. The hooks
// share Claude Code's budget: 1.5 s, raised to the largest timeout one of
// them sets, at most 60 s. Call Forget afterwards.
func (r *Runner) SessionEnd(ctx context.Context, e SessionEndEvent) (SessionOutcome, error) {
	in := sessionInput(SessionEnd, e.Session)
	in.Reason = firstNonEmpty(e.Reason, "other")
	in.matchOn = in.Reason
	return r.sessionEvent(ctx, e.Session, in)
}

func (r *Runner) sessionEvent(ctx context.Context, s Session, in input) (SessionOutcome, error) {
	var o SessionOutcome
	sh, err := r.session(s)
	if err != nil {
		return o, err
	}
	for _, run := range r.runAll(ctx, r.choose(sh, in, nil), in) {
		v := judge(run, in.HookEventName)
		if in.HookEventName == SessionStart || in.HookEventName == SubagentStart {
			if sp := v.out.spec(); sp != nil && sp.AdditionalContext != "" {
				o.AdditionalContext = append(o.AdditionalContext, capText(sp.AdditionalContext))
			} else if v.report.Status == StatusOK && v.plain != "" {
				o.AdditionalContext = append(o.AdditionalContext, v.plain)
			}
		}
		o.take(v)
	}
	return o, nil
}

func (o *output) spec() *specific {
	if o == nil {
		return nil
	}
	return o.Specific
}

// sameJSON compares two JSON values by meaning, not by spelling.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// compact drops the insignificant spaces of a hook's JSON.
func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}
