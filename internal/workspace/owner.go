package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Owner is the account that files and directories the file tools create
// belong to. When toold runs as root and commands run as a sandbox user,
// a file that Write made as root would be read-only to the next Bash
// command; giving new files to the sandbox user keeps the workspace
// writable for both.
type Owner struct{ UID, GID int }

// SetOwner gives files and directories created through w from now on to
// o, and makes a replaced file keep its owner (a write is a new inode: it
// would otherwise become toold's). Nil, the default, leaves ownership to
// the kernel (toold's user). Call it before w is shared.
func (w *Workspace) SetOwner(o *Owner) {
	if o != nil {
		c := *o
		o = &c
	}
	w.owner = o
}

// ownerFor is the owner a file written at l must get: the replaced
// file's (uid, gid) when exists, else the workspace's owner. Nil: no chown
// needed.
func (l Loc) ownerFor(exists bool, uid, gid int) *Owner {
	o := l.ws.owner
	if o == nil {
		return nil
	}
	if exists {
		o = &Owner{UID: uid, GID: gid}
	}
	if o.UID == os.Geteuid() && o.GID == os.Getegid() {
		return nil
	}
	return o
}

// mkdirAll creates rel (relative to l's directory root) and its missing
// parents, and gives the ones it created to the workspace's owner.
func (l Loc) mkdirAll(rel string, perm fs.FileMode) error {
	o := l.ws.owner
	if o == nil {
		return l.root.MkdirAll(rel, perm)
	}
	parts := strings.Split(filepath.Clean(rel), string(filepath.Separator))
	first := -1
	for i := range parts {
		if _, err := l.root.Lstat(filepath.Join(parts[:i+1]...)); errors.Is(err, fs.ErrNotExist) {
			first = i
			break
		}
	}
	if err := l.root.MkdirAll(rel, perm); err != nil {
		return err
	}
	if first < 0 {
		return nil
	}
	for i := first; i < len(parts); i++ {
		if err := l.root.Lchown(filepath.Join(parts[:i+1]...), o.UID, o.GID); err != nil {
			return err
		}
	}
	return nil
}
