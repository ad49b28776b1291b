package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// A file's lock is an OFD lock (fcntl F_OFD_SETLK) on a lock file beside
// it, ".<name>.toold-lock". Not on the file itself: a write replaces the
// file by rename, so a lock on the old inode would guard nothing once the
// new one is in place; the lock file is the stable thing all writers meet
// at. OFD locks belong to the open file description, so two sessions in one
// process exclude each other as two processes do, and they hold on a
// shared volume that supports POSIX locks (NFS included), so replicas
// exclude each other too.
//
// The lock file is removed when the lock is released, so none stays beside
// the files: a holder unlinks it before closing, and a waiter that then
// gets the lock of the unlinked inode sees that the name no longer leads
// to it and starts over. Whoever holds a lock holds it on the inode the
// name leads to, so two holders never overlap. A lock file left by a
// killed process is unlocked (the kernel drops OFD locks with the last
// descriptor) and the sweep removes it (see Sweep).

const (
	lockSuffix = ".toold-lock"
	tempInfix  = ".toold-tmp-"
	// maxKeyLen keeps ".<key>.toold-tmp-<12 hex>" within NAME_MAX (255).
	maxKeyLen = 200
)

// nameKey is the part of a file's name that its lock and temporary files
// carry: the name itself, or for a long name its start and a hash of it.
func nameKey(base string) string {
	if len(base) <= maxKeyLen {
		return base
	}
	h := sha256.Sum256([]byte(base))
	return base[:maxKeyLen-17] + "~" + hex.EncodeToString(h[:8])
}

func lockName(base string) string { return "." + nameKey(base) + lockSuffix }

// FileLock is held on one file of the workspace while it is checked and
// replaced. Its methods act on the file by name in the directory that was
// open when the lock was taken, never through a path again, so a symlink
// swapped into the path meanwhile cannot redirect them.
type FileLock struct {
	loc  Loc      // the file, as resolved when locked
	dir  *os.File // its directory
	name string   // its name in dir
	fd   int      // the lock file, locked
	// shared: dir belongs to the caller (a sweep), not to the lock.
	shared bool
}

// lockPoll bounds the pause between two attempts at a held lock. Waiting
// polls rather than blocking in F_OFD_SETLKW, so that a cancelled call stops
// waiting at once.
const lockPoll = 20 * time.Millisecond

// Lock takes the lock of the file at l, which must be a resolved Loc (see
// Resolve), waiting while another writer holds it, until ctx ends. The
// directory holding the file must exist (MkdirParents).
func (l Loc) Lock(ctx context.Context) (*FileLock, error) {
	if l.Rel == "." {
		return nil, &os.PathError{Op: "lock", Path: l.Abs, Err: errors.New("is a directory")}
	}
	dir, err := l.root.Open(filepath.Dir(l.Rel))
	if err != nil {
		return nil, l.wrap(err)
	}
	fl := &FileLock{loc: l, dir: dir, name: filepath.Base(l.Rel), fd: -1}
	pause := time.Millisecond
	for {
		ok, err := fl.try()
		if err != nil {
			dir.Close()
			return nil, err
		}
		if ok {
			return fl, nil
		}
		select {
		case <-ctx.Done():
			dir.Close()
			return nil, ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, lockPoll)
	}
}

// MkdirParents creates the directories leading to l that are missing.
func (l Loc) MkdirParents() error {
	if parent := filepath.Dir(l.Rel); parent != "." && l.Rel != "." {
		return l.wrap(l.mkdirAll(parent, 0o755))
	}
	return nil
}

// tryLock takes the lock of the file name in the directory dir without
// waiting; ok is false when someone else holds it.
func tryLock(loc Loc, dir *os.File, name string) (*FileLock, bool, error) {
	fl := &FileLock{loc: loc, dir: dir, name: name, fd: -1, shared: true}
	ok, err := fl.try()
	if !ok || err != nil {
		return nil, ok, err
	}
	return fl, true, nil
}

// try makes one attempt: open (or create) the lock file, lock it without
// waiting, and check that the name still leads to the locked inode.
func (fl *FileLock) try() (bool, error) {
	dfd := int(fl.dir.Fd())
	name := lockName(fl.name)
	for {
		fd, err := unix.Openat(dfd, name, unix.O_RDWR|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0o600)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false, fl.lockError(name, err)
		}
		lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: 0, Len: 0}
		err = unix.FcntlFlock(uintptr(fd), unix.F_OFD_SETLK, &lk)
		if err == unix.EAGAIN || err == unix.EACCES || err == unix.EINTR {
			unix.Close(fd)
			return false, nil
		}
		if err != nil {
			unix.Close(fd)
			return false, fl.lockError(name, err)
		}
		var held, named unix.Stat_t
		if err := unix.Fstat(fd, &held); err != nil {
			unix.Close(fd)
			return false, fl.lockError(name, err)
		}
		if held.Mode&unix.S_IFMT != unix.S_IFREG {
			unix.Close(fd)
			return false, fl.lockError(name, errors.New("not a regular file"))
		}
		err = unix.Fstatat(dfd, name, &named, unix.AT_SYMLINK_NOFOLLOW)
		if err == nil && named.Dev == held.Dev && named.Ino == held.Ino {
			fl.fd = fd
			return true, nil
		}
		// The holder before us removed the file after we opened it: the
		// lock we got guards nothing. Start over on the current one.
		unix.Close(fd)
		if err != nil && err != unix.ENOENT {
			return false, fl.lockError(name, err)
		}
	}
}

func (fl *FileLock) lockError(name string, err error) error {
	return &os.PathError{Op: "lock", Path: filepath.Join(filepath.Dir(fl.loc.Abs), name),
		Err: fmt.Errorf("cannot take the lock that guards %s against concurrent writers: %w", fl.loc.Abs, err)}
}

// Loc is the locked file.
func (fl *FileLock) Loc() Loc { return fl.loc }

// Unlock removes the lock file and releases the lock. It is safe to call
// more than once.
func (fl *FileLock) Unlock() {
	if fl == nil || fl.fd < 0 {
		return
	}
	dfd := int(fl.dir.Fd())
	name := lockName(fl.name)
	var held, named unix.Stat_t
	if unix.Fstat(fl.fd, &held) == nil && unix.Fstatat(dfd, name, &named, unix.AT_SYMLINK_NOFOLLOW) == nil &&
		named.Dev == held.Dev && named.Ino == held.Ino {
		unix.Unlinkat(dfd, name, 0)
	}
	unix.Close(fl.fd)
	fl.fd = -1
	if !fl.shared {
		fl.dir.Close()
	}
}
