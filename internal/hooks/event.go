package hooks

// Event is a hook event name, spelled as in Claude Code's settings.
type Event string

// The events toold fires.
const (
	// PreToolUse runs after a call's input is validated and before its
	// permission rules are evaluated; it can block the call or rewrite its
	// input.
	PreToolUse Event = "PreToolUse"
	// PermissionRequest runs when a call would wait for an answer; it can
	// give the answer.
	PermissionRequest Event = "PermissionRequest"
	// PermissionDenied runs after auto mode's classifier denied a call
	// (only then, as in Claude Code); it cannot undo the denial, but it
	// can tell the model that it may make the call again.
	PermissionDenied Event = "PermissionDenied"
	// PostToolUse runs after a call succeeded.
	PostToolUse Event = "PostToolUse"
	// PostToolUseFailure runs after a call failed (not after a validation
	// error or a denial).
	PostToolUseFailure Event = "PostToolUseFailure"
	// SessionStart runs when a session is created.
	SessionStart Event = "SessionStart"
	// SessionEnd runs when a session is deleted.
	SessionEnd Event = "SessionEnd"
	// SubagentStart runs when an Agent call has made its subagent's
	// session, before the orchestrator is handed the call.
	SubagentStart Event = "SubagentStart"
	// SubagentStop runs when the orchestrator completed an Agent call
	// with the subagent's report.
	SubagentStop Event = "SubagentStop"
	// WorktreeCreate makes the worktree EnterWorktree puts the session
	// in: the hook prints its path. Configured, it replaces git.
	WorktreeCreate Event = "WorktreeCreate"
	// WorktreeRemove removes a worktree a WorktreeCreate hook made, when
	// ExitWorktree removes it.
	WorktreeRemove Event = "WorktreeRemove"
)

// Events lists the events toold fires.
var Events = []Event{PreToolUse, PermissionRequest, PermissionDenied, PostToolUse, PostToolUseFailure, SessionStart, SessionEnd, SubagentStart, SubagentStop, WorktreeCreate, WorktreeRemove}

// inertEvents are documented Claude Code events that belong to the agent
// loop, which lives in the orchestrator, not in toold: the prompt, the
// model's turns, compaction, subagents, the terminal. Settings may
// configure them (a team moves its settings file unchanged); their hooks
// are parsed, reported by Config.Inert, and never run.
var inertEvents = map[Event]string{
	"UserPromptSubmit":    "prompts are the orchestrator's",
	"UserPromptExpansion": "prompts are the orchestrator's",
	"Stop":                "the model's turns are the orchestrator's",
	"StopFailure":         "the model's turns are the orchestrator's",
	"Notification":        "toold shows nothing to a user; permission requests go to the Execute stream",
	"PreCompact":          "the context window is the orchestrator's",
	"PostCompact":         "the context window is the orchestrator's",
	"PostToolBatch":       "it gates the next model call, which is the orchestrator's",
	"Setup":               "toold has no installation step",
	"InstructionsLoaded":  "instructions are the orchestrator's",
	"ConfigChange":        "toold reads its settings once, at start",
	"CwdChanged":          "not fired by toold",
	"DirectoryAdded":      "not fired by toold",
	"FileChanged":         "toold watches no files",
	"TaskCreated":         "tasks are the orchestrator's",
	"TaskCompleted":       "tasks are the orchestrator's",
	"TeammateIdle":        "teammates are the orchestrator's",
	"Elicitation":         "MCP elicitation is the orchestrator's",
	"ElicitationResult":   "MCP elicitation is the orchestrator's",
	"MessageDisplay":      "toold displays nothing",
}

// InertReason says why toold never fires a documented event, "" when it
// does fire it or the name is not a documented event.
func InertReason(e Event) string { return inertEvents[e] }

func (e Event) fired() bool {
	for _, f := range Events {
		if e == f {
			return true
		}
	}
	return false
}

// matcherless reports whether the event has no matcher support: Claude
// Code ignores a matcher written on it.
func (e Event) matcherless() bool { return e.worktreeEvent() }

func (e Event) worktreeEvent() bool { return e == WorktreeCreate || e == WorktreeRemove }

// toolEvent reports whether the event concerns one tool call: its matcher
// is a tool name and `if` filters apply.
func (e Event) toolEvent() bool {
	switch e {
	case PreToolUse, PermissionRequest, PermissionDenied, PostToolUse, PostToolUseFailure:
		return true
	}
	return false
}
