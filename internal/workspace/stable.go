package workspace

import (
	"fmt"
	"os"
	"path/filepath"
)

// OpenStable is Open for directories that were recorded in canonical form
// (a stored session's, checked when the session was created). It refuses a
// directory that no longer resolves to itself: a symlink now stands in its
// path. Without this, a command of a session whose workspace holds another
// session's could swap that directory for a link into another tenant's
// tree, and the second session would open the other tree.
//
// The check runs after the directory is opened: the handle then names
// exactly the directory that the path, free of symlinks, names at the
// check, whatever was swapped in or out in between.
func OpenStable(primary string, additional ...string) (*Workspace, error) {
	w, err := Open(primary, additional...)
	if err != nil {
		return nil, err
	}
	for _, p := range append([]string{primary}, additional...) {
		if err := w.stable(p); err != nil {
			w.Close()
			return nil, err
		}
	}
	return w, nil
}

// Verify repeats OpenStable's check on an open workspace: each directory
// still resolves, free of symlinks, to the directory its handle holds. The
// handles themselves cannot be swapped, but commands and hooks use the
// paths; a caller that keeps a Workspace open across calls runs this
// before each.
func (w *Workspace) Verify() error {
	for _, d := range w.dirs {
		if err := w.stable(d.path); err != nil {
			return err
		}
	}
	return nil
}

func (w *Workspace) stable(p string) error {
	i := w.indexOf(filepath.Clean(p))
	if i < 0 || filepath.Clean(p) != p {
		return moved(p)
	}
	if d := w.dirs[i]; d.fd >= 0 {
		// One openat2 with no symlink allowed on the way, and the
		// identity the handle had when it was opened.
		if bad, ok := stableAt(p, d.id); ok {
			if bad {
				return moved(p)
			}
			return nil
		}
	}
	opened, err := w.dirs[i].root.Stat(".")
	if err != nil {
		return fmt.Errorf("directory %s: %w", p, err)
	}
	if c, err := filepath.EvalSymlinks(p); err != nil || c != p {
		return moved(p)
	}
	if now, err := os.Lstat(p); err != nil || !os.SameFile(opened, now) {
		return moved(p)
	}
	return nil
}

// moved is Verify's refusal of directory p. (Built only when refusing:
// Verify runs before every batch.)
func moved(p string) error {
	return fmt.Errorf("directory %s no longer resolves to itself (a symlink replaced part of its path); it is not opened", p)
}
