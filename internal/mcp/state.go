package mcp

import (
	"fmt"
	"time"
)

// State is where a server is in its life.
type State string

const (
	// StatePending: configured, not started yet (stdio servers start on a
	// session's first use).
	StatePending State = "pending"
	// StateConnecting: starting the process or opening the connection,
	// then initializing and listing tools.
	StateConnecting State = "connecting"
	// StateConnected: tools listed, calls go through.
	StateConnected State = "connected"
	// StateRestarting: the server died or could not be reached; another
	// attempt follows after a backoff.
	StateRestarting State = "restarting"
	// StateFailed: the attempts in a row ran out. The next use of the
	// server (listing the session's tools, calling one) tries again.
	StateFailed State = "failed"
	// StateStopped: stopped with its session or with toold, or never
	// started (a workspace server the operator's settings shadow).
	StateStopped State = "stopped"
)

// ServerState is what an operator sees of one server.
type ServerState struct {
	Name      string
	Transport Transport
	Scope     Scope
	State     State
	// LastError is the latest failure (start, connection, listing), with
	// the end of the server's stderr when it had any. It stays after a
	// recovery until the next failure, so a flapping server shows why.
	LastError string
	Tools     int
	// Restarts counts the attempts after the first.
	Restarts int
	Since    time.Time
}

// UnavailableError is the failure of a call to a server that is not
// connected.
type UnavailableError struct {
	Server    string
	State     State
	LastError string
}

func (e *UnavailableError) Error() string {
	msg := fmt.Sprintf("MCP server %s is not available (%s)", e.Server, e.State)
	if e.LastError != "" {
		msg += ": " + e.LastError
	}
	return msg
}
