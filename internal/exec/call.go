// Package exec runs tool calls: each call goes through the stages of the
// call path (path.go lists them, in order, once), and a batch is
// partitioned so that consecutive concurrency-safe calls run together.
// The engine reports what happens to a Sink and knows nothing of gRPC.
package exec

import (
	"context"
	"encoding/json"
	"time"

	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/shell"
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
	// Shell is the analysis of a command tool's line (Definition.Command),
	// made once by validation for the policy, the hooks' `if` filters and
	// the refusal texts; nil for other tools.
	Shell *shell.Analysis

	// Set by the PreToolUse hooks stage for the policy stage: what the
	// hooks decided (nil: no hooks ran, or they did not decide).
	PreHook *PreHookVerdict

	started time.Time
	// runCtx is the context the call runs under: its batch's, cancellable
	// by Cancel on its own (see callCancels).
	runCtx context.Context
	log    *callLog // set while the call runs
	// unclaimed: the call runs before it is recorded (see unclaimed); it
	// may not ask anyone.
	unclaimed bool
	// streamless: the batch's sink cannot carry a permission request or a
	// delegation (StreamlessSink); needsStream is set when the call
	// stopped for that reason.
	streamless, needsStream bool
}

// ToolName is the tool's canonical name once looked up, else the
// requested one.
func (c *Call) ToolName() string {
	if c.Tool != nil {
		return c.Def.Name
	}
	return c.Name
}

// PreHookVerdict is the PreToolUse hooks' decision, which the policy stage
// combines with the rules'.
type PreHookVerdict struct {
	Decision hooks.Decision
	Reason   string
}

// Cwd is the session's current directory, or its workspace when the
// stored one is no longer inside the session's directories.
func (c *Call) Cwd() string {
	if c.Session.Cwd != "" && c.Files.Contains(c.Session.Cwd) {
		return c.Session.Cwd
	}
	return c.Files.Primary()
}

// PolicyRequest is what the decider sees of the call: the call as one of
// the tool it is decided as (tool.Definition.DecideAs), if any.
func (c *Call) PolicyRequest() policy.Request {
	s := c.Session
	name := c.ToolName()
	if c.Tool != nil && c.Def.DecideAs != "" {
		name = c.Def.DecideAs
	}
	isolated := ""
	if s.Worktree != "" {
		isolated = s.Workspace
	}
	return policy.Request{
		Isolated:    isolated,
		SessionID:   s.ID,
		Tool:        name,
		Input:       c.Input,
		Args:        c.Args,
		Shell:       c.Shell,
		ReadOnly:    c.Invocation.Traits().ReadOnly,
		SafetyCheck: c.Invocation.Traits().SafetyCheck,
		Mode:        s.Mode,
		Cwd:         c.Cwd(),
		Workspace:   s.Root(),
		Dirs:        c.Files.Dirs(),
		Rules:       session.SessionRules(s),
		Revision:    s.Revision,
	}
}

// hookEvent is what the hooks learn about the call.
func (c *Call) hookEvent() hooks.ToolEvent {
	return hooks.ToolEvent{
		Session: hooks.Session{
			ID: c.Session.ID, Workspace: c.Files.Primary(), ProjectDir: c.Session.Workspace, Cwd: c.Cwd(), PermissionMode: c.Session.Mode,
		},
		ToolName: c.ToolName(), ToolInput: c.Input, ToolUseID: c.ToolUseID,
		Args: c.Args, Shell: c.Shell,
	}
}

// Handler runs a call to its result. A returned error is turned into an
// error result by the shaping stage; handlers never panic on bad input.
type Handler func(ctx context.Context, c *Call) (*tool.Result, error)

// Stage is one step of the call path. It may act before and after next,
// or return without calling it; what it establishes for later stages it
// sets on the call.
type Stage interface {
	Handle(ctx context.Context, c *Call, next Handler) (*tool.Result, error)
}

// Interceptor is a stage written as a function, as gRPC's interceptors
// are: the configured ones (audit, quotas) are.
type Interceptor func(ctx context.Context, c *Call, next Handler) (*tool.Result, error)

// Handle makes an Interceptor a Stage.
func (f Interceptor) Handle(ctx context.Context, c *Call, next Handler) (*tool.Result, error) {
	return f(ctx, c, next)
}

// Chain composes stages around a final handler; the first stage is the
// outermost.
func Chain(final Handler, stages ...Stage) Handler {
	h := final
	for i := len(stages) - 1; i >= 0; i-- {
		st, next := stages[i], h
		h = func(ctx context.Context, c *Call) (*tool.Result, error) {
			return st.Handle(ctx, c, next)
		}
	}
	return h
}

// done is the end of a chain that only prepares a call.
func done(context.Context, *Call) (*tool.Result, error) { return nil, nil }
