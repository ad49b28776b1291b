package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// A workspace directory also has a plain descriptor (O_PATH) next to its
// os.Root: openat2 resolves a whole path beneath it in one system call,
// where os.Root walks it a name at a time, and a file made with os.NewFile
// skips the poller registration (fcntl, epoll_ctl) that os.Root's files go
// through. Both confine the same way: RESOLVE_BENEATH refuses `..` above
// the directory, absolute paths and symlinks that lead out, as os.Root
// does; where openat2 is missing or refuses what os.Root would allow (an
// absolute symlink that stays inside), os.Root does the open.

// fileID is a file's identity, as os.SameFile compares it.
type fileID struct{ dev, ino uint64 }

func idOf(st *unix.Stat_t) fileID { return fileID{uint64(st.Dev), st.Ino} }

// openDirFD opens path's descriptor and checks that it is the directory
// root holds (a swap between the two opens is refused).
func openDirFD(path string, root *os.Root) (int, fileID, error) {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return -1, fileID{}, fmt.Errorf("open workspace directory %s: %w", path, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, fileID{}, fmt.Errorf("open workspace directory %s: %w", path, err)
	}
	fi, err := root.Stat(".")
	if err != nil || !sameID(fi, idOf(&st)) {
		unix.Close(fd)
		return -1, fileID{}, fmt.Errorf("workspace directory %s changed while it was being opened", path)
	}
	return fd, idOf(&st), nil
}

func sameID(fi fs.FileInfo, id fileID) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && fileID{uint64(st.Dev), st.Ino} == id
}

// openBeneath opens rel beneath the directory fd for reading, in one
// openat2. ok false: openat2 could not decide (missing, or a refusal
// os.Root might not share); the caller opens through os.Root instead.
func openBeneath(dfd int, rel, name string) (f *os.File, ok bool, err error) {
	how := unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOCTTY,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	}
	for {
		fd, err := unix.Openat2(dfd, rel, &how)
		switch {
		case err == nil:
			return os.NewFile(uintptr(fd), name), true, nil
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
			continue
		case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR), errors.Is(err, unix.EISDIR):
			return nil, true, &os.PathError{Op: "openat2", Path: name, Err: err}
		default:
			// ENOSYS, EPERM from a seccomp filter, EXDEV for an
			// absolute symlink, ELOOP: os.Root has the last word.
			return nil, false, nil
		}
	}
}

// stableAt is stable in one openat2: the path resolves with no symlink in
// any component to the directory the handle holds. ok false: openat2 is
// not available and the caller checks the slow way.
func stableAt(p string, id fileID) (moved, ok bool) {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	for {
		fd, err := unix.Openat2(unix.AT_FDCWD, p, &how)
		switch {
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
			continue
		case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM):
			return false, false
		case err != nil:
			return true, true
		}
		var st unix.Stat_t
		err = unix.Fstat(fd, &st)
		unix.Close(fd)
		return err != nil || idOf(&st) != id, true
	}
}
