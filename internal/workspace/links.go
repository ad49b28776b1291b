package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// ErrHardLink is wrapped by the error that refuses a file with more than
// one hard link.
var ErrHardLink = errors.New("the file has more than one hard link")

// HardLinkError refuses a regular file with several names. A hard link
// cannot be told from the file it links to, and nothing in the file says
// where its other names are: one may lie outside every session directory
// (a hard link made before the session, a pnpm store, a `cp -al` backup),
// so its content is an outside file's. The file tools never create a
// second name for a file (they replace files by rename, which makes a new
// inode with one link), so a file with several was linked by someone else.
// It unwraps to ErrHardLink and to ErrOutside: the engine reports it as a
// refusal to leave the workspace.
type HardLinkError struct {
	Path  string
	Links uint64
	Dirs  []string
}

func (e *HardLinkError) Error() string {
	return fmt.Sprintf("%s: the file has %d hard links, and another of its names may lie outside the session's directories (%s), "+
		"so the file tools do not read or change it. If it belongs in the workspace, replace the link with a copy of its own",
		e.Path, e.Links, strings.Join(e.Dirs, ", "))
}

func (e *HardLinkError) Unwrap() []error { return []error{ErrHardLink, ErrOutside} }

// Links returns the number of hard links fi reports, or 1 when the file
// system does not say.
func Links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// checkOpened vets a file just opened at l: a regular file must have one
// link, and l must still name it. The second check closes a race: with
// a name inside and one outside, unlinking the inside name between the
// open and the fstat would leave one link, the outside one; the name no
// longer leads to the open file then, and the open is refused. (A sandboxed
// command cannot make a new name for an outside file, so a single link
// that l names is inside.) fi is the open file's fstat.
func (l Loc) checkOpened(f *os.File) (fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, l.wrap(err)
	}
	if !fi.Mode().IsRegular() {
		return fi, nil
	}
	if n := Links(fi); n > 1 {
		return nil, l.hardLink(n)
	}
	now, err := l.root.Stat(l.Rel)
	if err != nil {
		return nil, l.wrap(err)
	}
	if !os.SameFile(fi, now) {
		return nil, &os.PathError{Op: "open", Path: l.Abs, Err: errors.New("the file was replaced while it was being opened; try again")}
	}
	return fi, nil
}

func (l Loc) hardLink(n uint64) error {
	return &HardLinkError{Path: l.Abs, Links: n, Dirs: l.ws.Dirs()}
}
