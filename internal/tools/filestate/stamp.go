package filestate

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/toold/toold/internal/tool"
)

// The messages of the read-before-write rule. The wording follows Claude
// Code's, which models know how to act on.
const (
	NotReadMessage  = "File has not been read yet. Read it first before writing to it."
	ModifiedMessage = "File has been modified since it was last read, either by the user or by a linter. Read it again before writing to it."
)

// StampOf is the stamp of a file as fi describes it.
func StampOf(fi fs.FileInfo) tool.FileStamp {
	return tool.FileStamp{ModTime: fi.ModTime(), Size: fi.Size()}
}

// Record remembers that the model has seen t as fi describes it (after a
// read, or after the tool wrote it itself).
func Record(ctx context.Context, env *tool.Env, t Target, fi fs.FileInfo) error {
	if err := env.State.RecordRead(ctx, t.Real.Abs, StampOf(fi)); err != nil {
		return fmt.Errorf("recording that %s was read: %w", t.Given.Abs, err)
	}
	return nil
}

// CheckFresh applies the read-before-write rule to an existing file: the
// model must have read it in this session, and it must not have changed
// since (same modification time and size as recorded).
func CheckFresh(ctx context.Context, env *tool.Env, t Target, fi fs.FileInfo) error {
	st, ok, err := env.State.ReadStamp(ctx, t.Real.Abs)
	if err != nil {
		return fmt.Errorf("checking whether %s was read: %w", t.Given.Abs, err)
	}
	if !ok {
		return tool.Failf(NotReadMessage)
	}
	if !st.ModTime.Equal(fi.ModTime()) || st.Size != fi.Size() {
		return tool.Failf(ModifiedMessage)
	}
	return nil
}
