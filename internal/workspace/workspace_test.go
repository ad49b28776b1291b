package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// base returns a canonical temporary directory the test can lay out freely:
// the workspace goes in base/ws, things "outside" beside it.
func base(t *testing.T) string {
	t.Helper()
	b, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mkdir(t *testing.T, p string) string {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeFile(t *testing.T, p, content string) string {
	t.Helper()
	mkdir(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func open(t *testing.T, primary string, extra ...string) *Workspace {
	t.Helper()
	w, err := Open(primary, extra...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func TestCanonical(t *testing.T) {
	b := base(t)
	dir := mkdir(t, filepath.Join(b, "real"))
	file := writeFile(t, filepath.Join(b, "file.txt"), "x")
	symlink(t, dir, filepath.Join(b, "alias"))

	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string
	}{
		{name: "directory", in: dir, want: dir},
		{name: "unclean", in: dir + "/./", want: dir},
		{name: "symlink resolved", in: filepath.Join(b, "alias"), want: dir},
		{name: "relative refused", in: "real", wantErr: "must be an absolute path"},
		{name: "empty refused", in: "", wantErr: "must be an absolute path"},
		{name: "missing refused", in: filepath.Join(b, "missing"), wantErr: "no such file or directory"},
		{name: "file refused", in: file, wantErr: "is not a directory"},
		{name: "NUL refused", in: dir + "\x00x", wantErr: "NUL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonical(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Canonical(%q) = %q, %v; want error containing %q", tc.in, got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Canonical(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestOpen(t *testing.T) {
	b := base(t)
	ws := mkdir(t, filepath.Join(b, "ws"))
	extra := mkdir(t, filepath.Join(b, "extra"))
	file := writeFile(t, filepath.Join(b, "file.txt"), "x")
	symlink(t, ws, filepath.Join(b, "ws-alias"))

	t.Run("primary first, duplicates dropped", func(t *testing.T) {
		w := open(t, filepath.Join(b, "ws-alias"), extra, ws, extra)
		if got := w.Dirs(); len(got) != 2 || got[0] != ws || got[1] != extra {
			t.Fatalf("Dirs() = %q, want [%s %s]", got, ws, extra)
		}
		if w.Primary() != ws {
			t.Fatalf("Primary() = %q, want %q", w.Primary(), ws)
		}
	})
	for _, tc := range []struct {
		name    string
		primary string
		extra   []string
	}{
		{name: "relative primary", primary: "ws"},
		{name: "missing primary", primary: filepath.Join(b, "missing")},
		{name: "file as primary", primary: file},
		{name: "missing additional", primary: ws, extra: []string{filepath.Join(b, "missing")}},
		{name: "relative additional", primary: ws, extra: []string{"extra"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if w, err := Open(tc.primary, tc.extra...); err == nil {
				w.Close()
				t.Fatalf("Open(%q, %q) succeeded, want an error", tc.primary, tc.extra)
			}
		})
	}
}

func TestLocate(t *testing.T) {
	b := base(t)
	ws := mkdir(t, filepath.Join(b, "ws"))
	nested := mkdir(t, filepath.Join(ws, "vendor", "lib"))
	extra := mkdir(t, filepath.Join(b, "extra"))
	mkdir(t, ws+"-evil")
	w := open(t, ws, extra, nested)

	tests := []struct {
		name    string
		cwd, p  string
		wantAbs string
		wantDir string
		wantRel string
		escape  bool
		wantErr string
	}{
		{name: "absolute inside", p: ws + "/a/b.txt", wantAbs: ws + "/a/b.txt", wantDir: ws, wantRel: "a/b.txt"},
		{name: "relative against cwd", cwd: ws + "/src", p: "main.go", wantAbs: ws + "/src/main.go", wantDir: ws, wantRel: "src/main.go"},
		{name: "relative without cwd uses primary", p: "x.txt", wantAbs: ws + "/x.txt", wantDir: ws, wantRel: "x.txt"},
		{name: "workspace itself", p: ws, wantAbs: ws, wantDir: ws, wantRel: "."},
		{name: "dot dot staying inside", cwd: ws + "/a", p: "../b/../c", wantAbs: ws + "/c", wantDir: ws, wantRel: "c"},
		{name: "trailing slash cleaned", p: ws + "/a/", wantAbs: ws + "/a", wantDir: ws, wantRel: "a"},
		{name: "additional directory", p: extra + "/notes.md", wantAbs: extra + "/notes.md", wantDir: extra, wantRel: "notes.md"},
		{name: "nested directory picks innermost", p: nested + "/x.go", wantAbs: nested + "/x.go", wantDir: nested, wantRel: "x.go"},
		{name: "dot dot escaping", cwd: ws, p: "../canary", escape: true},
		{name: "dot dot from deep cwd", cwd: ws + "/a/b", p: "../../../canary", escape: true},
		{name: "absolute outside", p: b + "/canary", escape: true},
		{name: "sibling prefix", p: ws + "-evil/secret", escape: true},
		{name: "sibling prefix relative", cwd: ws, p: "../ws-evil/secret", escape: true},
		{name: "root", p: "/", escape: true},
		{name: "proc self root", p: "/proc/self/root" + ws + "/x", escape: true},
		{name: "home relative", p: "~/x", escape: true},
		{name: "empty", p: "", wantErr: "empty"},
		{name: "NUL byte", p: ws + "/a\x00b", wantErr: "control characters"},
		{name: "newline", p: ws + "/a\nb", wantErr: "control characters"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			loc, err := w.Locate(tc.cwd, tc.p)
			switch {
			case tc.escape:
				var ee *EscapeError
				if !errors.As(err, &ee) || !errors.Is(err, ErrOutside) {
					t.Fatalf("Locate(%q, %q) = %+v, %v; want an EscapeError", tc.cwd, tc.p, loc, err)
				}
				if !strings.Contains(err.Error(), tc.p) {
					t.Errorf("error %q does not name the path %q", err, tc.p)
				}
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Locate(%q, %q) error = %v; want one containing %q", tc.cwd, tc.p, err, tc.wantErr)
				}
			default:
				if err != nil {
					t.Fatalf("Locate(%q, %q): %v", tc.cwd, tc.p, err)
				}
				if loc.Abs != tc.wantAbs || loc.Dir != tc.wantDir || loc.Rel != tc.wantRel {
					t.Fatalf("Locate(%q, %q) = {Abs:%q Dir:%q Rel:%q}; want {%q %q %q}",
						tc.cwd, tc.p, loc.Abs, loc.Dir, loc.Rel, tc.wantAbs, tc.wantDir, tc.wantRel)
				}
			}
		})
	}
}

func TestContains(t *testing.T) {
	b := base(t)
	ws := mkdir(t, filepath.Join(b, "ws"))
	w := open(t, ws)
	for p, want := range map[string]bool{
		ws:              true,
		ws + "/a/b":     true,
		ws + "-evil":    false,
		ws + "-evil/a":  false,
		b:               false,
		"/":             false,
		ws + "/../ws-x": false,
	} {
		if got := w.Contains(filepath.Clean(p)); got != want {
			t.Errorf("Contains(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestLocOpsRefuseSymlinksOut(t *testing.T) {
	b := base(t)
	ws := mkdir(t, filepath.Join(b, "ws"))
	canary := writeFile(t, filepath.Join(b, "canary.txt"), "secret")
	outDir := mkdir(t, filepath.Join(b, "outdir"))
	writeFile(t, filepath.Join(outDir, "f.txt"), "secret")
	symlink(t, canary, filepath.Join(ws, "abs-link"))
	symlink(t, "../canary.txt", filepath.Join(ws, "rel-link"))
	symlink(t, outDir, filepath.Join(ws, "dir-link"))
	symlink(t, filepath.Join(b, "new.txt"), filepath.Join(ws, "dangling"))
	symlink(t, "/proc/self/root"+canary, filepath.Join(ws, "proc-link"))
	w := open(t, ws)

	for _, p := range []string{"abs-link", "rel-link", "dir-link/f.txt", "dir-link", "proc-link"} {
		t.Run(p, func(t *testing.T) {
			loc, err := w.Locate(ws, p)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := loc.ReadFile(0); !errors.Is(err, ErrOutside) {
				t.Errorf("ReadFile: %v, want an escape error", err)
			}
			if _, err := loc.Stat(); !errors.Is(err, ErrOutside) {
				t.Errorf("Stat: %v, want an escape error", err)
			}
			if _, err := loc.Resolve(); !errors.Is(err, ErrOutside) {
				t.Errorf("Resolve: %v, want an escape error", err)
			}
			if err := loc.WriteFileAtomic([]byte("pwned"), 0o644); !errors.Is(err, ErrOutside) {
				t.Errorf("WriteFileAtomic: %v, want an escape error", err)
			}
		})
	}
	t.Run("dangling write", func(t *testing.T) {
		loc, _ := w.Locate(ws, "dangling")
		if err := loc.WriteFileAtomic([]byte("pwned"), 0o644); !errors.Is(err, ErrOutside) {
			t.Fatalf("WriteFileAtomic: %v, want an escape error", err)
		}
		if _, err := os.Lstat(filepath.Join(b, "new.txt")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("the dangling target outside was created (%v)", err)
		}
	})
	if got, _ := os.ReadFile(canary); string(got) != "secret" {
		t.Fatalf("canary changed: %q", got)
	}
}

func TestResolve(t *testing.T) {
	b := base(t)
	ws := mkdir(t, filepath.Join(b, "ws"))
	extra := mkdir(t, filepath.Join(b, "extra"))
	writeFile(t, filepath.Join(ws, "real", "target.txt"), "t")
	writeFile(t, filepath.Join(ws, "real", "sub", "f.txt"), "f")
	writeFile(t, filepath.Join(extra, "e.txt"), "e")
	symlink(t, "real/target.txt", filepath.Join(ws, "one"))
	symlink(t, "one", filepath.Join(ws, "two"))
	symlink(t, filepath.Join(ws, "two"), filepath.Join(ws, "three"))
	symlink(t, "loop-b", filepath.Join(ws, "loop-a"))
	symlink(t, "loop-a", filepath.Join(ws, "loop-b"))
	symlink(t, "self", filepath.Join(ws, "self"))
	symlink(t, "real/missing.txt", filepath.Join(ws, "dangling"))
	// alias is a directory symlink; the link inside real/sub climbs with
	// "..", which the kernel takes from real/sub, not from alias's parent.
	symlink(t, "real/sub", filepath.Join(ws, "alias"))
	symlink(t, "../target.txt", filepath.Join(ws, "real", "sub", "up"))
	symlink(t, extra, filepath.Join(ws, "to-extra"))
	symlink(t, "../sub/./../target.txt", filepath.Join(ws, "real", "sub", "mid"))
	symlink(t, "nowhere/../target.txt", filepath.Join(ws, "real", "via-missing"))
	nested := mkdir(t, filepath.Join(ws, "vendor"))
	symlink(t, "../real/target.txt", filepath.Join(nested, "up"))
	symlink(t, "../../outside", filepath.Join(nested, "out"))
	symlink(t, "../canary", filepath.Join(ws, "real", "sub", "out-through-alias"))
	w := open(t, ws, extra, nested)

	tests := []struct {
		name    string
		p       string
		want    string
		wantErr string
	}{
		{name: "plain file", p: "real/target.txt", want: ws + "/real/target.txt"},
		{name: "missing file", p: "real/nope.txt", want: ws + "/real/nope.txt"},
		{name: "missing directories", p: "a/b/c.txt", want: ws + "/a/b/c.txt"},
		{name: "chain", p: "three", want: ws + "/real/target.txt"},
		{name: "dangling inside", p: "dangling", want: ws + "/real/missing.txt"},
		{name: "directory symlink on the way", p: "alias/f.txt", want: ws + "/real/sub/f.txt"},
		{name: "relative link under a directory symlink", p: "alias/up", want: ws + "/real/target.txt"},
		{name: "into an additional directory", p: "to-extra/e.txt", want: extra + "/e.txt"},
		{name: "dot dot inside a link target", p: "alias/mid", want: ws + "/real/target.txt"},
		{name: "dot dot after a missing directory", p: "real/via-missing", wantErr: "no such file or directory"},
		{name: "from a nested directory up into the outer one", p: "vendor/up", want: ws + "/real/target.txt"},
		{name: "nested directory climbing out", p: "vendor/out", wantErr: "outside the workspace"},
		{name: "relative link out through a directory alias", p: "alias/out-through-alias", want: ws + "/real/canary"},
		{name: "loop", p: "loop-a", wantErr: "too many levels of symbolic links"},
		{name: "self loop", p: "self", wantErr: "too many levels of symbolic links"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			loc, err := w.Locate(ws, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			got, err := loc.Resolve()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Resolve(%s) = %q, %v; want error containing %q", tc.p, got.Abs, err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), loc.Abs) {
					t.Errorf("error %q does not name %s", err, loc.Abs)
				}
				return
			}
			if err != nil || got.Abs != tc.want {
				t.Fatalf("Resolve(%s) = %q, %v; want %q", tc.p, got.Abs, err, tc.want)
			}
			// The resolved Loc must be usable and name the same file.
			if fi, err := got.Lstat(); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
				t.Errorf("Resolve(%s) returned a symlink", tc.p)
			}
		})
	}
}

func TestWriteFileAtomic(t *testing.T) {
	b := base(t)
	ws := mkdir(t, filepath.Join(b, "ws"))
	writeFile(t, filepath.Join(ws, "exec.sh"), "old")
	if err := os.Chmod(filepath.Join(ws, "exec.sh"), 0o750); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, "real", "target.txt"), "old")
	symlink(t, "real/target.txt", filepath.Join(ws, "link"))
	writeFile(t, filepath.Join(ws, "real", "sub", "keep.txt"), "old")
	symlink(t, "real/sub", filepath.Join(ws, "alias"))
	symlink(t, "../target.txt", filepath.Join(ws, "real", "sub", "up"))
	writeFile(t, filepath.Join(ws, "target.txt"), "decoy")
	mkdir(t, filepath.Join(ws, "adir"))
	writeFile(t, filepath.Join(ws, "afile"), "x")
	w := open(t, ws)
	oldMask := syscall.Umask(0o077)
	t.Cleanup(func() { syscall.Umask(oldMask) })

	tests := []struct {
		name     string
		p        string
		perm     fs.FileMode
		wantFile string
		wantMode fs.FileMode
		wantErr  string
	}{
		{name: "new file gets perm despite umask", p: "new.txt", perm: 0o644, wantFile: "new.txt", wantMode: 0o644},
		{name: "parents created", p: "a/b/c/new.txt", perm: 0o600, wantFile: "a/b/c/new.txt", wantMode: 0o600},
		{name: "existing keeps its mode", p: "exec.sh", perm: 0o644, wantFile: "exec.sh", wantMode: 0o750},
		{name: "symlink writes its target", p: "link", perm: 0o644, wantFile: "real/target.txt", wantMode: 0o644},
		{name: "relative link under a directory symlink", p: "alias/up", perm: 0o644, wantFile: "real/target.txt", wantMode: 0o644},
		{name: "directory refused", p: "adir", perm: 0o644, wantErr: "is a directory"},
		{name: "parent is a file", p: "afile/x.txt", perm: 0o644, wantErr: "not a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			loc, err := w.Locate(ws, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			err = loc.WriteFileAtomic([]byte("new content"), tc.perm)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("WriteFileAtomic(%s) = %v, want error containing %q", tc.p, err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), loc.Abs) {
					t.Errorf("error %q does not name %s", err, loc.Abs)
				}
			} else {
				if err != nil {
					t.Fatalf("WriteFileAtomic(%s): %v", tc.p, err)
				}
				p := filepath.Join(ws, tc.wantFile)
				got, err := os.ReadFile(p)
				if err != nil || string(got) != "new content" {
					t.Fatalf("%s = %q, %v; want %q", tc.wantFile, got, err, "new content")
				}
				fi, _ := os.Stat(p)
				if fi.Mode().Perm() != tc.wantMode {
					t.Errorf("%s mode = %v, want %v", tc.wantFile, fi.Mode().Perm(), tc.wantMode)
				}
			}
			assertNoTempFiles(t, ws)
		})
	}
	for _, link := range []string{"link", "real/sub/up"} {
		if fi, err := os.Lstat(filepath.Join(ws, link)); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("the symlink %s was replaced by a file (%v)", link, err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "target.txt")); string(got) != "decoy" {
		t.Errorf("target.txt, which no path named, was written: %q", got)
	}
}

func assertNoTempFiles(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".toold-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}
