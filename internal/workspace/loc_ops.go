package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Stat follows symlinks, all of which must stay inside the workspace.
func (l Loc) Stat() (fs.FileInfo, error) {
	fi, err := l.root.Stat(l.Rel)
	return fi, l.wrap(err)
}

// Lstat does not follow a final symlink.
func (l Loc) Lstat() (fs.FileInfo, error) {
	fi, err := l.root.Lstat(l.Rel)
	return fi, l.wrap(err)
}

// Open opens the file for reading.
func (l Loc) Open() (*os.File, error) {
	f, err := l.root.Open(l.Rel)
	return f, l.wrap(err)
}

// ReadFile reads at most max bytes (max <= 0: all of it).
func (l Loc) ReadFile(max int64) ([]byte, error) {
	f, err := l.Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if max > 0 {
		r = io.LimitReader(f, max)
	}
	b, err := io.ReadAll(r)
	return b, l.wrap(err)
}

// FS returns a file system rooted at the Loc, which must be a directory.
// Walks through it cannot leave the workspace.
func (l Loc) FS() (fs.FS, error) {
	if l.Rel == "." {
		return l.root.FS(), nil
	}
	sub, err := fs.Sub(l.root.FS(), filepath.ToSlash(l.Rel))
	return sub, l.wrap(err)
}

// Child returns the Loc of a path below l given relative to it.
func (l Loc) Child(rel string) (Loc, error) {
	return l.ws.Locate(l.Abs, rel)
}

// MkdirAll creates the directory and its parents inside the workspace.
func (l Loc) MkdirAll(perm fs.FileMode) error {
	return l.wrap(l.mkdirAll(l.Rel, perm))
}

// WriteFileAtomic replaces the file's content in one step: the data goes to
// a temporary file in the same directory, is synced, and is renamed over the
// target, so a reader or a crash sees the old file or the new one, never a
// mix. A symlink is followed (inside the workspace) and its target written.
// An existing file keeps its permission bits (and, with SetOwner, its
// owner); a new one gets perm. Missing parent directories are created.
func (l Loc) WriteFileAtomic(data []byte, perm fs.FileMode) error {
	target, err := l.Resolve()
	if err != nil {
		return err
	}
	if parent := filepath.Dir(target.Rel); parent != "." {
		if err := target.mkdirAll(parent, 0o755); err != nil {
			return target.wrap(err)
		}
	}
	fi, err := target.root.Stat(target.Rel)
	if err == nil {
		if fi.IsDir() {
			return &os.PathError{Op: "write", Path: l.Abs, Err: errors.New("is a directory")}
		}
		perm = fi.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return target.wrap(err)
	}
	tmp := filepath.Join(filepath.Dir(target.Rel), "."+filepath.Base(target.Rel)+".toold-"+randomSuffix())
	f, err := target.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return target.wrap(err)
	}
	committed := false
	defer func() {
		if !committed {
			f.Close()
			target.root.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return target.wrap(err)
	}
	// Before the chmod: a chown clears set-id bits.
	if o := target.ownerFor(fi); o != nil {
		if err := f.Chown(o.UID, o.GID); err != nil {
			return target.wrap(err)
		}
	}
	// The umask may have narrowed perm at create time.
	if err := f.Chmod(perm); err != nil {
		return target.wrap(err)
	}
	if err := f.Sync(); err != nil {
		return target.wrap(err)
	}
	if err := f.Close(); err != nil {
		return target.wrap(err)
	}
	if err := target.root.Rename(tmp, target.Rel); err != nil {
		return target.wrap(err)
	}
	committed = true
	return nil
}

func randomSuffix() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
