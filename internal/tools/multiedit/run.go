package multiedit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"unicode/utf8"

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
	create := c.in.Edits[0].OldString == ""
	if _, err := t.Real.Stat(); !create && errors.Is(err, fs.ErrNotExist) {
		return nil, c.missing(t)
	}
	fl, err := filestate.Lock(ctx, t, create)
	if err != nil {
		return nil, err
	}
	defer fl.Unlock()
	content, created, err := c.load(ctx, env, t, fl)
	if err != nil {
		return nil, err
	}
	res, err := apply(t.Given.Abs, content, c.in.Edits)
	if err != nil {
		return nil, err
	}
	if err := filestate.Commit(ctx, env, t, fl, res.content); err != nil {
		return nil, err
	}
	return tool.Text(c.summary(t.Given.Abs, created, res)), nil
}

// load returns the file's current content after the read-before-write
// checks, or no content and created=true for a file the first edit creates.
func (c *call) load(ctx context.Context, env *tool.Env, t filestate.Target, fl *workspace.FileLock) ([]byte, bool, error) {
	fi, err := fl.Stat()
	if errors.Is(err, fs.ErrNotExist) {
		if c.in.Edits[0].OldString == "" {
			return nil, true, nil
		}
		return nil, false, c.missing(t)
	}
	if err != nil {
		return nil, false, filestate.AccessError(t.Given.Abs, err)
	}
	switch {
	case fi.IsDir():
		return nil, false, tool.Failf("%s is a directory; MultiEdit needs the path of a file.", t.Given.Abs)
	case !fi.Mode().IsRegular():
		return nil, false, tool.Failf("%s is not a regular file (%s); MultiEdit only changes regular files.", t.Given.Abs, fi.Mode().Type())
	case fi.Size() > maxFileBytes:
		return nil, false, tool.Failf("%s is %d MiB; MultiEdit only changes files up to %d MiB. Use Bash (for example sed) for larger files.",
			t.Given.Abs, fi.Size()>>20, maxFileBytes>>20)
	}
	content, ofi, err := filestate.ReadLocked(t, maxFileBytes)
	if err != nil {
		return nil, false, err
	}
	seen, err := filestate.Check(ctx, env, t, ofi, content)
	if err != nil {
		return nil, false, err
	}
	if err := c.policy.Refusal(seen); err != nil {
		return nil, false, err
	}
	return content, false, nil
}

func (c *call) missing(t filestate.Target) error {
	return tool.Failf("File does not exist: %s. To create it, make the first edit's old_string empty and give the content as its new_string.", t.Given.Abs)
}

// previewChars bounds each string quoted in the summary.
const previewChars = 60

func (c *call) summary(path string, created bool, res applied) string {
	var sb strings.Builder
	n := len(c.in.Edits)
	if created {
		fmt.Fprintf(&sb, "Created %s and applied %d edit%s:", path, n, plural(n))
	} else {
		fmt.Fprintf(&sb, "Applied %d edit%s to %s:", n, plural(n), path)
	}
	for i, e := range c.in.Edits {
		fmt.Fprintf(&sb, "\n%d. ", i+1)
		if e.OldString == "" {
			fmt.Fprintf(&sb, "Wrote the initial content %s", preview(e.NewString))
			continue
		}
		fmt.Fprintf(&sb, "Replaced %s with %s", preview(e.OldString), preview(e.NewString))
		if e.ReplaceAll {
			fmt.Fprintf(&sb, " (%d occurrence%s)", res.counts[i], plural(res.counts[i]))
		}
	}
	if len(res.content) == 0 {
		sb.WriteString("\nThe file is now empty.")
	}
	return sb.String()
}

// preview quotes s, cut to previewChars characters.
func preview(s string) string {
	if utf8.RuneCountInString(s) <= previewChars {
		return strconv.Quote(s)
	}
	i, n := 0, 0
	for i = range s {
		if n == previewChars {
			break
		}
		n++
	}
	return strconv.Quote(s[:i]) + "…"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
