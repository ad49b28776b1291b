package edit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/filestate"
	"github.com/toold/toold/internal/workspace"
)

func (c *call) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	t, err := filestate.Locate(env, c.in.FilePath)
	if err != nil {
		return nil, err
	}
	// The check and the write happen under the file's lock, so that of
	// two edits from the same read only one applies.
	fl, err := filestate.Lock(ctx, t, c.in.OldString == "")
	if err != nil {
		return nil, err
	}
	defer fl.Unlock()
	fi, err := fl.Stat()
	if errors.Is(err, fs.ErrNotExist) {
		if c.in.OldString == "" {
			return c.create(ctx, env, t, fl)
		}
		return nil, tool.Failf("File does not exist: %s.", t.Given.Abs)
	}
	if err != nil {
		return nil, filestate.AccessError(t.Given.Abs, err)
	}
	if fi.IsDir() {
		return nil, tool.Failf("%s is a directory; Edit needs the path of a file.", t.Given.Abs)
	}
	if !fi.Mode().IsRegular() {
		return nil, tool.Failf("%s is not a regular file (%s); Edit only changes regular files.", t.Given.Abs, fi.Mode().Type())
	}
	if fi.Size() > maxFileBytes {
		return nil, tool.Failf("%s is %d MiB; Edit only changes files up to %d MiB. Use Bash (for example sed) for larger files.",
			t.Given.Abs, fi.Size()>>20, maxFileBytes>>20)
	}
	content, err := filestate.ReadFresh(ctx, env, t, fi, maxFileBytes)
	if err != nil {
		return nil, err
	}

	var ed filestate.Replaced
	if c.in.OldString == "" {
		if len(content) > 0 {
			return nil, tool.Failf("Cannot create %s: the file already exists and is not empty. An empty old_string only creates a file (or fills an empty one); give the text to replace in old_string.", t.Given.Abs)
		}
		ed = filestate.Replaced{Content: []byte(c.in.NewString), NewLen: len(c.in.NewString), Count: 1}
	} else if ed, err = filestate.Replace(content, c.in.OldString, c.in.NewString, c.in.ReplaceAll); err != nil {
		return nil, err
	}
	if err := filestate.Commit(ctx, env, t, fl, ed.Content); err != nil {
		return nil, err
	}

	var sb strings.Builder
	sb.WriteString("The file " + t.Given.Abs + " has been updated.")
	switch {
	case c.in.ReplaceAll && ed.Count == 1:
		sb.WriteString(" The one occurrence of old_string was replaced.")
	case c.in.ReplaceAll:
		fmt.Fprintf(&sb, " All %d occurrences of old_string were replaced.", ed.Count)
	}
	writeSnippet(&sb, ed)
	return tool.Text(sb.String()), nil
}

// create makes a new file from new_string (empty old_string, no file).
func (c *call) create(ctx context.Context, env *tool.Env, t filestate.Target, fl *workspace.FileLock) (*tool.Result, error) {
	if err := filestate.Commit(ctx, env, t, fl, []byte(c.in.NewString)); err != nil {
		return nil, err
	}
	return tool.Text("File created successfully at: " + t.Given.Abs), nil
}
