package read

import (
	"bufio"
	"bytes"
	"context"

	"github.com/toold/toold/internal/tool"
)

// stored pages through a result the engine stored whole because it was
// too long to return (its handle, toold-result://<tool_use_id>, given as
// file_path), with the numbered lines, offset, limit and notes of a text
// file. The result is the session's: another session's handle finds
// nothing.
func (c *call) stored(ctx context.Context, env *tool.Env, id string) (*tool.Result, error) {
	if c.pages != nil {
		return nil, tool.InvalidInputf("pages applies to PDF files only; page through a stored result with offset and limit.")
	}
	if env.State == nil {
		return nil, tool.Failf("No stored result %s: this session keeps no results.", c.path)
	}
	data, ok, err := env.State.GetBlob(ctx, tool.ResultBlobKey(id))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, tool.Failf("No stored result %s in this session: the handle is wrong, or the result was dropped with its session.", c.path)
	}
	return c.text(ctx, bufio.NewReaderSize(bytes.NewReader(data), bufferSize(int64(len(data)))), int64(len(data)))
}
