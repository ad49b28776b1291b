// Package write implements the Write tool: create a file or replace one the
// model has read, in one atomic step.
package write

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/filestate"
)

// New returns the Write tool.
func New() tool.Tool { return writeTool{} }

type writeTool struct{}

func (writeTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        "Write",
		Description: description,
		InputSchema: json.RawMessage(inputSchema),
	}
}

type input struct {
	FilePath string `json:"file_path"`
	Content  string `json:"content"`
}

func (writeTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for Write: %v", err)
	}
	if in.FilePath == "" {
		return nil, tool.InvalidInputf("file_path is empty: give the absolute path of the file to write.")
	}
	return &call{in: in}, nil
}

type call struct {
	in input
}

// Traits are the zero value: a write must run alone and may change files.
func (c *call) Traits() tool.Traits { return tool.Traits{} }

func (c *call) Activity() tool.Activity {
	return tool.Activity{Summary: "Write " + c.in.FilePath}
}

func (c *call) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	t, err := filestate.Locate(env, c.in.FilePath)
	if err != nil {
		return nil, err
	}
	// The check and the write happen under the file's lock, so that of
	// two writers from the same read only one replaces the file.
	fl, err := filestate.Lock(ctx, t, true)
	if err != nil {
		return nil, err
	}
	defer fl.Unlock()
	fi, err := fl.Stat()
	exists := err == nil
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A new file needs no read.
	case err != nil:
		return nil, filestate.AccessError(t.Given.Abs, err)
	case fi.IsDir():
		return nil, tool.Failf("%s is a directory; Write needs the path of a file.", t.Given.Abs)
	case !fi.Mode().IsRegular():
		return nil, tool.Failf("%s is not a regular file (%s); Write only replaces regular files.", t.Given.Abs, fi.Mode().Type())
	default:
		if err := filestate.CheckFresh(ctx, env, t, fi); err != nil {
			return nil, err
		}
	}
	if err := filestate.Commit(ctx, env, t, fl, contentBytes(c.in.Content)); err != nil {
		return nil, err
	}
	if exists {
		return tool.Text("The file " + t.Given.Abs + " has been updated."), nil
	}
	return tool.Text("File created successfully at: " + t.Given.Abs), nil
}
