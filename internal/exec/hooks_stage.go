package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// HookRunner runs the hooks of a call's events (Claude Code's hook
// protocol). *hooks.Runner implements it; Config.Hooks nil means none.
type HookRunner interface {
	Enabled() bool
	PreToolUse(ctx context.Context, te hooks.ToolEvent) (hooks.PreOutcome, error)
	PermissionRequest(ctx context.Context, te hooks.ToolEvent) (hooks.PermissionOutcome, error)
	PostToolUse(ctx context.Context, te hooks.ToolEvent) (hooks.PostOutcome, error)
	PostToolUseFailure(ctx context.Context, te hooks.ToolEvent) (hooks.PostOutcome, error)
}

var _ HookRunner = (*hooks.Runner)(nil)

// postHookGrace bounds the PostToolUseFailure hooks of a call whose
// request went away: they still learn about the interruption, but cannot
// hold a shutdown or a DeleteSession for long.
const postHookGrace = 5 * time.Second

func (e *Engine) hooksOn() bool { return e.cfg.Hooks != nil && e.cfg.Hooks.Enabled() }

// hookEvent is what the hooks learn about a call.
func (e *Engine) hookEvent(c *Call) hooks.ToolEvent {
	return hooks.ToolEvent{
		Session: hooks.Session{
			ID: c.Session.ID, Workspace: c.Files.Primary(), Cwd: e.cwd(c), PermissionMode: c.Session.Mode,
		},
		ToolName: c.ToolName(), ToolInput: c.Input, ToolUseID: c.ToolUseID,
	}
}

// hookVerdict carries the PreToolUse decision from the hooks stage to the
// policy stage, which combines it with the rules.
type hookVerdictKey struct{}

type hookVerdict struct {
	decision hooks.Decision
	reason   string
}

// PreToolHooks is the stage that runs the PreToolUse hooks, after the
// input was validated and before the policy stage:
//   - a deny (JSON or exit 2) ends the call as denied, with the hook's
//     reason for the model;
//   - updatedInput is validated against the tool's schema and parsed
//     again; from then on it is the call's input, so the rules judge it;
//   - allow, ask and defer go to the policy stage (see withHooks);
//   - additionalContext is put next to the result.
//
// An unclaimed call (optimistic.go) whose hooks ask, or whose rewritten
// input is not repeatable, goes the claimed way; its hooks then run again.
func (e *Engine) PreToolHooks(s *schemas) Interceptor {
	return func(ctx context.Context, c *Call, next Handler) (*tool.Result, error) {
		if !e.hooksOn() {
			return next(ctx, c)
		}
		out, err := e.cfg.Hooks.PreToolUse(ctx, e.hookEvent(c))
		e.reportHooks(ctx, c, out.Reports)
		if err != nil {
			// Fail closed: a gate that cannot be read is not open.
			return nil, tool.Errorf(tool.KindPermissionDenied, "The PreToolUse hooks could not be run, so the call to %s was blocked: %v", c.ToolName(), err)
		}
		if out.Decision == hooks.Deny {
			return hookMeta(tool.ErrorResult(tool.KindPermissionDenied, preHookDenyText(c.ToolName(), out)), out.Common), nil
		}
		if out.UpdatedInput != nil {
			if err := s.reprepare(c, out.UpdatedInput, hooks.PreToolUse); err != nil {
				return nil, err
			}
			if c.unclaimed && !c.Invocation.Traits().Repeatable {
				return nil, errNeedsClaim
			}
		}
		if c.unclaimed && (out.Decision == hooks.Ask || out.Decision == hooks.Defer) {
			return nil, errNeedsClaim
		}
		ctx = context.WithValue(ctx, hookVerdictKey{}, hookVerdict{decision: out.Decision, reason: out.Reason})
		res, err := next(ctx, c)
		if errors.Is(err, errNeedsClaim) {
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
}

// reprepare makes a hook's updatedInput the call's input: validated and
// parsed as the client's input was. The Request (what the client sent,
// fingerprinted by the journal) is left as it is.
func (s *schemas) reprepare(c *Call, input json.RawMessage, ev hooks.Event) error {
	tmp := *c
	tmp.Request.Input, tmp.Request.RawInput = nil, input
	if err := s.prepare(&tmp); err != nil {
		kind, msg := tool.KindInvalidInput, err.Error()
		var te *tool.Error
		if errors.As(err, &te) {
			kind, msg = te.Kind, te.Msg
		}
		return tool.Errorf(kind, "A %s hook rewrote the input of %s into one that is not valid, so the call did not run. %s", ev, c.ToolName(), msg)
	}
	c.Input, c.Args, c.Invocation = tmp.Input, tmp.Args, tmp.Invocation
	return nil
}

// withHooks combines the PreToolUse hooks' decision with the rules':
// rule deny > rule ask > hook deny/ask > hook allow > the mode's ask.
// A hook's allow skips only the prompt a mode would show: the call is
// decided again as in bypassPermissions, where deny rules, ask rules and
// the checks no mode approves (removing a critical path) still hold. A
// hook's ask (or defer) makes an allowed call ask, and dontAsk denies it.
func (e *Engine) withHooks(ctx context.Context, c *Call, d policy.Decider, dec policy.Decision) policy.Decision {
	v, ok := ctx.Value(hookVerdictKey{}).(hookVerdict)
	if !ok {
		return dec
	}
	switch v.decision {
	case hooks.Allow:
		if dec.Behavior == policy.Allow {
			return dec
		}
		again, err := e.asBypass(ctx, c, d)
		if err != nil || again.Behavior != policy.Allow {
			return dec
		}
		return policy.Decision{Behavior: policy.Allow, Reason: "allowed by a PreToolUse hook" + suffix(v.reason), Source: "hook", Parts: again.Parts}
	case hooks.Ask, hooks.Defer:
		if dec.Behavior != policy.Allow {
			return dec
		}
		out := policy.Decision{Behavior: policy.Ask, Reason: "a PreToolUse hook asks for approval" + suffix(v.reason), Source: "hook", Parts: dec.Parts, Warnings: dec.Warnings,
			Message: hookAskText(c.ToolName(), v.reason)}
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
func (e *Engine) asBypass(ctx context.Context, c *Call, d policy.Decider) (policy.Decision, error) {
	req := policyRequest(c, e.cwd(c))
	req.Mode = "bypassPermissions"
	return d.Decide(ctx, req)
}

func suffix(reason string) string {
	if reason == "" {
		return ""
	}
	return ": " + reason
}

// permissionHooks runs the PermissionRequest hooks of a call about to wait
// for a person. handled: the hooks answered and res, err is the call's
// outcome; otherwise the request goes to a person with *dec (which an
// allow with updatedInput may have changed).
func (e *Engine) permissionHooks(ctx context.Context, c *Call, dec *policy.Decision, next Handler) (res *tool.Result, err error, handled bool) {
	if !e.hooksOn() {
		return nil, nil, false
	}
	te := e.hookEvent(c)
	te.PermissionSuggestions = suggestionsJSON(dec.Suggestions)
	out, herr := e.cfg.Hooks.PermissionRequest(ctx, te)
	e.reportHooks(ctx, c, out.Reports)
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
			if err := e.schemas.reprepare(c, out.UpdatedInput, hooks.PermissionRequest); err != nil {
				return nil, err, true
			}
			// The deny and ask rules judge the new input.
			again, err := e.asBypass(ctx, c, e.cfg.Policy)
			if err != nil {
				return nil, tool.Errorf(tool.KindUnavailable, "The permission check could not be made, so the call did not run: %v", err), true
			}
			switch again.Behavior {
			case policy.Deny:
				return nil, tool.Errorf(tool.KindPermissionDenied, "%s", refusalOf(c, e.cwd(c)).denyText(again)), true
			case policy.Ask:
				*dec = again
				return nil, nil, false
			}
		}
		e.applyPermissionUpdates(ctx, c, out.UpdatedPermissions)
		res, err := next(ctx, c)
		if err == nil && res != nil {
			res = hookMeta(res, out.Common)
		}
		return res, err, true
	}
	return nil, nil, false
}

// suggestionsJSON turns the policy's suggested rules into Claude Code's
// permission_suggestions entries.
func suggestionsJSON(rules []string) []json.RawMessage {
	if len(rules) == 0 {
		return nil
	}
	type ruleValue struct {
		ToolName    string `json:"toolName"`
		RuleContent string `json:"ruleContent,omitempty"`
	}
	var vals []ruleValue
	for _, r := range rules {
		name, content := r, ""
		if i := strings.IndexByte(r, '('); i > 0 && strings.HasSuffix(r, ")") {
			name, content = r[:i], r[i+1:len(r)-1]
		}
		vals = append(vals, ruleValue{ToolName: name, RuleContent: content})
	}
	b, _ := json.Marshal(map[string]any{"type": "addRules", "rules": vals, "behavior": "allow", "destination": "session"})
	return []json.RawMessage{b}
}

// applyPermissionUpdates applies a PermissionRequest allow's
// updatedPermissions of type addRules to the session's rules, whatever
// their destination: toold keeps no settings files of its own. Rules are
// checked first: one that does not parse would break every later call of
// the session. Other update types are logged and not applied.
func (e *Engine) applyPermissionUpdates(ctx context.Context, c *Call, updates []json.RawMessage) {
	type rule struct {
		ToolName    string `json:"toolName"`
		RuleContent string `json:"ruleContent"`
	}
	var add store.RuleLists
	for _, raw := range updates {
		var u struct {
			Type     string `json:"type"`
			Behavior string `json:"behavior"`
			Rules    []rule `json:"rules"`
		}
		if json.Unmarshal(raw, &u) != nil || u.Type != "addRules" {
			e.cfg.Logger.Warn("a PermissionRequest hook's permission update is not applied", "session_id", c.Session.ID, "tool_use_id", c.ToolUseID, "update", string(raw))
			continue
		}
		for _, r := range u.Rules {
			text := r.ToolName
			if r.RuleContent != "" {
				text += "(" + r.RuleContent + ")"
			}
			switch u.Behavior {
			case "allow":
				add.Allow = append(add.Allow, text)
			case "deny":
				add.Deny = append(add.Deny, text)
			case "ask":
				add.Ask = append(add.Ask, text)
			}
		}
	}
	if len(add.Allow)+len(add.Deny)+len(add.Ask) == 0 {
		return
	}
	checker, ok := e.cfg.Policy.(interface {
		Check(string, policy.SessionRules) error
	})
	if !ok {
		return
	}
	_, err := e.cfg.Store.UpdateSession(context.WithoutCancel(ctx), c.Session.ID, func(s *store.Session) error {
		r := &s.SessionRules
		r.Allow, r.Deny, r.Ask = union(r.Allow, add.Allow), union(r.Deny, add.Deny), union(r.Ask, add.Ask)
		return checker.Check(s.Root(), policy.SessionRules{
			CLIArg:  policy.Settings{Allow: s.Allow, Deny: s.Deny, Ask: s.Ask},
			User:    policy.Settings{Allow: s.User.Allow, Deny: s.User.Deny, Ask: s.User.Ask},
			Session: policy.Settings{Allow: r.Allow, Deny: r.Deny, Ask: r.Ask},
		})
	})
	if err != nil {
		e.cfg.Logger.Warn("a PermissionRequest hook's rules were not added", "session_id", c.Session.ID, "tool_use_id", c.ToolUseID, "error", err)
	}
}

func union(list, add []string) []string {
	for _, x := range add {
		if !contains(list, x) {
			list = append(list, x)
		}
	}
	return list
}

// PostToolHooks is the innermost stage: it runs PostToolUse after the tool
// succeeded and PostToolUseFailure after it failed. Calls that never ran
// (invalid input, denied) do not get here. What the hooks say for the
// model (additionalContext, a block's reason, exit 2's stderr) is added to
// the result as text blocks; the result itself stands, unless
// updatedToolOutput replaces a successful one with a value of the tool's
// output shape.
func (e *Engine) PostToolHooks() Interceptor {
	return func(ctx context.Context, c *Call, next Handler) (*tool.Result, error) {
		if !e.hooksOn() {
			return next(ctx, c)
		}
		start := time.Now()
		res, err := next(ctx, c)
		if errors.Is(err, errNeedsClaim) {
			return res, err
		}
		if err != nil {
			res = ResultFromError(err)
		} else if res == nil {
			return nil, nil
		}
		te := e.hookEvent(c)
		te.Duration = time.Since(start)
		hctx := ctx
		if ctx.Err() != nil {
			var cancel context.CancelFunc
			hctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), postHookGrace)
			defer cancel()
		}
		var out hooks.PostOutcome
		var herr error
		if res.IsError {
			te.Error = resultText(res)
			te.IsInterrupt = res.Kind == tool.KindCancelled
			out, herr = e.cfg.Hooks.PostToolUseFailure(hctx, te)
		} else {
			te.ToolResponse = toolResponse(c, res)
			out, herr = e.cfg.Hooks.PostToolUse(hctx, te)
		}
		e.reportHooks(hctx, c, out.Reports)
		if herr != nil {
			e.cfg.Logger.Warn("the post-call hooks could not be run", "session_id", c.Session.ID, "tool_use_id", c.ToolUseID, "error", herr)
			return res, nil
		}
		if !res.IsError {
			replaceOutput(c, res, out, e.cfg.Logger)
		}
		ev := hooks.PostToolUse
		if res.IsError {
			ev = hooks.PostToolUseFailure
		}
		for _, f := range out.Blocks {
			text := f.Reason
			if f.Stderr != nil {
				stderr := *f.Stderr
				if strings.TrimSpace(stderr) == "" {
					stderr = "No stderr output"
				}
				text = "[" + f.Hook + "]: " + stderr
			}
			res.ModelContext = append(res.ModelContext, fmt.Sprintf("%s:%s hook blocking error from command: \"%s\": %s", ev, c.ToolName(), f.Hook, text))
		}
		addContext(res, string(ev)+":"+c.ToolName()+" hook additional context: ", out.AdditionalContext)
		return hookMeta(res, out.Common), nil
	}
}

// resultText is the text blocks of a result, joined.
func resultText(r *tool.Result) string {
	var parts []string
	for _, b := range r.Content {
		if b.Type == tool.BlockText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// toolResponse is the PostToolUse hooks' tool_response: Bash's in Claude
// Code's shape ({stdout, stderr, interrupted, isImage}), other tools'
// text as "content", each with the result's metadata and, for file tools,
// "filePath".
func toolResponse(c *Call, r *tool.Result) json.RawMessage {
	m := map[string]any{}
	for k, v := range r.Meta {
		m[k] = v
	}
	text := resultText(r)
	if c.ToolName() == "Bash" {
		m["stdout"], m["stderr"], m["interrupted"] = text, "", false
		m["isImage"] = len(r.Content) > 0 && r.Content[0].Type == tool.BlockImage
	} else {
		m["content"] = text
	}
	for _, k := range []string{"file_path", "notebook_path"} {
		if p, ok := c.Args[k].(string); ok {
			m["filePath"] = p
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"content": text})
	}
	return b
}

// replaceOutput applies updatedToolOutput (updatedMCPToolOutput for MCP
// tools) when it has the tool's output shape: for Bash an object with a
// "stdout" string (and optionally "stderr"); for other tools a string, an
// object with a "content" string, or text blocks. Anything else is
// ignored, as in Claude Code.
func replaceOutput(c *Call, r *tool.Result, out hooks.PostOutcome, log *slog.Logger) {
	raw := out.UpdatedToolOutput
	if strings.HasPrefix(c.ToolName(), "mcp__") && out.UpdatedMCPToolOutput != nil {
		raw = out.UpdatedMCPToolOutput
	}
	if raw == nil {
		return
	}
	text, ok := outputText(c.ToolName(), raw)
	if !ok {
		log.Warn("a PostToolUse hook's updated output does not fit the tool's output shape; the original result is kept", "tool", c.ToolName(), "tool_use_id", c.ToolUseID)
		return
	}
	r.Content = []tool.Block{{Type: tool.BlockText, Text: text}}
}

func outputText(toolName string, raw json.RawMessage) (string, bool) {
	if toolName == "Bash" {
		var o struct {
			Stdout *string `json:"stdout"`
			Stderr string  `json:"stderr"`
		}
		if json.Unmarshal(raw, &o) != nil || o.Stdout == nil {
			return "", false
		}
		if o.Stderr != "" {
			return strings.TrimRight(*o.Stdout, "\n") + "\n" + o.Stderr, true
		}
		return *o.Stdout, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	blocksText := func(bs []block) (string, bool) {
		var parts []string
		for _, b := range bs {
			if b.Type != "text" {
				return "", false
			}
			parts = append(parts, b.Text)
		}
		return strings.Join(parts, "\n"), len(parts) > 0
	}
	var bs []block
	if json.Unmarshal(raw, &bs) == nil {
		return blocksText(bs)
	}
	var o map[string]json.RawMessage
	if json.Unmarshal(raw, &o) != nil || o["content"] == nil {
		return "", false
	}
	if json.Unmarshal(o["content"], &s) == nil {
		return s, true
	}
	if json.Unmarshal(o["content"], &bs) == nil {
		return blocksText(bs)
	}
	return "", false
}

// addContext adds one text per item to what the model reads outside the
// result, labelled as Claude Code labels it.
func addContext(r *tool.Result, label string, items []string) {
	for _, s := range items {
		if s != "" {
			r.ModelContext = append(r.ModelContext, label+s)
		}
	}
}

// hookMeta passes what hooks say to the orchestrator rather than to the
// model: systemMessage (for the user) and "continue": false (stop the
// agent after this call), as result metadata.
func hookMeta(r *tool.Result, c hooks.Common) *tool.Result {
	if len(c.SystemMessages) > 0 {
		r.WithMeta("hook_system_messages", append([]string(nil), c.SystemMessages...))
	}
	if c.Stop != nil {
		r.WithMeta("hook_stop", true)
		if c.Stop.Reason != "" {
			r.WithMeta("hook_stop_reason", c.Stop.Reason)
		}
	}
	return r
}

// reportHooks puts each hook run on the call's stream (and so in its
// journal), in the log and in the trace.
func (e *Engine) reportHooks(ctx context.Context, c *Call, reports []hooks.Report) {
	for _, r := range reports {
		c.Sink.Emit(Event{ToolUseID: c.ToolUseID, Hook: &HookRun{
			Event: string(r.Event), Hook: r.Hook, Type: r.Type, Decision: r.Decision,
			Status: string(r.Status), Message: r.Message, ExitCode: r.ExitCode, Duration: r.Duration,
		}})
		e.hookRan(ctx, r)
		RecordHookRun(ctx, e.cfg.Logger, r,
			slog.String("session_id", c.Session.ID), slog.String("tool_use_id", c.ToolUseID), slog.String("tool", c.ToolName()))
	}
}

// RecordHookRun writes one hook run to the log (one line) and to the trace
// (one span, timed by the run itself, under ctx's span). Session hooks and
// async hooks, which have no call stream, are recorded with it too.
func RecordHookRun(ctx context.Context, log *slog.Logger, r hooks.Report, attrs ...slog.Attr) {
	failed := r.Status == hooks.StatusFailed || r.Status == hooks.StatusTimedOut
	level := slog.LevelInfo
	if failed {
		level = slog.LevelWarn
	}
	attrs = append(attrs,
		slog.String("event", string(r.Event)), slog.String("hook", r.Hook), slog.String("type", r.Type),
		slog.String("status", string(r.Status)), slog.String("decision", r.Decision),
		slog.Int("exit_code", r.ExitCode), slog.Duration("duration", r.Duration))
	if r.Message != "" {
		attrs = append(attrs, slog.String("message", r.Message))
	}
	log.LogAttrs(ctx, level, "hook ran", attrs...)

	started := r.Started
	if started.IsZero() {
		started = time.Now().Add(-r.Duration)
	}
	_, span := otel.GetTracerProvider().Tracer("github.com/toold/toold/internal/exec").Start(ctx, "hook "+string(r.Event),
		trace.WithTimestamp(started), trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(
			attribute.String("hook.event", string(r.Event)), attribute.String("hook.name", r.Hook),
			attribute.String("hook.type", r.Type), attribute.String("hook.status", string(r.Status)),
			attribute.String("hook.decision", r.Decision), attribute.Int("hook.exit_code", r.ExitCode),
		))
	if failed {
		span.SetStatus(codes.Error, r.Message)
	}
	span.End(trace.WithTimestamp(started.Add(r.Duration)))
}
