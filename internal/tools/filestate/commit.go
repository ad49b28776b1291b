package filestate

import (
	"context"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/workspace"
)

// A change of a file is a compare-and-swap: under the file's lock (held
// across sessions and across replicas sharing the volume, see
// workspace.Loc.Lock), the content is checked against the stamp of what
// the model read, and replaced. Of two writers racing from the same read,
// the first replaces the file; the second finds content that no longer
// matches its stamp and is told to read the file again. Nothing is lost.

// Lock takes t's lock for a check and a write. The caller must Unlock it.
// With create, the directories leading to a file that the call may create
// are made first; without, a missing directory is a missing file.
func Lock(ctx context.Context, t Target, create bool) (*workspace.FileLock, error) {
	if name := filepath.Base(t.Real.Abs); workspace.Reserved(name) {
		return nil, tool.Failf("Cannot write %s: names like %s are reserved for the lock and temporary files that guard writes. Choose another name.", t.Given.Abs, name)
	}
	if create {
		if err := t.Real.MkdirParents(); err != nil {
			return nil, AccessError(t.Given.Abs, err)
		}
	}
	fl, err := t.Real.Lock(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, AccessError(t.Given.Abs, err)
	}
	return fl, nil
}

// ReadFresh applies the read-before-write rule to an existing file, fi
// (from a Stat under the lock): the model must have read it in this
// session, and its content must still be what it read. It returns the
// content, at most max bytes (the caller has checked fi's size). A file
// with several hard links is refused.
func ReadFresh(ctx context.Context, env *tool.Env, t Target, fi fs.FileInfo, max int64) ([]byte, error) {
	st, err := stamp(ctx, env, t)
	if err != nil {
		return nil, err
	}
	f, ofi, err := t.Real.OpenStat()
	if err != nil {
		return nil, AccessError(t.Given.Abs, err)
	}
	defer f.Close()
	content, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, AccessError(t.Given.Abs, err)
	}
	if int64(len(content)) > max || !matches(st, ofi, content) {
		return nil, Modified()
	}
	return content, nil
}

// ReadLocked reads the whole of the locked file t, at most max bytes (the
// caller has checked its size), with the fstat of the open file.
func ReadLocked(t Target, max int64) ([]byte, fs.FileInfo, error) {
	f, fi, err := t.Real.OpenStat()
	if err != nil {
		return nil, nil, AccessError(t.Given.Abs, err)
	}
	defer f.Close()
	content, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, nil, AccessError(t.Given.Abs, err)
	}
	if int64(len(content)) > max {
		return nil, nil, tool.Failf("%s grew past %d MiB while it was read.", t.Given.Abs, max>>20)
	}
	return content, fi, nil
}

// CheckFresh is ReadFresh for a caller that replaces the whole file and
// does not need its content (Write): a stamp without a hash is compared
// with fi without reading the file.
func CheckFresh(ctx context.Context, env *tool.Env, t Target, fi fs.FileInfo) error {
	st, err := stamp(ctx, env, t)
	if err != nil {
		return err
	}
	if st.Hash == "" {
		if !matches(st, fi, nil) {
			return Modified()
		}
		return nil
	}
	if fi.Size() != st.Size {
		return Modified()
	}
	_, err = ReadFresh(ctx, env, t, fi, MaxHashBytes)
	return err
}

// Commit writes content in place of the locked file and records the new
// version as read by the model, which knows what it just wrote, so that
// a further edit needs no new Read.
func Commit(ctx context.Context, env *tool.Env, t Target, fl *workspace.FileLock, content []byte) error {
	if err := WriteLocked(ctx, t, fl, content); err != nil {
		return err
	}
	fi, err := fl.Stat()
	if err != nil {
		return AccessError(t.Given.Abs, err)
	}
	return Record(ctx, env, t, StampContent(fi, content))
}

// WriteLocked is Commit without the record: the model's view of the file
// stays what it was (an Edit of a file it never read leaves it unread, as
// in Claude Code).
func WriteLocked(ctx context.Context, t Target, fl *workspace.FileLock, content []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := fl.WriteFile(content, 0o644); err != nil {
		return AccessError(t.Given.Abs, err)
	}
	return nil
}
