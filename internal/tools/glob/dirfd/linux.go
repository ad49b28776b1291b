//go:build linux

package dirfd

import (
	"encoding/binary"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// openFast takes the root directory from fsys (an os.Root underneath) and
// keeps a duplicate of its handle; everything below is opened with *at
// calls. An fs.FS that does not hand out *os.File gets the portable walk.
func openFast(fsys fs.FS) (Dir, error) {
	f, err := fsys.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	osf, ok := f.(*os.File)
	if !ok {
		return OpenFS(fsys)
	}
	fi, err := osf.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: ".", Err: unix.ENOTDIR}
	}
	rc, err := osf.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var dupErr error
	if err := rc.Control(func(raw uintptr) {
		fd, dupErr = unix.FcntlInt(raw, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return nil, err
	}
	if dupErr != nil {
		return nil, dupErr
	}
	return &fdDir{fd: fd, name: "."}, nil
}

type fdDir struct {
	fd   int
	name string // for messages
}

const (
	openDirFlags  = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	openFileFlags = unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_CLOEXEC | unix.O_NONBLOCK | unix.O_NOCTTY
)

var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func (d *fdDir) ReadDir() ([]Entry, error) {
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	// A fresh handle reads from the start; a Dir is listed once.
	var out []Entry
	for {
		n, err := unix.Getdents(d.fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return out, &fs.PathError{Op: "readdir", Path: d.name, Err: err}
		}
		if n <= 0 {
			return out, nil
		}
		out = d.parse(buf[:n], out)
	}
}

// parse decodes linux_dirent64 records: ino u64, off s64, reclen u16,
// type u8, then the NUL-terminated name.
func (d *fdDir) parse(b []byte, out []Entry) []Entry {
	for len(b) >= 19 {
		ino := binary.NativeEndian.Uint64(b[0:8])
		reclen := int(binary.NativeEndian.Uint16(b[16:18]))
		if reclen < 19 || reclen > len(b) {
			break
		}
		typ := b[18]
		name := b[19:reclen]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		b = b[reclen:]
		if ino == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		e := Entry{Name: string(name)}
		switch typ {
		case unix.DT_REG:
		case unix.DT_DIR:
			e.Type = fs.ModeDir
		case unix.DT_LNK:
			e.Type = fs.ModeSymlink
		case unix.DT_UNKNOWN:
			// Some file systems do not fill in the type.
			info, err := d.Lstat(e.Name)
			if err != nil {
				continue
			}
			e.Type = info.Mode.Type()
		default:
			e.Type = fs.ModeIrregular
		}
		out = append(out, e)
	}
	return out
}

func (d *fdDir) OpenDir(name string) (Dir, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	fd, err := openat(d.fd, name, openDirFlags)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &fdDir{fd: fd, name: name}, nil
}

func (d *fdDir) OpenFile(name string) (File, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	fd, err := openat(d.fd, name, openFileFlags)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, ErrNotRegular
	}
	if err := d.checkSingleLink(name, &st); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return &fdFile{fd: fd, name: name, info: infoOf(&st)}, nil
}

func (d *fdDir) ReadFile(name string, buf []byte) ([]byte, Info, error) {
	return readFile(d, name, buf)
}

// fdFile reads with plain read(2): the descriptor was opened
// non-blocking, which a regular file ignores, and stays out of the
// runtime's poller.
type fdFile struct {
	fd   int
	name string
	info Info
}

func (f *fdFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := unix.Read(f.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, &fs.PathError{Op: "read", Path: f.name, Err: err}
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f *fdFile) Info() Info   { return f.info }
func (f *fdFile) Close() error { return unix.Close(f.fd) }

func (d *fdDir) Lstat(name string) (Info, error) {
	if err := checkName(name); err != nil {
		return Info{}, err
	}
	var st unix.Stat_t
	for {
		err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return Info{}, &fs.PathError{Op: "lstat", Path: name, Err: err}
		}
		break
	}
	return infoOf(&st), nil
}

// checkSingleLink refuses an open file (st, its fstat) with more than
// one hard link, whose content may be an outside file's, and one that the
// name no longer leads to: unlinking the inside name of a linked file
// between the open and the fstat would leave it one link, the outside one.
func (d *fdDir) checkSingleLink(name string, st *unix.Stat_t) error {
	if st.Nlink > 1 {
		return ErrHardLink
	}
	var now unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &now, unix.AT_SYMLINK_NOFOLLOW); err != nil || now.Dev != st.Dev || now.Ino != st.Ino {
		return ErrHardLink
	}
	return nil
}

func infoOf(st *unix.Stat_t) Info {
	return Info{
		Mode:    modeOf(st.Mode),
		Size:    st.Size,
		ModTime: time.Unix(st.Mtim.Unix()),
		Links:   uint64(st.Nlink),
	}
}

func (d *fdDir) Close() error { return unix.Close(d.fd) }

func openat(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

func modeOf(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	default:
		mode |= fs.ModeIrregular
	}
	return mode
}
