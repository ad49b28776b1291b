// Package workspace confines file access to a session's directories. Every
// open goes through an os.Root, so `..`, absolute paths and symlinks cannot
// lead outside, whatever the spelling; the lexical checks here only give the
// model a clear message before the kernel-level check would refuse anyway.
//
// A regular file with several hard links is refused when opened (links.go);
// writes replace a file by rename under a per-file lock that holds across
// processes (lock.go, lock_write.go); Sweep removes what killed writers
// left (sweep.go).
package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Workspace is a session's primary directory and its additional directories.
type Workspace struct {
	dirs []dir
	// owner, when set, receives what the file tools create (SetOwner).
	owner *Owner
}

type dir struct {
	path string
	root *os.Root
	// fd is the directory's O_PATH descriptor and id its identity
	// (dirfd.go).
	fd int
	id fileID
}

// Open opens the directories. Each must be an absolute path to an existing
// directory; it is canonicalised (symlinks resolved) once here, so that later
// containment checks compare canonical paths.
func Open(primary string, additional ...string) (*Workspace, error) {
	w := &Workspace{}
	for _, p := range append([]string{primary}, additional...) {
		canon, err := Canonical(p)
		if err != nil {
			w.Close()
			return nil, err
		}
		if w.indexOf(canon) >= 0 {
			continue
		}
		r, err := os.OpenRoot(canon)
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("open workspace directory %s: %w", canon, err)
		}
		fd, id, err := openDirFD(canon, r)
		if err != nil {
			r.Close()
			w.Close()
			return nil, err
		}
		w.dirs = append(w.dirs, dir{path: canon, root: r, fd: fd, id: id})
	}
	return w, nil
}

// Canonical checks that p is an absolute path to an existing directory and
// returns it with every symlink resolved.
func Canonical(p string) (string, error) {
	if p == "" || !filepath.IsAbs(p) {
		return "", fmt.Errorf("directory %q must be an absolute path", p)
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("directory %q contains a NUL byte", p)
	}
	canon, err := filepath.EvalSymlinks(filepath.Clean(p))
	if err != nil {
		return "", fmt.Errorf("directory %s: %w", p, err)
	}
	fi, err := os.Stat(canon)
	if err != nil {
		return "", fmt.Errorf("directory %s: %w", p, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", p)
	}
	return canon, nil
}

// Close releases the directory handles.
func (w *Workspace) Close() error {
	var errs []error
	for _, d := range w.dirs {
		errs = append(errs, d.root.Close())
		if d.fd >= 0 {
			errs = append(errs, unix.Close(d.fd))
		}
	}
	w.dirs = nil
	return errors.Join(errs...)
}

// Primary is the session's main directory.
func (w *Workspace) Primary() string { return w.dirs[0].path }

// Dirs lists every directory, the primary first.
func (w *Workspace) Dirs() []string {
	out := make([]string, len(w.dirs))
	for i, d := range w.dirs {
		out[i] = d.path
	}
	return out
}

// Contains reports whether the absolute, clean path abs lies lexically in
// one of the directories. It does not resolve symlinks: use Locate and the
// Loc methods for access.
func (w *Workspace) Contains(abs string) bool {
	_, _, ok := w.find(abs)
	return ok
}

func (w *Workspace) indexOf(path string) int {
	for i, d := range w.dirs {
		if d.path == path {
			return i
		}
	}
	return -1
}

// find returns the innermost directory holding abs and the path relative to it.
func (w *Workspace) find(abs string) (dir, string, bool) {
	var best dir
	bestRel, found := "", false
	for _, d := range w.dirs {
		rel, ok := within(d.path, abs)
		if ok && (!found || len(d.path) > len(best.path)) {
			best, bestRel, found = d, rel, true
		}
	}
	return best, bestRel, found
}

// within compares by path components, never by string prefix, so that
// /ws-evil is not taken for a child of /ws.
func within(base, abs string) (string, bool) {
	rel, err := filepath.Rel(base, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}
