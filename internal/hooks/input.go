package hooks

import (
	"encoding/json"
	"time"

	"github.com/toold/toold/internal/shell"
)

// Session is what every hook learns about the session an event belongs to.
type Session struct {
	ID string
	// Workspace is the session's primary directory (its worktree while it
	// is in one), whose settings files hold workspace hooks. Absolute.
	Workspace string
	// ProjectDir is where hooks run and what they find in
	// $CLAUDE_PROJECT_DIR: the session's workspace, which stays put while
	// the session works in a worktree, as Claude Code's project directory
	// does. "" means Workspace.
	ProjectDir string
	// Cwd is the session's current directory (the input's "cwd");
	// "" means Workspace.
	Cwd string
	// PermissionMode is the session's mode in Claude Code's spelling.
	PermissionMode string
	// TranscriptPath is the conversation transcript, when the caller has
	// one to give; toold keeps none.
	TranscriptPath string
}

func (s Session) cwd() string {
	if s.Cwd != "" {
		return s.Cwd
	}
	return s.Workspace
}

// ToolEvent is one tool call, as the tool events see it.
type ToolEvent struct {
	Session   Session
	ToolName  string
	ToolInput json.RawMessage
	ToolUseID string
	// Args is ToolInput decoded and Shell the analysis of a Bash call's
	// command, when the engine has them (nil: the `if` filters make their
	// own).
	Args  map[string]any
	Shell *shell.Analysis
	// ToolResponse is what the tool returned (PostToolUse).
	ToolResponse json.RawMessage
	// Duration is how long the tool ran (PostToolUse, PostToolUseFailure).
	Duration time.Duration
	// Error is the failure (PostToolUseFailure).
	Error string
	// IsInterrupt says the call was cancelled (PostToolUseFailure).
	IsInterrupt bool
	// Reason is why auto mode's classifier denied the call, in its own
	// words (PermissionDenied).
	Reason string
	// PermissionSuggestions are the permission updates that would allow
	// the call next time (PermissionRequest), each a JSON object such as
	// {"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm test"}],
	// "behavior":"allow","destination":"session"}.
	PermissionSuggestions []json.RawMessage
}

// SessionStartEvent starts a session.
type SessionStartEvent struct {
	Session Session
	// Source is "startup", "resume", "clear" or "compact"; "" means
	// "startup". SessionStart matchers match it.
	Source string
	Model  string
}

// SessionEndEvent ends a session.
type SessionEndEvent struct {
	Session Session
	// Reason is "clear", "resume", "logout", "prompt_input_exit" or
	// "other"; "" means "other". SessionEnd matchers match it.
	Reason string
}

// input is the JSON a command hook reads on stdin, field for field as
// Claude Code writes it; the gRPC hook type carries the same fields.
type input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	PermissionMode string `json:"permission_mode,omitempty"`
	HookEventName  Event  `json:"hook_event_name"`

	ToolName  string          `json:"tool_name,omitempty"`
	ToolInput json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`

	ToolResponse          json.RawMessage   `json:"tool_response,omitempty"`
	DurationMS            *int64            `json:"duration_ms,omitempty"`
	Error                 *string           `json:"error,omitempty"`
	IsInterrupt           *bool             `json:"is_interrupt,omitempty"`
	PermissionSuggestions []json.RawMessage `json:"permission_suggestions,omitzero"`

	Source string `json:"source,omitempty"`
	Model  string `json:"model,omitempty"`
	Reason string `json:"reason,omitempty"`

	AgentID              string `json:"agent_id,omitempty"`
	AgentType            string `json:"agent_type,omitempty"`
	StopHookActive       *bool  `json:"stop_hook_active,omitempty"`
	LastAssistantMessage string `json:"last_assistant_message,omitempty"`

	Name         string `json:"name,omitempty"`
	WorktreePath string `json:"worktree_path,omitempty"`

	// projectDir is $CLAUDE_PROJECT_DIR; not part of the JSON.
	projectDir string
	// matchOn is what the event's matchers match.
	matchOn string
}

func sessionInput(ev Event, s Session) input {
	return input{
		SessionID: s.ID, TranscriptPath: s.TranscriptPath, Cwd: s.cwd(),
		PermissionMode: s.PermissionMode, HookEventName: ev, projectDir: firstNonEmpty(s.ProjectDir, s.Workspace),
	}
}

func toolInput(ev Event, te ToolEvent) input {
	in := sessionInput(ev, te.Session)
	in.ToolName, in.ToolInput, in.matchOn = te.ToolName, te.ToolInput, te.ToolName
	if len(in.ToolInput) == 0 {
		in.ToolInput = json.RawMessage("{}")
	}
	// PermissionRequest has no tool_use_id: the prompt is about the call,
	// not one use of it.
	if ev != PermissionRequest {
		in.ToolUseID = te.ToolUseID
	}
	switch ev {
	case PostToolUse:
		in.ToolResponse = te.ToolResponse
		if len(in.ToolResponse) == 0 {
			in.ToolResponse = json.RawMessage("null")
		}
		in.DurationMS = durationMS(te.Duration)
	case PostToolUseFailure:
		in.Error, in.IsInterrupt = &te.Error, &te.IsInterrupt
		in.DurationMS = durationMS(te.Duration)
	case PermissionDenied:
		in.Reason = firstNonEmpty(te.Reason, "Permission denied")
	case PermissionRequest:
		in.PermissionSuggestions = te.PermissionSuggestions
		if in.PermissionSuggestions == nil {
			in.PermissionSuggestions = []json.RawMessage{}
		}
	}
	return in
}

func durationMS(d time.Duration) *int64 {
	ms := d.Milliseconds()
	return &ms
}
