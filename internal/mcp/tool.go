package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/internal/tool"
)

const (
	// maxDescriptionBytes is where a tool description is cut, as Claude Code
	// cuts MCP descriptions at 2 KB: servers send whole manuals.
	maxDescriptionBytes = 2048
	// MaxResultCharsCeiling bounds what a tool may ask for with
	// _meta["anthropic/maxResultSizeChars"].
	MaxResultCharsCeiling = 500_000
	metaMaxResultChars    = "anthropic/maxResultSizeChars"
	metaUserInteraction   = "anthropic/requiresUserInteraction"
)

// caller is what a Tool needs from its server's connection.
type caller interface {
	callTool(ctx context.Context, name string, args json.RawMessage, progress tool.Progress) (*sdk.CallToolResult, error)
}

// Tool is one MCP tool as a tool.Tool.
type Tool struct {
	server  string // the server's configured name
	remote  string // the tool's name on its server
	def     tool.Definition
	traits  tool.Traits
	open    bool
	interac bool
	maxRes  int
	timeout time.Duration
	conn    caller
}

var _ tool.Tool = (*Tool)(nil)

func newTool(server string, t *sdk.Tool, timeout time.Duration, conn caller) *Tool {
	ann := t.Annotations
	readOnly := ann != nil && ann.ReadOnlyHint
	mt := &Tool{
		server: server,
		remote: t.Name,
		def: tool.Definition{
			Name:        ToolName(server, t.Name),
			Description: truncateUTF8(t.Description, maxDescriptionBytes),
			InputSchema: schemaOf(t.InputSchema),
			MCP:         true,
		},
		// Fail-closed: a tool that says nothing may write, must run alone,
		// may destroy and may reach outside toold. A read-only tool is
		// taken as safe to run beside other read-only calls, as Claude
		// Code takes it.
		traits: tool.Traits{
			ReadOnly:        readOnly,
			ConcurrencySafe: readOnly,
			Destructive:     !readOnly && (ann == nil || ann.DestructiveHint == nil || *ann.DestructiveHint),
		},
		open:    ann == nil || ann.OpenWorldHint == nil || *ann.OpenWorldHint,
		timeout: timeout,
		conn:    conn,
	}
	if v, ok := t.Meta[metaMaxResultChars].(float64); ok && v > 0 {
		mt.maxRes = int(min(v, MaxResultCharsCeiling))
		// The engine's large-result persistence reads the limit from the
		// definition.
		mt.def.MaxResultChars = mt.maxRes
	}
	if v, ok := t.Meta[metaUserInteraction].(bool); ok {
		mt.interac = v
	}
	return mt
}

// schemaOf passes a tool's input schema through. A server that sends none
// (or something that is not an object schema) gets the schema of "any
// object", which is what MCP requires tool arguments to be.
func schemaOf(s any) json.RawMessage {
	if m, ok := s.(map[string]any); ok && len(m) > 0 {
		if b, err := json.Marshal(m); err == nil {
			return b
		}
	}
	return json.RawMessage(`{"type":"object"}`)
}

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Definition is what the model sees.
func (t *Tool) Definition() tool.Definition { return t.def }

// Server is the configured name of the tool's server.
func (t *Tool) Server() string { return t.server }

// RemoteName is the tool's own name on its server.
func (t *Tool) RemoteName() string { return t.remote }

// Traits are the tool's annotations as toold's traits.
func (t *Tool) Traits() tool.Traits { return t.traits }

// OpenWorld reports whether the tool may reach outside toold (the
// openWorldHint annotation; true when absent).
func (t *Tool) OpenWorld() bool { return t.open }

// RequiresUserInteraction reports _meta["anthropic/requiresUserInteraction"]:
// Claude Code asks before every call of such a tool, in every mode.
func (t *Tool) RequiresUserInteraction() bool { return t.interac }

// MaxResultChars is the result size the tool declared with
// _meta["anthropic/maxResultSizeChars"], at most MaxResultCharsCeiling; 0
// when it declared none and the engine's limit applies.
func (t *Tool) MaxResultChars() int { return t.maxRes }

// Parse takes the schema-checked input as the tool's arguments.
func (t *Tool) Parse(input json.RawMessage) (tool.Invocation, error) {
	var obj map[string]json.RawMessage
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	if err := json.Unmarshal(input, &obj); err != nil || obj == nil {
		return nil, tool.InvalidInputf("Input for %s must be a JSON object.", t.def.Name)
	}
	return &invocation{t: t, args: input}, nil
}

type invocation struct {
	t    *Tool
	args json.RawMessage
}

func (c *invocation) Traits() tool.Traits { return c.t.traits }

func (c *invocation) Activity() tool.Activity {
	return tool.Activity{Summary: fmt.Sprintf("%s - %s (MCP)", c.t.server, c.t.remote)}
}

func (c *invocation) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	callCtx, cancel := context.WithTimeout(ctx, c.t.timeout)
	defer cancel()
	var progress tool.Progress = tool.NopProgress{}
	if env != nil && env.Progress != nil {
		progress = env.Progress
	}
	res, err := c.t.conn.callTool(callCtx, c.t.remote, c.args, progress)
	if err != nil {
		return nil, c.callError(ctx, callCtx, err)
	}
	return resultFromMCP(c.t.server, res), nil
}

// callError explains a failed call to the model. The caller's own
// cancellation is passed on as it is, so that the engine reports it as a
// cancellation and not as the server's fault.
func (c *invocation) callError(ctx, callCtx context.Context, err error) error {
	var unavail *UnavailableError
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case callCtx.Err() != nil:
		return tool.Errorf(tool.KindTimeout, "MCP server %s did not answer %s within %s; the call was cancelled.",
			c.t.server, c.t.remote, c.t.timeout)
	case errors.As(err, &unavail):
		return &tool.Error{Kind: tool.KindUnavailable, Msg: unavail.Error(), Err: err}
	case errors.As(err, new(*jsonrpc.Error)):
		return &tool.Error{Kind: tool.KindFailed, Err: err,
			Msg: fmt.Sprintf("MCP server %s refused the call to %s: %v", c.t.server, c.t.remote, err)}
	}
	// Anything but an answer (EOF, a closed pipe, a frame that is not
	// JSON-RPC) means the connection is gone; the server is restarted.
	return &tool.Error{Kind: tool.KindUnavailable, Err: err,
		Msg: fmt.Sprintf("MCP server %s did not answer the call to %s: the connection failed (%v).", c.t.server, c.t.remote, err)}
}
