package filestate

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/workspace"
)

// Target is a file the model named.
type Target struct {
	// Given is the path as the model spelled it (made absolute and clean):
	// messages show it, so the model recognises its own path.
	Given workspace.Loc
	// Real is the file itself once every symlink is followed: all access
	// goes through it, and its Abs is the key of the file's read stamp.
	Real workspace.Loc
}

// Locate places path in the session's workspace and resolves it. A path
// outside the workspace, or a symlink leading out, is refused with the
// workspace's EscapeError (the engine reports it as permission denied);
// a malformed path is invalid input.
func Locate(env *tool.Env, path string) (Target, error) {
	given, err := env.Files.Locate(env.Cwd, path)
	if err != nil {
		if errors.Is(err, workspace.ErrOutside) {
			return Target{}, err
		}
		return Target{}, tool.InvalidInputf("Invalid file_path: %v.", err)
	}
	real, err := given.Resolve()
	if err != nil {
		return Target{}, AccessError(given.Abs, err)
	}
	return Target{Given: given, Real: real}, nil
}

// AccessError turns a failed file operation on path into the error the
// model reads. Escapes and context errors are returned as they are, for
// the engine to classify.
func AccessError(path string, err error) error {
	if e := accessError(path, err); e != err {
		// The cause stays reachable (errors.Is(e, syscall.ENOTDIR)).
		if te, ok := e.(*tool.Error); ok && te.Err == nil {
			te.Err = err
		}
		return e
	}
	return err
}

func accessError(path string, err error) error {
	switch {
	case errors.Is(err, workspace.ErrOutside):
		return err
	case errors.Is(err, fs.ErrNotExist):
		return tool.Errorf(tool.KindNotFound, "File does not exist: %s.", path)
	case errors.Is(err, fs.ErrPermission):
		return tool.Failf("Permission denied: %s.", path)
	case errors.Is(err, syscall.ENOTDIR):
		return tool.Errorf(tool.KindWrongType, "Cannot access %s: a part of the path before the file name is not a directory.", path)
	case errors.Is(err, syscall.ELOOP):
		return tool.Failf("Cannot access %s: too many levels of symbolic links (a symlink loop?).", path)
	case errors.Is(err, syscall.EISDIR):
		return tool.Errorf(tool.KindWrongType, "%s is a directory, not a file.", path)
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return tool.Failf("Cannot access %s: %v.", path, pe.Err)
	}
	return err
}
