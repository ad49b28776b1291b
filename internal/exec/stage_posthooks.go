package exec

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/tool"
)

// postHookGrace bounds the PostToolUseFailure hooks of a call whose
// request went away: they still learn about the interruption, but cannot
// hold a shutdown or a DeleteSession for long.
const postHookGrace = 5 * time.Second

// PostHooksStage runs PostToolUse after the tool succeeded and
// PostToolUseFailure after it failed; it sits right around the tool, so
// calls that never ran (invalid input, denied) do not get here. What the
// hooks say for the model (additionalContext, a block's reason, exit 2's
// stderr) is added to the result as text blocks; the result itself
// stands, unless updatedToolOutput replaces a successful one with a value
// of the tool's output shape.
type PostHooksStage struct {
	Hooks  HookRunner
	Report hookReporter
	Logger *slog.Logger
}

func (s PostHooksStage) Handle(ctx context.Context, c *Call, next Handler) (*tool.Result, error) {
	if !hooksOn(s.Hooks) {
		return next(ctx, c)
	}
	start := time.Now()
	res, err := next(ctx, c)
	if passesThrough(err) {
		return res, err
	}
	if err != nil {
		res = ResultFromError(err)
	} else if res == nil {
		return nil, nil
	}
	te := c.hookEvent()
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
		out, herr = s.Hooks.PostToolUseFailure(hctx, te)
	} else {
		te.ToolResponse = hooks.ToolResponse(toolResponse(c, res))
		out, herr = s.Hooks.PostToolUse(hctx, te)
	}
	s.Report.report(hctx, c, out.Reports)
	if herr != nil {
		s.Logger.Warn("the post-call hooks could not be run", "session_id", c.Session.ID, "tool_use_id", c.ToolUseID, "error", herr)
		return res, nil
	}
	if !res.IsError {
		s.replaceOutput(c, res, out)
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

// toolResponse is what the hooks' tool_response is made of.
func toolResponse(c *Call, r *tool.Result) hooks.Response {
	resp := hooks.Response{
		Command: c.Def.Command, Text: resultText(r), Meta: r.Meta,
		Image: len(r.Content) > 0 && r.Content[0].Type == tool.BlockImage,
	}
	for _, k := range []string{"file_path", "notebook_path"} {
		if p, ok := c.Args[k].(string); ok {
			resp.FilePath = &p
		}
	}
	return resp
}

// replaceOutput applies updatedToolOutput (updatedMCPToolOutput for MCP
// tools) when it has the tool's output shape (hooks.OutputText); anything
// else is ignored, as in Claude Code.
func (s PostHooksStage) replaceOutput(c *Call, r *tool.Result, out hooks.PostOutcome) {
	raw := out.UpdatedToolOutput
	if c.Def.MCP && out.UpdatedMCPToolOutput != nil {
		raw = out.UpdatedMCPToolOutput
	}
	if raw == nil {
		return
	}
	text, ok := hooks.OutputText(c.Def.Command, raw)
	if !ok {
		s.Logger.Warn("a PostToolUse hook's updated output does not fit the tool's output shape; the original result is kept", "tool", c.ToolName(), "tool_use_id", c.ToolUseID)
		return
	}
	r.Content = []tool.Block{{Type: tool.BlockText, Text: text}}
}
