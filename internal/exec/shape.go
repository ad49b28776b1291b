package exec

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/workspace"
)

// ResultFromError turns any error a stage or tool returned into the
// in-band result the model reads. It is the one place where error types
// become error kinds.
func ResultFromError(err error) *tool.Result {
	var te *tool.Error
	switch {
	case errors.As(err, &te):
		return tool.ErrorResult(te.Kind, wrapToolUseError(te))
	case errors.Is(err, workspace.ErrOutside):
		return tool.ErrorResult(tool.KindPermissionDenied, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return tool.ErrorResult(tool.KindTimeout, "The call did not finish within its time limit and was stopped.")
	case errors.Is(err, context.Canceled):
		return tool.ErrorResult(tool.KindCancelled, "The call was cancelled before it finished.")
	case errors.Is(err, store.ErrUnavailable):
		return tool.ErrorResult(tool.KindUnavailable, "Session state could not be read or written, so the call did not complete: "+err.Error())
	default:
		return tool.ErrorResult(tool.KindFailed, err.Error())
	}
}

// wrapToolUseError is the text of a tool error as Claude Code gives it:
// in <tool_use_error> tags, as Claude Code wraps every failure of a call
// that its checks refused before or while it ran (invalid input, an
// unknown tool, the tool's own checks: "File has not been read yet",
// "String to replace not found"). Not wrapped are results a tool returns
// (a command's non-zero exit), errors marked Bare (Claude Code's
// exceptions), and what the permission stage says on its own, whose text
// is Claude Code's whole (a refusal, "Claude requested permissions to
// ..."), as are timeouts, cancellations and toold's unavailability.
func wrapToolUseError(te *tool.Error) string {
	if te.Bare || strings.HasPrefix(te.Msg, toolUseErrorOpen) {
		return te.Msg
	}
	switch te.Kind {
	case tool.KindPermissionDenied, tool.KindTimeout, tool.KindCancelled, tool.KindUnavailable:
		return te.Msg
	}
	return toolUseErrorOpen + te.Msg + toolUseErrorClose
}

const (
	toolUseErrorOpen  = "<tool_use_error>"
	toolUseErrorClose = "</tool_use_error>"
)

// shape makes the final result: errors become error results, an empty
// result gets a text block (the Messages API wants content), and text past
// maxChars is cut with a note so one call cannot flood the model's context.
func shape(res *tool.Result, err error, maxChars int) *tool.Result {
	if err != nil || res == nil {
		return normalize(res, err)
	}
	res = normalize(res, nil)
	capText(res, maxChars)
	return res
}

// shapeCall shapes the result of a call that ran with a call log: text
// past the tool's limit is stored whole in the session and replaced by a
// preview with a handle (see persist); the hard cut of shape stays as a
// guard for text that could not be stored.
func (e *Engine) shapeCall(ctx context.Context, c *Call, blobs blobStore, res *tool.Result, err error) *tool.Result {
	res = normalize(res, cancelReason(ctx, err))
	limit := resultLimit(c.Def)
	persist(ctx, blobs, c.ToolUseID, res, limit)
	capText(res, max(e.cfg.MaxResultChars, limit))
	return res
}

// ErrShuttingDown and ErrSessionDeleted are why the engine cancels running
// calls (Shutdown, CancelSession); a cancelled call's result says which.
var (
	ErrShuttingDown   = errors.New("toold is shutting down")
	ErrSessionDeleted = errors.New("its session was deleted")
)

// cancelReason turns a cancellation the engine caused into a cancelled
// result that names the cause. A client's own cancel keeps the plain
// context error: it has no reason to give.
func cancelReason(ctx context.Context, err error) error {
	if !errors.Is(err, context.Canceled) {
		return err
	}
	cause := context.Cause(ctx)
	if errors.Is(cause, ErrShuttingDown) || errors.Is(cause, ErrSessionDeleted) {
		return tool.Errorf(tool.KindCancelled, "The call was cancelled before it finished: %v.", cause)
	}
	return err
}

func normalize(res *tool.Result, err error) *tool.Result {
	if err != nil {
		return ResultFromError(err)
	}
	if res == nil {
		return tool.ErrorResult(tool.KindInternal, "The tool returned no result.")
	}
	if res.IsError && res.Kind == tool.KindNone {
		res.Kind = tool.KindFailed
	}
	if len(res.Content) == 0 {
		res.Content = []tool.Block{{Type: tool.BlockText, Text: "(no output)"}}
	}
	return res
}

func capText(res *tool.Result, maxChars int) {
	for i := range res.Content {
		b := &res.Content[i]
		if b.Type == tool.BlockText && len(b.Text) > maxChars {
			b.Text = truncateChars(b.Text, maxChars)
		}
	}
}

func truncateChars(s string, max int) string {
	n := 0
	for i := range s {
		if n == max {
			rest := utf8.RuneCountInString(s[i:])
			return s[:i] + fmt.Sprintf("\n\n[Result truncated: %d more characters were cut.]", rest)
		}
		n++
	}
	return s
}
