package exec

import (
	"context"

	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/tool"
)

// PreHooksStage runs the PreToolUse hooks, after the input was validated
// and before the policy stage:
//   - a deny (JSON or exit 2) ends the call as denied, with the hook's
//     reason for the model;
//   - updatedInput is validated against the tool's schema and parsed
//     again; from then on it is the call's input, so the rules judge it;
//   - allow, ask and defer go to the policy stage on Call.PreHook (see
//     PolicyStage.withHooks);
//   - additionalContext is put next to the result.
//
// An unclaimed call (optimistic.go) whose hooks ask, or whose rewritten
// input is not repeatable, goes the claimed way; its hooks then run again.
type PreHooksStage struct {
	Hooks   HookRunner
	Schemas *schemas // validates a rewritten input
	Report  hookReporter
}

func (s PreHooksStage) Handle(ctx context.Context, c *Call, next Handler) (*tool.Result, error) {
	if !hooksOn(s.Hooks) {
		return next(ctx, c)
	}
	out, err := s.Hooks.PreToolUse(ctx, c.hookEvent())
	s.Report.report(ctx, c, out.Reports)
	if err != nil {
		// Fail closed: a gate that cannot be read is not open.
		return nil, tool.Errorf(tool.KindPermissionDenied, "The PreToolUse hooks could not be run, so the call to %s was blocked: %v", c.ToolName(), err)
	}
	if out.Decision == hooks.Deny {
		return hookMeta(tool.ErrorResult(tool.KindPermissionDenied, preHookDenyText(c.ToolName(), out)), out.Common), nil
	}
	if out.UpdatedInput != nil {
		if err := s.Schemas.reprepare(c, out.UpdatedInput, hooks.PreToolUse); err != nil {
			return nil, err
		}
		if c.unclaimed && !c.Invocation.Traits().Repeatable {
			return nil, errNeedsClaim
		}
	}
	if c.unclaimed && (out.Decision == hooks.Ask || out.Decision == hooks.Defer) {
		return nil, errNeedsClaim
	}
	c.PreHook = &PreHookVerdict{Decision: out.Decision, Reason: out.Reason}
	res, err := next(ctx, c)
	if passesThrough(err) {
		return res, err
	}
	if len(out.AdditionalContext) == 0 && len(out.SystemMessages) == 0 {
		return res, err
	}
	if err != nil {
		res = ResultFromError(err)
	} else if res == nil {
		return nil, nil
	}
	addContext(res, "PreToolUse:"+c.ToolName()+" hook additional context: ", out.AdditionalContext)
	return hookMeta(res, out.Common), nil
}
