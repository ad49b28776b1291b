//go:build unix

package dirfd

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// tree makes a root with a file, a directory, links in and out, and a
// FIFO, and opens it as an os.Root file system, as workspace.Loc.FS does.
func tree(t *testing.T) (fs.FS, string) {
	t.Helper()
	root := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o644)
	os.Mkdir(filepath.Join(root, "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "sub", "f.txt"), []byte("hello"), 0o644)
	os.WriteFile(filepath.Join(root, "top.txt"), []byte("top"), 0o644)
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "out"))
	os.Symlink(outside, filepath.Join(root, "outdir"))
	os.Symlink("sub", filepath.Join(root, "insub"))
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r.FS(), root
}

func impls(t *testing.T, fsys fs.FS) map[string]Dir {
	fast, err := Open(fsys)
	if err != nil {
		t.Fatal(err)
	}
	portable, err := OpenFS(fsys)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fast.Close(); portable.Close() })
	return map[string]Dir{"fast": fast, "portable": portable}
}

func TestDir(t *testing.T) {
	fsys, _ := tree(t)
	for name, d := range impls(t, fsys) {
		t.Run(name, func(t *testing.T) {
			entries, err := d.ReadDir()
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]fs.FileMode{}
			for _, e := range entries {
				got[e.Name] = e.Type
			}
			want := map[string]fs.FileMode{
				"sub": fs.ModeDir, "top.txt": 0, "out": fs.ModeSymlink,
				"outdir": fs.ModeSymlink, "insub": fs.ModeSymlink,
			}
			for n, typ := range want {
				if g, ok := got[n]; !ok || g != typ {
					t.Errorf("%s: type %v (listed %v), want %v", n, g, ok, typ)
				}
			}
			if typ := got["fifo"]; typ.IsRegular() || typ.IsDir() {
				t.Errorf("fifo listed as %v", typ)
			}

			sub, err := d.OpenDir("sub")
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Close()
			data, info, err := sub.ReadFile("f.txt", nil)
			if err != nil || string(data) != "hello" || info.Size != 5 || time.Since(info.ModTime) > time.Hour {
				t.Errorf("ReadFile = %q, %+v, %v", data, info, err)
			}
			names := []string{}
			list, _ := sub.ReadDir()
			for _, e := range list {
				names = append(names, e.Name)
			}
			if !slices.Equal(names, []string{"f.txt"}) {
				t.Errorf("sub lists %v", names)
			}

			for _, n := range []string{"outdir", "insub", "top.txt", "missing"} {
				if _, err := d.OpenDir(n); err == nil {
					t.Errorf("OpenDir(%s) succeeded", n)
				}
			}
			for _, n := range []string{"out", "insub", "sub"} {
				if _, _, err := d.ReadFile(n, nil); err == nil {
					t.Errorf("ReadFile(%s) succeeded", n)
				}
			}
			if info, err := d.Lstat("out"); err != nil || info.Mode&fs.ModeSymlink == 0 {
				t.Errorf("Lstat(out) = %v, %v", info.Mode, err)
			}
			for _, n := range []string{"..", ".", "sub/f.txt", "", "a\x00b"} {
				if _, err := d.OpenDir(n); !errors.Is(err, errBadName) {
					t.Errorf("OpenDir(%q): %v", n, err)
				}
				if _, _, err := d.ReadFile(n, nil); !errors.Is(err, errBadName) {
					t.Errorf("ReadFile(%q): %v", n, err)
				}
			}
		})
	}
}

// TestFIFONeverBlocks: a FIFO is refused without waiting for a writer.
func TestFIFONeverBlocks(t *testing.T) {
	fsys, _ := tree(t)
	for name, d := range impls(t, fsys) {
		done := make(chan error, 1)
		go func() {
			_, _, err := d.ReadFile("fifo", nil)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s: reading a FIFO succeeded", name)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: reading a FIFO blocked", name)
		}
	}
}

func TestOpenNeedsDirectory(t *testing.T) {
	fsys, _ := tree(t)
	sub, err := fs.Sub(fsys, "top.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(sub); err == nil {
		t.Error("Open of a file succeeded")
	}
}
