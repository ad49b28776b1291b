package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Stat describes the locked file without following a symlink: a file
// that became a symlink since it was resolved is not the file locked.
func (fl *FileLock) Stat() (fs.FileInfo, error) {
	fi, err := fl.loc.root.Lstat(fl.loc.Rel)
	return fi, fl.loc.wrap(err)
}

// WriteFile replaces the locked file's content in one step: the data goes
// to a temporary file in the same directory, ".<name>.toold-tmp-<random>",
// is synced, and is renamed over the name, so a reader or a crash sees
// the old file or the new one, never a mix. The rename replaces the name,
// never the inode behind it: a file with other hard links is not written
// through, and is refused anyway (HardLinkError), as is a name that is no
// longer a regular file. An existing file keeps its permission bits (and,
// with SetOwner, its owner); a new one gets perm. The temporary file is
// removed on every error; one left by a killed process is removed by
// Sweep, since its lock is free.
func (fl *FileLock) WriteFile(data []byte, perm fs.FileMode) error {
	l := fl.loc
	dfd := int(fl.dir.Fd())
	var st unix.Stat_t
	exists := false
	switch err := fstatat(dfd, fl.name, &st); {
	case err == nil:
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
		case unix.S_IFDIR:
			return &os.PathError{Op: "write", Path: l.Abs, Err: errors.New("is a directory")}
		default:
			return &os.PathError{Op: "write", Path: l.Abs, Err: errors.New("is no longer a regular file")}
		}
		if st.Nlink > 1 {
			return l.hardLink(uint64(st.Nlink))
		}
		exists = true
		perm = fs.FileMode(st.Mode).Perm()
	case errors.Is(err, unix.ENOENT):
	default:
		return &os.PathError{Op: "write", Path: l.Abs, Err: err}
	}
	tmp := "." + nameKey(fl.name) + tempInfix + randomSuffix()
	fd, err := openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm))
	if err != nil {
		return &os.PathError{Op: "write", Path: l.Abs, Err: err}
	}
	f := os.NewFile(uintptr(fd), filepath.Join(filepath.Dir(l.Abs), tmp))
	committed := false
	defer func() {
		if !committed {
			f.Close()
			unix.Unlinkat(dfd, tmp, 0)
		}
	}()
	fail := func(err error) error {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return &os.PathError{Op: "write", Path: l.Abs, Err: err}
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	// Before the chmod: a chown clears set-id bits.
	if o := l.ownerFor(exists, int(st.Uid), int(st.Gid)); o != nil {
		if err := f.Chown(o.UID, o.GID); err != nil {
			return fail(err)
		}
	}
	// The umask may have narrowed perm at create time.
	if err := f.Chmod(perm); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	if err := unix.Renameat(dfd, tmp, dfd, fl.name); err != nil {
		return fail(err)
	}
	committed = true
	return nil
}

func fstatat(dfd int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(dfd, name, st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return err
		}
	}
}

func openat(dfd int, name string, flags int, perm uint32) (int, error) {
	for {
		fd, err := unix.Openat(dfd, name, flags, perm)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

func randomSuffix() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
