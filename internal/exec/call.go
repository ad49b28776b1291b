// Package exec runs tool calls: each call goes through a chain of call
// interceptors around one runner, and a batch is partitioned so that
// consecutive concurrency-safe calls run together. The engine reports what
// happens to a Sink and knows nothing of gRPC.
package exec

import (
	"context"
	"encoding/json"
	"time"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/workspace"
)

// Request is one tool_use block as the client sent it.
type Request struct {
	ToolUseID string
	Name      string
	// Input is the input object. RawInput is used instead when Input is nil:
	// it is decoded strictly (duplicate keys, invalid UTF-8, trailing data
	// are refused). RawInput is only read, never changed: it may be the
	// memory of the request it came in.
	Input    map[string]any
	RawInput []byte
}

// Call is one call on its way through the interceptor chain. Stages fill in
// what they establish; later stages rely on it.
type Call struct {
	Request
	Session *store.Session
	Files   *workspace.Workspace
	Sink    Sink

	// Set by lookup.
	Tool tool.Tool
	Def  tool.Definition
	// Set by validation: the input after coercion (as JSON and decoded),
	// and the parsed call.
	Input      json.RawMessage
	Args       map[string]any
	Invocation tool.Invocation

	started time.Time
	// runCtx is the context the call runs under: its batch's, cancellable
	// by Cancel on its own (see callCancels).
	runCtx context.Context
	log    *callLog // set while the call runs
	// unclaimed: the call runs before it is recorded (see unclaimed); it
	// may not ask anyone.
	unclaimed bool
}

// ToolName is the tool's canonical name once looked up, else the
// requested one.
func (c *Call) ToolName() string {
	if c.Tool != nil {
		return c.Def.Name
	}
	return c.Name
}

// Handler runs a call to its result. A returned error is turned into an
// error result by the shaping stage; handlers never panic on bad input.
type Handler func(ctx context.Context, c *Call) (*tool.Result, error)

// Interceptor wraps a handler, as gRPC's interceptors do: it may act before
// and after next, or return without calling it.
type Interceptor func(ctx context.Context, c *Call, next Handler) (*tool.Result, error)

// Chain composes interceptors around a final handler; the first interceptor
// is the outermost.
func Chain(final Handler, interceptors ...Interceptor) Handler {
	h := final
	for i := len(interceptors) - 1; i >= 0; i-- {
		ic, next := interceptors[i], h
		h = func(ctx context.Context, c *Call) (*tool.Result, error) {
			return ic(ctx, c, next)
		}
	}
	return h
}
