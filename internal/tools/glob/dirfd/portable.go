package dirfd

import (
	"io/fs"
	"path"
)

// OpenFS opens the root of fsys with the portable implementation, which
// resolves every operation through fsys.
func OpenFS(fsys fs.FS) (Dir, error) {
	fi, err := fs.Stat(fsys, ".")
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: ".", Err: fs.ErrInvalid}
	}
	return &fsDir{fsys: fsys, rel: "."}, nil
}

type fsDir struct {
	fsys fs.FS
	rel  string
}

func (d *fsDir) child(name string) string {
	if d.rel == "." {
		return name
	}
	return path.Join(d.rel, name)
}

func (d *fsDir) ReadDir() ([]Entry, error) {
	f, err := d.fsys.Open(d.rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rd, ok := f.(fs.ReadDirFile)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: d.rel, Err: fs.ErrInvalid}
	}
	list, err := rd.ReadDir(-1)
	out := make([]Entry, 0, len(list))
	for _, e := range list {
		out = append(out, Entry{Name: e.Name(), Type: e.Type()})
	}
	return out, err
}

func (d *fsDir) OpenDir(name string) (Dir, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	info, err := d.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !info.Mode.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: d.child(name), Err: fs.ErrInvalid}
	}
	return &fsDir{fsys: d.fsys, rel: d.child(name)}, nil
}

func (d *fsDir) OpenFile(name string) (File, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	info, err := d.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !info.Mode.IsRegular() {
		return nil, ErrNotRegular
	}
	f, err := d.fsys.Open(d.child(name))
	if err != nil {
		return nil, err
	}
	return &fsFile{File: f, info: info}, nil
}

func (d *fsDir) ReadFile(name string, buf []byte) ([]byte, Info, error) {
	return readFile(d, name, buf)
}

type fsFile struct {
	fs.File
	info Info
}

func (f *fsFile) Info() Info { return f.info }

func (d *fsDir) Lstat(name string) (Info, error) {
	if err := checkName(name); err != nil {
		return Info{}, err
	}
	var fi fs.FileInfo
	var err error
	if lfs, ok := d.fsys.(fs.ReadLinkFS); ok {
		fi, err = lfs.Lstat(d.child(name))
	} else {
		fi, err = fs.Stat(d.fsys, d.child(name))
	}
	if err != nil {
		return Info{}, err
	}
	return Info{Mode: fi.Mode(), Size: fi.Size(), ModTime: fi.ModTime()}, nil
}

func (d *fsDir) Close() error { return nil }
