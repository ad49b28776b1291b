package hooks

import (
	"encoding/json"
	"time"
)

// Decision is what hooks decided about a call. The values are ordered by
// strength: Combine keeps the strongest.
type Decision int

const (
	// None: no hook decided; the permission rules decide alone.
	None Decision = iota
	// Allow: a hook approved the call.
	Allow
	// Ask: a hook wants an answer before the call runs.
	Ask
	// Defer: a hook hands the decision to the caller. Claude Code honours
	// it only in non-interactive runs; toold treats it as Ask, the way a
	// service hands a decision to its caller.
	Defer
	// Deny: a hook blocked the call.
	Deny
)

func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Defer:
		return "defer"
	case Deny:
		return "deny"
	}
	return "none"
}

// Combine is the decision of several hooks: deny > defer > ask > allow
// (https://code.claude.com/docs/en/hooks "PreToolUse decision control").
func Combine(ds ...Decision) Decision {
	out := None
	for _, d := range ds {
		out = max(out, d)
	}
	return out
}

// Status is how one hook run ended.
type Status string

const (
	// StatusOK: exit 0 (or a gRPC hook that answered).
	StatusOK Status = "ok"
	// StatusBlocked: exit 2, the blocking error.
	StatusBlocked Status = "blocked"
	// StatusNonBlocking: another exit code; the event goes on.
	StatusNonBlocking Status = "non_blocking_error"
	// StatusFailed: the hook could not start, crashed, was killed, passed
	// its output cap, could not be run by bash (126, 127), printed JSON
	// that does not fit the schema, or its gRPC call failed.
	StatusFailed Status = "failed"
	// StatusTimedOut: the hook ran past its timeout and was killed.
	StatusTimedOut Status = "timed_out"
	// StatusAsync: the hook was started in the background; its own report
	// goes to Options.OnAsync.
	StatusAsync Status = "async"
)

// Report is one hook run, for the Execute stream, the log and a span.
type Report struct {
	Event Event
	// Hook names the handler: its command or grpc://endpoint.
	Hook string
	Type string
	// Matcher is the group's matcher as written; Path and Origin locate
	// the handler in its settings file.
	Matcher       string
	Path          string
	Origin        string
	StatusMessage string
	Status        Status
	// Decision is what this hook decided: "allow", "deny", "ask",
	// "defer", "block" (PostToolUse), or "" for none.
	Decision string
	// Message is what the hook said: its reason, its error, or its plain
	// output, capped.
	Message string
	// ExitCode is the command's exit code; -1 when it did not exit by
	// itself, 0 for a gRPC hook that answered.
	ExitCode int
	Started  time.Time
	Duration time.Duration
}

// Stop is a hook's "continue": false.
type Stop struct {
	// Reason is the hook's stopReason, for the user.
	Reason string
	// Hook names the hook that stopped.
	Hook string
}

// Common is what every event's outcome carries.
type Common struct {
	// SystemMessages are warnings for the user ("systemMessage").
	SystemMessages []string
	// Stop is set when a hook said "continue": false: the orchestrator
	// should stop the agent after this call. It outranks every decision.
	Stop *Stop
	// Reports has one entry per hook that ran, in configuration order.
	Reports []Report
}

// PreOutcome is what PreToolUse hooks decided.
type PreOutcome struct {
	Common
	// Decision is the combined decision. Deny blocks the call with Reason
	// as the text for the model.
	Decision Decision
	// Reason is the reason of the hooks that made Decision, joined by
	// newlines: for the model on deny, for the person asked on ask and
	// defer, for the log on allow.
	Reason string
	// UpdatedInput replaces the whole tool input when set (never with
	// Deny). The engine validates it against the tool's schema again
	// before anything else sees it.
	UpdatedInput json.RawMessage
	// AdditionalContext is text for the model, to put next to the result.
	AdditionalContext []string
	// Blocking lists the hooks that exited 2, in configuration order,
	// with their stderr as written (Claude Code quotes it to the model).
	Blocking []Blocking
}

// PostBlock is one post-call hook's blocking feedback: exit 2 (Stderr
// set, as written) or "decision": "block" (Reason).
type PostBlock struct {
	Hook   string
	Reason string
	Stderr *string
}

// Blocking is one hook that blocked a call by exiting 2.
type Blocking struct {
	Hook   string
	Stderr string
}

// PermissionOutcome is what PermissionRequest hooks decided.
type PermissionOutcome struct {
	Common
	// Decision is Allow, Deny or None (the request waits for an answer).
	Decision Decision
	// Message is the deny message for the model.
	Message string
	// Interrupt is a deny's "interrupt": stop the agent as well.
	Interrupt bool
	// UpdatedInput replaces the tool input on Allow; re-validate it and
	// evaluate the deny and ask rules on it again.
	UpdatedInput json.RawMessage
	// UpdatedPermissions are the allow's permission updates, each a JSON
	// object ({"type":"addRules",...}, {"type":"setMode",...}), in order.
	UpdatedPermissions []json.RawMessage
}

// DeniedOutcome is what PermissionDenied hooks said. The call stays
// denied whatever they say.
type DeniedOutcome struct {
	Common
	// Retry: a hook returned "retry": true, so the model is told that it
	// may make the call again (it is decided anew, the classifier asked
	// again).
	Retry bool
}

// PostOutcome is what PostToolUse or PostToolUseFailure hooks said.
type PostOutcome struct {
	Common
	// Feedback is text for the model next to the result: the reasons of
	// "decision": "block" and the stderr of exit 2. The tool has run; the
	// result stands.
	Feedback []string
	// Blocks are the same feedback hook by hook, in configuration order,
	// as Claude Code quotes it to the model.
	Blocks []PostBlock
	// AdditionalContext is text for the model next to the result.
	AdditionalContext []string
	// UpdatedToolOutput replaces what the model sees of a successful call
	// (PostToolUse); the engine keeps the original when it does not fit
	// the tool's output shape. UpdatedMCPToolOutput is the same for MCP
	// tools.
	UpdatedToolOutput    json.RawMessage
	UpdatedMCPToolOutput json.RawMessage
}

// SessionOutcome is what SessionStart or SessionEnd hooks said.
type SessionOutcome struct {
	Common
	// AdditionalContext is text for the model at the start of the session
	// (SessionStart: hookSpecificOutput.additionalContext, or plain stdout).
	AdditionalContext []string
}
