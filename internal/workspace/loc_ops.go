package workspace

import (
	"context"
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

// Open opens the file for reading. A regular file with more than one
// hard link is refused (HardLinkError), so is one replaced while it was
// being opened.
func (l Loc) Open() (*os.File, error) {
	f, _, err := l.OpenStat()
	return f, err
}

// OpenStat is Open that also returns the open file's fstat.
func (l Loc) OpenStat() (*os.File, fs.FileInfo, error) {
	f, err := l.open()
	if err != nil {
		return nil, nil, l.wrap(err)
	}
	fi, err := l.checkOpened(f)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// open opens the file for reading, confined to l's directory: in one
// openat2 where it can (dirfd.go), else through os.Root.
func (l Loc) open() (*os.File, error) {
	if l.hasFD {
		if f, ok, err := openBeneath(l.dfd, l.Rel, l.Abs); ok {
			return f, err
		}
	}
	return l.root.Open(l.Rel)
}

// StatResolved is Stat for a Loc that Resolve returned: the lstat Resolve
// made of the final name (no symlink, so it is what Stat would say)
// serves, without another lookup. For any other Loc it is Stat.
func (l Loc) StatResolved() (fs.FileInfo, error) {
	if l.info != nil {
		return l.info, nil
	}
	return l.Stat()
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

// WriteFileAtomic replaces the file's content in one step under the
// file's lock (see Lock and FileLock.WriteFile). A symlink is followed
// (inside the workspace) and its target written. Missing parent
// directories are created.
func (l Loc) WriteFileAtomic(data []byte, perm fs.FileMode) error {
	target, err := l.Resolve()
	if err != nil {
		return err
	}
	if err := target.MkdirParents(); err != nil {
		return err
	}
	fl, err := target.Lock(context.Background())
	if err != nil {
		return err
	}
	defer fl.Unlock()
	return fl.WriteFile(data, perm)
}
