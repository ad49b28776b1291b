package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/toold/toold/internal/tool"
)

// Backend is what the endpoint needs of the engine.
type Backend interface {
	// CreateSession opens a toold session for an MCP client that named
	// none. The backend decides what a client may ask for (a workspace
	// under the operator's root, a permission mode the operator allows).
	CreateSession(ctx context.Context, req SessionRequest) (string, error)
	// ListTools returns the session's tool pool in the order the model
	// sees it. An unknown session is an error.
	ListTools(ctx context.Context, sessionID string) ([]tool.Definition, error)
	// Call runs one tool call through the whole call chain. A failed call
	// is an error result (Result.IsError); an error means the call could
	// not be run at all (no such session, state unavailable). When the
	// chain must ask, it asks asker.
	Call(ctx context.Context, sessionID, toolUseID, name string, input json.RawMessage, asker Asker) (*tool.Result, error)
	// EndSession ends a session CreateSession opened, when its MCP session
	// ends (the client's DELETE, idle timeout, shutdown).
	EndSession(ctx context.Context, sessionID string) error
}

// SessionRequest is what an MCP client asked for when it initialized
// without naming a session. Empty fields mean the backend's defaults.
type SessionRequest struct {
	// Workspace is the Toold-Workspace header.
	Workspace string
	// PermissionMode is the Toold-Permission-Mode header.
	PermissionMode string
	// ClientName and ClientVersion are the client's clientInfo.
	ClientName    string
	ClientVersion string
}

// Headers an MCP client may send with its initialize request.
const (
	SessionHeader   = "Toold-Session-Id"
	WorkspaceHeader = "Toold-Workspace"
	ModeHeader      = "Toold-Permission-Mode"
)

// Asker puts a permission question to whoever drives the session.
type Asker interface {
	// Ask returns the answer. An error (the client went away, the context
	// ended) is to be taken as a denial.
	Ask(ctx context.Context, q Question) (Answer, error)
}

// Question is a permission request of one call.
type Question struct {
	ToolUseID string
	Tool      string
	Input     json.RawMessage
	// Summary is the call's activity summary ("Run: rm -rf build").
	Summary string
	// Reason says why the chain asks (the rule, the mode, the hook).
	Reason string
}

// Answer is the person's decision.
type Answer struct {
	Allow bool
	// ForSession asks to allow calls like this one for the rest of the
	// session, as a "don't ask again" does.
	ForSession bool
	// Reason is told to the model when the call is denied.
	Reason string
}
