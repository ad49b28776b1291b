package workspace

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func ownerOf(t *testing.T, p string) (int, int) {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return int(st.Uid), int(st.Gid)
}

// With an owner set, what the file tools create belongs to it (the sandbox
// user can then change it), and a replaced file keeps whoever owned it.
func TestSetOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving files to another user needs root")
	}
	const uid, gid = 65534, 65534
	b := base(t)
	ws := mkdir(t, filepath.Join(b, "ws"))
	mkdir(t, filepath.Join(ws, "old"))
	rootFile := writeFile(t, filepath.Join(ws, "root.txt"), "root's\n")
	userFile := writeFile(t, filepath.Join(ws, "user.txt"), "user's\n")
	if err := os.Chown(userFile, 1234, 5678); err != nil {
		t.Fatal(err)
	}
	w, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetOwner(&Owner{UID: uid, GID: gid})

	write := func(rel string) {
		t.Helper()
		loc, err := w.Locate(ws, rel)
		if err != nil {
			t.Fatal(err)
		}
		if err := loc.WriteFileAtomic([]byte("new\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("old/new/deeper/f.txt")
	write("root.txt")
	write("user.txt")
	loc, err := w.Locate(ws, "made/by/mkdir")
	if err != nil {
		t.Fatal(err)
	}
	if err := loc.MkdirAll(0o755); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		rel      string
		uid, gid int
	}{
		{"old/new/deeper/f.txt", uid, gid},
		{"old/new/deeper", uid, gid},
		{"old/new", uid, gid},
		{"old", 0, 0}, // existed before: left alone
		{"root.txt", 0, 0},
		{"user.txt", 1234, 5678},
		{"made", uid, gid},
		{"made/by/mkdir", uid, gid},
	} {
		if u, g := ownerOf(t, filepath.Join(ws, tc.rel)); u != tc.uid || g != tc.gid {
			t.Errorf("%s is owned by %d:%d, want %d:%d", tc.rel, u, g, tc.uid, tc.gid)
		}
	}
	if fi, _ := os.Stat(rootFile); fi.Mode().Perm() != 0o644 {
		t.Errorf("root.txt mode %o", fi.Mode().Perm())
	}
}

// Without an owner nothing is chowned: files belong to toold's user.
func TestNoOwner(t *testing.T) {
	b := base(t)
	ws := mkdir(t, filepath.Join(b, "ws"))
	w, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	loc, err := w.Locate(ws, "a/b.txt")
	if err != nil {
		t.Fatal(err)
	}
	if err := loc.WriteFileAtomic([]byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"a", "a/b.txt"} {
		if u, _ := ownerOf(t, filepath.Join(ws, rel)); u != os.Geteuid() {
			t.Errorf("%s is owned by %d, want toold's %d", rel, u, os.Geteuid())
		}
	}
}
