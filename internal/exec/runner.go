package exec

import (
	"context"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// runTool is the innermost handler: it announces the call and runs it.
func (e *Engine) runTool(ctx context.Context, c *Call) (*tool.Result, error) {
	tr := c.Invocation.Traits()
	c.Sink.Emit(Event{ToolUseID: c.ToolUseID, Started: &Started{
		Tool: c.ToolName(), Activity: c.Invocation.Activity(), ReadOnly: tr.ReadOnly,
	}})
	env := &tool.Env{
		SessionID: c.Session.ID,
		ToolUseID: c.ToolUseID,
		Files:     c.Files,
		Cwd:       e.cwd(c),
		Environ:   e.cfg.Environ,
		State:     sessionState{st: e.cfg.Store, id: c.Session.ID},
		Progress:  progressSink{id: c.ToolUseID, sink: c.Sink},
	}
	return c.Invocation.Run(ctx, env)
}

// cwd is the session's current directory, or its workspace when the
// stored one is no longer inside the session's directories.
func (e *Engine) cwd(c *Call) string {
	if c.Session.Cwd != "" && c.Files.Contains(c.Session.Cwd) {
		return c.Session.Cwd
	}
	return c.Files.Primary()
}

// sessionState adapts the store to what a tool may touch of its session.
type sessionState struct {
	st store.Store
	id string
}

func (s sessionState) RecordRead(ctx context.Context, path string, st tool.FileStamp) error {
	return s.st.RecordRead(ctx, s.id, path, store.FileStamp(st))
}

func (s sessionState) ReadStamp(ctx context.Context, path string) (tool.FileStamp, bool, error) {
	st, ok, err := s.st.ReadStamp(ctx, s.id, path)
	return tool.FileStamp(st), ok, err
}

func (s sessionState) SetCwd(ctx context.Context, dir string) error {
	return s.st.SetCwd(ctx, s.id, dir)
}
