package edit

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/filestate"
	"github.com/toold/toold/internal/workspace"
)

// The texts of an Edit, Claude Code's. The file is named as the model
// spelled file_path.
const (
	sameMessage     = "No changes to make: old_string and new_string are exactly the same."
	existsMessage   = "Cannot create new file - file already exists."
	notebookMessage = "File is a Jupyter Notebook. Use the NotebookEdit to edit this file."
	dirMessage      = "Error calling tool (Edit): EISDIR: illegal operation on a directory, read"
	// What follows the success text, by what the model had seen of the file.
	currentNote  = " (file state is current in your context — no need to Read it back)"
	modifiedNote = " (note: the file had been modified on disk since you last read it — the edit applied cleanly, but the file contains other changes not in your context. Read it before edits that depend on surrounding content.)"
)

func (c *call) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	if !markdown(c.in.FilePath) {
		c.in.NewString = stripTrailingSpace(c.in.NewString)
	}
	// Claude Code checks this before it looks at the file, but after the
	// permission decision.
	if c.in.OldString == c.in.NewString {
		return nil, tool.Failf("%s", sameMessage)
	}
	t, err := filestate.Locate(env, c.in.FilePath)
	if err != nil {
		return nil, err
	}
	// The check and the write happen under the file's lock, so that of
	// two edits from the same read only one applies.
	fl, err := filestate.Lock(ctx, t, c.in.OldString == "")
	if te := (*tool.Error)(nil); errors.As(err, &te) && te.Kind == tool.KindNotFound {
		return nil, filestate.Missing(env, t) // a directory on the way is missing
	}
	if err != nil {
		return nil, err
	}
	defer fl.Unlock()
	fi, err := fl.Stat()
	if errors.Is(err, fs.ErrNotExist) {
		if c.in.OldString == "" {
			return c.create(ctx, env, t, fl)
		}
		return nil, filestate.Missing(env, t)
	}
	if err != nil {
		return nil, filestate.AccessError(t.Given.Abs, err)
	}
	if fi.IsDir() {
		return nil, tool.Errorf(tool.KindWrongType, "%s", dirMessage)
	}
	if !fi.Mode().IsRegular() {
		return nil, tool.Errorf(tool.KindWrongType, "%s is not a regular file (%s); Edit only changes regular files.", c.in.FilePath, fi.Mode().Type())
	}
	if fi.Size() > maxFileBytes {
		return nil, tool.Failf("%s is %d MiB; Edit only changes files up to %d MiB. Use Bash (for example sed) for larger files.",
			c.in.FilePath, fi.Size()>>20, maxFileBytes>>20)
	}
	content, ofi, err := filestate.ReadLocked(t, maxFileBytes)
	if err != nil {
		return nil, err
	}
	if c.in.OldString == "" && strings.TrimSpace(string(content)) != "" {
		return nil, tool.Failf("%s", existsMessage)
	}
	if strings.HasSuffix(strings.ToLower(t.Given.Abs), ".ipynb") {
		return nil, tool.Errorf(tool.KindWrongType, "%s", notebookMessage)
	}
	seen, err := filestate.Check(ctx, env, t, ofi, content)
	if err != nil {
		return nil, err
	}
	if err := c.policy.Refusal(seen); err != nil {
		return nil, err
	}

	var ed filestate.Replaced
	if c.in.OldString == "" {
		ed = filestate.Replaced{Content: []byte(c.in.NewString), Count: 1}
	} else if ed, err = filestate.Replace(content, c.in.OldString, c.in.NewString, c.in.ReplaceAll); err != nil {
		var te *tool.Error
		if seen == filestate.SeenChanged && errors.As(err, &te) && (te.Kind == tool.KindNoMatch || te.Kind == tool.KindNotUnique) {
			// What the model had in mind is not (only) there since
			// the change: it must read the file again.
			return nil, filestate.Modified()
		}
		return nil, err
	}
	if err := c.commit(ctx, env, t, fl, seen, ed.Content); err != nil {
		return nil, err
	}
	return tool.Text(c.success(seen)), nil
}

// markdown reports whether trailing spaces are part of the text (a hard
// line break in Markdown).
func markdown(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".md" || ext == ".mdx"
}

// stripTrailingSpace drops the white space at the end of every line of s,
// as Claude Code does to new_string outside Markdown files.
func stripTrailingSpace(s string) string {
	var sb strings.Builder
	for s != "" {
		line, rest, nl := s, "", ""
		if i := strings.IndexAny(s, "\r\n"); i >= 0 {
			line, rest = s[:i], s[i:]
			nl = rest[:1]
			if strings.HasPrefix(rest, "\r\n") {
				nl = "\r\n"
			}
			rest = rest[len(nl):]
		}
		sb.WriteString(strings.TrimRightFunc(line, unicode.IsSpace))
		sb.WriteString(nl)
		s = rest
	}
	return sb.String()
}

// commit writes the edited content. The model's view of the file is
// current after the edit only if it was before: an edit of a file it had
// not seen whole leaves it seen in part, and one of a file it never read
// leaves it unread.
func (c *call) commit(ctx context.Context, env *tool.Env, t filestate.Target, fl *workspace.FileLock, seen filestate.Seen, content []byte) error {
	switch seen {
	case filestate.SeenCurrent:
		return filestate.Commit(ctx, env, t, fl, content)
	case filestate.SeenNever:
		return filestate.WriteLocked(ctx, t, fl, content)
	}
	if err := filestate.WriteLocked(ctx, t, fl, content); err != nil {
		return err
	}
	fi, err := fl.Stat()
	if err != nil {
		return filestate.AccessError(t.Given.Abs, err)
	}
	return filestate.Record(ctx, env, t, filestate.Partial(filestate.StampContent(fi, content)))
}

// success is Claude Code's text for an applied edit.
func (c *call) success(seen filestate.Seen) string {
	msg := "The file " + c.in.FilePath + " has been updated successfully."
	if c.in.ReplaceAll {
		msg = "The file " + c.in.FilePath + " has been updated. All occurrences were successfully replaced."
	}
	switch seen {
	case filestate.SeenCurrent:
		msg += currentNote
	case filestate.SeenChanged:
		msg += modifiedNote
	}
	return msg
}

// create makes a new file from new_string (empty old_string, no file):
// the model knows all of it.
func (c *call) create(ctx context.Context, env *tool.Env, t filestate.Target, fl *workspace.FileLock) (*tool.Result, error) {
	if err := filestate.Commit(ctx, env, t, fl, []byte(c.in.NewString)); err != nil {
		return nil, err
	}
	return tool.Text(c.success(filestate.SeenCurrent)), nil
}
