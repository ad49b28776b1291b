// Package dirfd walks a directory tree below a workspace directory quickly
// without leaving it.
//
// The tree is entered through the fs.FS of a workspace.Loc, which opens its
// root through an os.Root. On Linux every name below it is then opened
// relative to its parent's open directory handle, one path component at a
// time, with O_NOFOLLOW: the same rule os.Root applies to each component,
// but without resolving the whole path again from the workspace root for
// every file, and reading directory entries with their types instead of one
// lstat per entry. A name taken from a directory listing never contains a
// slash and is never "." or "..", so no spelling or symbolic link can lead
// out; a directory replaced by a symbolic link between listing and opening
// fails to open. Elsewhere, the portable implementation goes through the
// fs.FS for every operation.
package dirfd

import (
	"errors"
	"io"
	"io/fs"
	"strings"
	"time"
)

// Entry is one name in a directory listing.
type Entry struct {
	Name string
	// Type is the file type bits: 0 for a regular file, fs.ModeDir,
	// fs.ModeSymlink, or another type.
	Type fs.FileMode
}

// Info is what Lstat reports about a name.
type Info struct {
	Mode    fs.FileMode
	Size    int64
	ModTime time.Time
	// Links is the number of hard links (0 where the system does not
	// say).
	Links uint64
}

// Dir is an open directory inside a workspace. It is not safe for
// concurrent use; open a Dir per goroutine.
type Dir interface {
	// ReadDir lists the directory, unsorted, without "." and "..".
	ReadDir() ([]Entry, error)
	// OpenDir opens the subdirectory name. A symbolic link is refused.
	OpenDir(name string) (Dir, error)
	// OpenFile opens the regular file name for reading. Symbolic links,
	// special files and (on Linux) files with several hard links are
	// refused, and opening never blocks (a FIFO put in place of a file
	// fails).
	OpenFile(name string) (File, error)
	// ReadFile reads the regular file name, as OpenFile opens it, into
	// buf[:0] (grown as needed).
	ReadFile(name string, buf []byte) ([]byte, Info, error)
	// Lstat describes name without following a symbolic link.
	Lstat(name string) (Info, error)
	Close() error
}

// File is an open regular file.
type File interface {
	io.Reader
	// Info describes the open file.
	Info() Info
	Close() error
}

// ReadAll reads the rest of f into buf[:0], grown as needed.
func ReadAll(f File, buf []byte) ([]byte, error) {
	// One spare byte lets the read that finds the end fit.
	if want := int(f.Info().Size) + 1; cap(buf) < want {
		buf = make([]byte, 0, want)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

func readFile(d Dir, name string, buf []byte) ([]byte, Info, error) {
	f, err := d.OpenFile(name)
	if err != nil {
		return nil, Info{}, err
	}
	defer f.Close()
	data, err := ReadAll(f, buf)
	return data, f.Info(), err
}

// ErrNotRegular is returned by OpenFile for anything but a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrHardLink is returned by OpenFile (on Linux) for a file with more than
// one hard link: another of its names may lie outside the workspace, so
// its content is not read (see docs/hard-links.md).
var ErrHardLink = errors.New("the file has more than one hard link")

// errBadName guards the one-component invariant the package relies on.
var errBadName = errors.New("dirfd: name must be a single path component")

func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return errBadName
	}
	return nil
}

// Open opens the root of fsys, which should come from workspace.Loc.FS.
func Open(fsys fs.FS) (Dir, error) {
	return openFast(fsys)
}
