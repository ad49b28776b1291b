package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// ErrOutside is wrapped by every error that refuses a path for leaving the
// workspace.
var ErrOutside = errors.New("outside the workspace")

// EscapeError says which path was refused and why.
type EscapeError struct {
	Path   string
	Reason string
	Dirs   []string
}

func (e *EscapeError) Error() string {
	return fmt.Sprintf("%s: %s. File tools may only access paths inside the session's directories (%s)",
		e.Path, e.Reason, strings.Join(e.Dirs, ", "))
}

func (e *EscapeError) Unwrap() error { return ErrOutside }

// Loc is a path placed inside one of the workspace's directories.
type Loc struct {
	// Abs is the clean absolute path as the caller named it.
	Abs string
	// Dir is the workspace directory that holds it.
	Dir string
	// Rel is Abs relative to Dir ("." for Dir itself).
	Rel  string
	root *os.Root
	ws   *Workspace
	// dfd is root's directory descriptor when root is a workspace
	// directory's (hasFD); info is the final name's lstat when Resolve
	// found it, not a symlink.
	dfd   int
	hasFD bool
	info  fs.FileInfo
}

// Locate resolves p (absolute, or relative to cwd) to a Loc. It refuses
// paths that name a place outside every directory; symlinks that lead out
// are refused later, when the Loc is used.
func (w *Workspace) Locate(cwd, p string) (Loc, error) {
	if p == "" {
		return Loc{}, errors.New("path is empty")
	}
	if strings.ContainsFunc(p, isControl) {
		return Loc{}, fmt.Errorf("path %q contains control characters", p)
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		return Loc{}, &EscapeError{Path: p, Reason: "home-relative paths are not supported", Dirs: w.Dirs()}
	}
	abs := p
	if !filepath.IsAbs(abs) {
		if cwd == "" {
			cwd = w.Primary()
		}
		abs = filepath.Join(cwd, abs)
	}
	abs = filepath.Clean(abs)
	d, rel, ok := w.find(abs)
	if !ok {
		return Loc{}, &EscapeError{Path: p, Reason: "the path is outside the workspace", Dirs: w.Dirs()}
	}
	return Loc{Abs: abs, Dir: d.path, Rel: rel, root: d.root, ws: w, dfd: d.fd, hasFD: d.fd >= 0}, nil
}

func isControl(r rune) bool {
	return r == 0 || (unicode.IsControl(r) && r != '\t')
}

// wrap turns os.Root's refusal of an escaping path into an EscapeError and
// leaves every other error as it is, with the path the caller used.
func (l Loc) wrap(err error) error {
	if err == nil {
		return nil
	}
	if isEscape(err) {
		return &EscapeError{Path: l.Abs, Reason: "it resolves through a symlink to a place outside the workspace", Dirs: l.ws.Dirs()}
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return &os.PathError{Op: pe.Op, Path: l.Abs, Err: pe.Err}
	}
	return err
}

// isEscape recognises os.Root's error for a path that leaves the root. The
// os package does not export it, so the text is the only handle.
func isEscape(err error) bool {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err != nil && pe.Err.Error() == "path escapes from parent"
	}
	return false
}
