package notebookedit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/filestate"
)

func (c *call) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	t, err := filestate.Locate(env, c.in.NotebookPath)
	if err != nil {
		return nil, err
	}
	// The check and the write happen under the file's lock, so that of
	// two edits from the same read only one applies.
	fl, err := filestate.Lock(ctx, t, false)
	if err != nil {
		return nil, err
	}
	defer fl.Unlock()
	fi, err := fl.Stat()
	if errors.Is(err, fs.ErrNotExist) {
		// A notebook that is not there was never read: Claude Code says so.
		return nil, filestate.NotRead()
	}
	if err != nil {
		return nil, filestate.AccessError(t.Given.Abs, err)
	}
	switch {
	case fi.IsDir():
		return nil, tool.Failf("%s is a directory; NotebookEdit needs the path of a .ipynb file.", t.Given.Abs)
	case !fi.Mode().IsRegular():
		return nil, tool.Failf("%s is not a regular file (%s); NotebookEdit only changes regular files.", t.Given.Abs, fi.Mode().Type())
	case fi.Size() > maxFileBytes:
		return nil, tool.Failf("%s is %d MiB; NotebookEdit only changes notebooks up to %d MiB.", t.Given.Abs, fi.Size()>>20, maxFileBytes>>20)
	}
	data, err := filestate.ReadFresh(ctx, env, t, fi, maxFileBytes)
	if err != nil {
		return nil, err
	}
	nb, err := parseNotebook(t.Given.Abs, data)
	if err != nil {
		return nil, err
	}
	msg, err := c.edit(nb, t.Given.Abs)
	if err != nil {
		return nil, err
	}
	out, err := nb.encode()
	if err != nil {
		return nil, err
	}
	if err := filestate.Commit(ctx, env, t, fl, out); err != nil {
		return nil, err
	}
	return tool.Text(msg), nil
}

// edit changes nb in memory and returns what to tell the model.
func (c *call) edit(nb *notebook, path string) (string, error) {
	switch c.in.EditMode {
	case "insert":
		at := 0
		where := "at the beginning of " + path
		if c.in.CellID != "" {
			i, err := nb.find(c.in.CellID)
			if err != nil {
				return "", err
			}
			at = i + 1
			where = "after cell " + nb.name(i) + " in " + path
		}
		id := ""
		if nb.minor >= 5 {
			id = nb.newID()
		}
		cell := newCell(c.in.CellType, id, c.in.NewSource)
		nb.cells = append(nb.cells, nil)
		copy(nb.cells[at+1:], nb.cells[at:])
		nb.cells[at] = cell
		return fmt.Sprintf("Inserted a new %s cell with id %s %s.", c.in.CellType, nb.name(at), where), nil

	case "delete":
		i, err := nb.find(c.in.CellID)
		if err != nil {
			return "", err
		}
		name := nb.name(i)
		positional := nb.cells[i].string("id") == ""
		nb.cells = append(nb.cells[:i], nb.cells[i+1:]...)
		msg := "Deleted cell " + name // Claude Code's words
		if positional && i < len(nb.cells) {
			msg += ". The cells after it moved up by one, so their cell-N names changed."
		}
		return msg, nil
	}

	i, err := nb.find(c.in.CellID)
	if err != nil {
		return "", err
	}
	cell := nb.cells[i]
	old := cell.string("cell_type")
	t := c.in.CellType
	if t == "" {
		t = old
	}
	setSource(cell, c.in.NewSource)
	if t != old || t == "code" {
		retype(cell, t)
	}
	// Claude Code's words; the model knows a code cell's outputs go.
	return fmt.Sprintf("Updated cell %s with %s", nb.name(i), c.in.NewSource), nil
}
