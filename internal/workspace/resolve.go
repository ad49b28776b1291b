package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// maxSymlinkHops matches Linux's limit on links followed in one lookup.
const maxSymlinkHops = 40

// Resolve returns the Loc of the real file: every symlink on the way, in
// the directories leading to it as well as the final name (chains included),
// is followed, and each hop must stay in the workspace. Like the kernel's
// lookup, a relative link target is taken from the directory that really
// holds the link, not from the spelling the caller used: with alias -> a/b,
// alias/f -> ../g names a/g. The result is therefore one canonical path per
// file, whatever the spelling. A missing final target or missing directories
// are fine (the Loc names where the file would be); a loop or an escape is an
// error.
func (l Loc) Resolve() (Loc, error) {
	r := resolver{ws: l.ws, orig: l.Abs}
	defer r.closeAll()
	pending := r.start(l)
	for len(pending) > 0 {
		name := pending[0]
		pending = pending[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			up, err := r.up()
			if err != nil {
				return Loc{}, err
			}
			pending = append(up, pending...)
			continue
		}
		fi, err := r.cur().Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			if slices.Contains(pending, "..") {
				// The kernel cannot climb out of a missing directory.
				return Loc{}, r.fail(syscall.ENOENT)
			}
			return r.result(name, pending)
		}
		if err != nil {
			return Loc{}, r.fail(err)
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			more, err := r.follow(name)
			if err != nil {
				return Loc{}, err
			}
			pending = append(more, pending...)
		case len(pending) == 0:
			loc, err := r.result(name, nil)
			loc.info = fi
			return loc, err
		case fi.IsDir():
			h, err := r.cur().OpenRoot(name)
			if err != nil {
				return Loc{}, r.fail(err)
			}
			r.stack = append(r.stack, h)
			r.rel = append(r.rel, name)
		default:
			return Loc{}, r.fail(syscall.ENOTDIR)
		}
	}
	return r.result("", nil)
}

// resolver walks a path one name at a time from a workspace directory,
// holding a handle on each directory it enters, so that each step costs one
// lookup however deep the path (and the kernel, not a string, says where
// ".." leads).
type resolver struct {
	ws   *Workspace
	orig string // the caller's path, for messages
	hops int
	base dir // the workspace directory the walk is in
	// rel are the real directories entered below base, stack their handles.
	rel   []string
	stack []*os.Root
}

// start restarts the walk at l's workspace directory and returns the names
// left to walk.
func (r *resolver) start(l Loc) []string {
	r.closeAll()
	r.base = dir{path: l.Dir, root: l.root}
	return strings.Split(l.Rel, string(filepath.Separator))
}

func (r *resolver) cur() *os.Root {
	if len(r.stack) == 0 {
		return r.base.root
	}
	return r.stack[len(r.stack)-1]
}

// up steps to the parent directory. Above a workspace directory that is
// only possible into another one holding it; the names to walk to it there
// are returned.
func (r *resolver) up() ([]string, error) {
	if n := len(r.stack); n > 0 {
		r.stack[n-1].Close()
		r.stack, r.rel = r.stack[:n-1], r.rel[:n-1]
		return nil, nil
	}
	outer, err := r.ws.Locate("", filepath.Dir(r.base.path))
	if err != nil {
		return nil, r.fail(err)
	}
	return r.start(outer), nil
}

// follow reads the symlink name in the current directory and returns the
// names its target adds to the walk.
func (r *resolver) follow(name string) ([]string, error) {
	if r.hops++; r.hops > maxSymlinkHops {
		return nil, r.fail(syscall.ELOOP)
	}
	target, err := r.cur().Readlink(name)
	if err != nil {
		return nil, r.fail(err)
	}
	if !filepath.IsAbs(target) {
		return strings.Split(target, string(filepath.Separator)), nil
	}
	next, err := r.ws.Locate("", target)
	if err != nil {
		return nil, r.fail(err)
	}
	return r.start(next), nil
}

// result is the Loc of name (and any names left, which do not exist) in the
// current directory, placed in the innermost workspace directory.
func (r *resolver) result(name string, rest []string) (Loc, error) {
	parts := make([]string, 0, 2+len(r.rel)+len(rest))
	parts = append(append(append(parts, r.base.path), r.rel...), name)
	loc, err := r.ws.Locate("", filepath.Join(append(parts, rest...)...))
	if err != nil {
		return Loc{}, r.fail(err)
	}
	return loc, nil
}

// fail reports a failed step under the caller's path.
func (r *resolver) fail(err error) error {
	if errors.Is(err, ErrOutside) || isEscape(err) {
		return &EscapeError{Path: r.orig, Reason: "it resolves through a symlink to a place outside the workspace", Dirs: r.ws.Dirs()}
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &os.PathError{Op: "resolve", Path: r.orig, Err: err}
}

func (r *resolver) closeAll() {
	for _, h := range r.stack {
		h.Close()
	}
	r.stack, r.rel = r.stack[:0], r.rel[:0]
}
