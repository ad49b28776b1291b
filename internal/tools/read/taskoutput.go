package read

import (
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"

	"github.com/toold/toold/internal/tool"
)

// TaskOutputs opens the output files of a session's background tasks. A
// task the session does not have is an error matching fs.ErrNotExist.
type TaskOutputs interface {
	OpenOutput(sessionID, taskID string) (io.Reader, int64, error)
}

// taskOutput reads a background task's output file (its handle given as
// file_path), numbered, with offset and limit as for any text file: what
// Claude Code's model does with the output file path its Bash gives it.
// The file is the session's: another session's handle finds nothing.
func (c *call) taskOutput(ctx context.Context, env *tool.Env, id string) (*tool.Result, error) {
	if c.pages != nil {
		return nil, tool.InvalidInputf("pages applies to PDF files only; page through a task's output with offset and limit.")
	}
	if c.opts.Tasks == nil {
		return nil, tool.Failf("File does not exist: this server runs no background tasks, so %s names no output.", c.path)
	}
	rd, size, err := c.opts.Tasks.OpenOutput(env.SessionID, id)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, tool.Errorf(tool.KindNotFound, "File does not exist: this session has no background task %s.", id)
	}
	if err != nil {
		return nil, err
	}
	return c.text(ctx, bufio.NewReaderSize(io.LimitReader(rd, size), bufferSize(size)), size)
}
