// Package write implements the Write tool: create a file or replace one the
// model has read, in one atomic step.
package write

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/filestate"
)

// New returns the Write tool with Claude Code's read-before-write rule.
func New() tool.Tool { return NewWith(filestate.Policy{}) }

// NewWith returns the Write tool held to policy p.
func NewWith(p filestate.Policy) tool.Tool { return writeTool{policy: p} }

type writeTool struct{ policy filestate.Policy }

func (w writeTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        "Write",
		Description: fmt.Sprintf(description, readRule[w.policy.RequireRead]),
		InputSchema: json.RawMessage(inputSchema),
		// Auto mode's classifier sees the path and an excerpt of the change.
		Classifier:   tool.ClassifierInput{Fields: []string{"file_path"}, Excerpts: []string{"content"}},
		Paths:        tool.PathsWrite,
		PathDenyText: true,
	}
}

type input struct {
	FilePath string `json:"file_path"`
	Content  string `json:"content"`
}

func (w writeTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for Write: %v", err)
	}
	if in.FilePath == "" {
		return nil, tool.InvalidInputf("file_path is empty: give the absolute path of the file to write.")
	}
	return &call{in: in, policy: w.policy}, nil
}

type call struct {
	in     input
	policy filestate.Policy
}

// currentNote ends Claude Code's success texts: the model wrote the whole
// file, so it knows its content.
const currentNote = " (file state is current in your context — no need to Read it back)"

// Traits are the zero value: a write must run alone and may change files.
func (c *call) Traits() tool.Traits { return tool.Traits{} }

func (c *call) Activity() tool.Activity {
	return tool.Activity{Summary: "Write " + c.in.FilePath}
}

func (c *call) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	t, err := filestate.Locate(env, c.in.FilePath)
	if err != nil {
		return nil, notDir(c.in.FilePath, env, err)
	}
	// The check and the write happen under the file's lock, so that of
	// two writers from the same read only one replaces the file.
	fl, err := filestate.Lock(ctx, t, true)
	if err != nil {
		return nil, notDir(c.in.FilePath, env, err)
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
		return nil, tool.Errorf(tool.KindWrongType, "%s is a directory, not a file. To create a file inside it, include the file name in file_path.", c.in.FilePath)
	case !fi.Mode().IsRegular():
		return nil, tool.Errorf(tool.KindWrongType, "%s is not a regular file (%s); Write only replaces regular files.", c.in.FilePath, fi.Mode().Type())
	default:
		if err := c.check(ctx, env, t, fi); err != nil {
			return nil, err
		}
	}
	if err := filestate.Commit(ctx, env, t, fl, contentBytes(c.in.Content)); err != nil {
		return nil, err
	}
	if exists {
		return tool.Text("The file " + c.in.FilePath + " has been updated successfully." + currentNote), nil
	}
	return tool.Text("File created successfully at: " + c.in.FilePath + currentNote), nil
}

// notDir gives Claude Code's words for a path through a file (a/b where
// a is a file); other errors are returned as they are.
func notDir(path string, env *tool.Env, err error) error {
	if !errors.Is(err, syscall.ENOTDIR) {
		return err
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Cwd, path)
	}
	return tool.Errorf(tool.KindWrongType, "Error calling tool (Write): ENOTDIR: not a directory, stat '%s'", path)
}

// check applies the read-before-write rule to the existing file fi. In
// Claude Code's, a file the model never read may be replaced, one that
// changed on disk since the model read it may not (the model would undo a
// change it has not seen).
func (c *call) check(ctx context.Context, env *tool.Env, t filestate.Target, fi fs.FileInfo) error {
	if c.policy.RequireRead {
		return filestate.CheckFresh(ctx, env, t, fi)
	}
	_, ok, err := env.State.ReadStamp(ctx, t.Real.Abs)
	if err != nil || !ok {
		return err
	}
	return filestate.CheckFresh(ctx, env, t, fi)
}
