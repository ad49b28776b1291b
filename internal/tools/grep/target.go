package grep

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/workspace"
)

// target is where a call searches.
type target struct {
	// dir is the directory searched, or the one holding the file searched,
	// with every symbolic link resolved (each hop checked to stay inside).
	dir workspace.Loc
	// shown is the path as the model named it, absolute: results are
	// shown below it (or as it, for a file).
	shown string
	// file is the name in dir of the one file searched, if path named one.
	file string
	// cwd is the working directory the results are shown relative to.
	cwd string
}

func resolveTarget(env *tool.Env, path string) (*target, error) {
	given := path
	if path == "" {
		path = env.Cwd
	}
	loc, err := env.Files.Locate(env.Cwd, path)
	if err != nil {
		if errors.Is(err, workspace.ErrOutside) {
			return nil, err
		}
		return nil, tool.InvalidInputf("%v", err)
	}
	fi, err := loc.Stat()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Claude Code throws it: the text reaches the model bare.
		return nil, tool.Bare(tool.Errorf(tool.KindNotFound, "Path does not exist: %s. Note: your current working directory is %s.", given, env.Cwd))
	case err != nil:
		return nil, err
	}
	real, err := loc.Resolve()
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return &target{dir: real, shown: loc.Abs, cwd: env.Cwd}, nil
	}
	if !fi.Mode().IsRegular() {
		return nil, tool.Errorf(tool.KindWrongType, "%s is not a regular file or a directory.", given)
	}
	parent, err := env.Files.Locate("", filepath.Dir(real.Abs))
	if err != nil {
		return nil, err
	}
	return &target{dir: parent, shown: loc.Abs, file: filepath.Base(real.Abs), cwd: env.Cwd}, nil
}

// isBinary checks a file named as the search path for a NUL byte
// anywhere. ripgrep searches such a file but prints "binary file matches"
// in place of the lines after the NUL, and counts NUL as a line break; both
// engines leave it out with a note instead.
func (t *target) isBinary() (bool, error) {
	loc, err := t.dir.Child(t.file)
	if err != nil {
		return false, err
	}
	f, err := loc.Open()
	if err != nil {
		return false, err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false, err
	}
	head := buf[:n]
	if bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}) {
		// UTF-16 is full of NULs until decoded.
		rest, err := io.ReadAll(f)
		if err != nil {
			return false, err
		}
		return bytes.IndexByte(decodeBOM(append(head, rest...)), 0) >= 0, nil
	}
	for {
		if bytes.IndexByte(head, 0) >= 0 {
			return true, nil
		}
		n, err := f.Read(buf)
		if n == 0 && err != nil {
			if err == io.EOF {
				return false, nil
			}
			return false, err
		}
		head = buf[:n]
	}
}

// display is the absolute path shown for a file found below the target.
func (t *target) display(rel string) string {
	if t.file != "" {
		return t.shown
	}
	if strings.HasSuffix(t.shown, "/") {
		return t.shown + rel
	}
	return t.shown + "/" + rel
}

// relative is the path shown to the model for a file found below the
// target: relative to the working directory, as Claude Code prints it,
// or absolute when the file is not below the working directory.
func (t *target) relative(rel string) string {
	return relativeTo(t.cwd, t.display(rel))
}

func relativeTo(cwd, abs string) string {
	if cwd == "" {
		return abs
	}
	r, err := filepath.Rel(cwd, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, "../") {
		return abs
	}
	return filepath.ToSlash(r)
}
