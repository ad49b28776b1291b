package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestPassable(t *testing.T) {
	dir := t.TempDir()
	uid, gid := os.Getuid(), os.Getgid()
	for _, tc := range []struct {
		mode     fs.FileMode
		uid, gid int
		want     bool
	}{
		{0o711, uid + 1, gid + 1, true},
		{0o700, uid + 1, gid + 1, false},
		{0o700, uid, gid + 1, true},
		{0o750, uid + 1, gid, true},
		{0o740, uid + 1, gid, false},
	} {
		d := filepath.Join(dir, tc.mode.String())
		os.Mkdir(d, 0o700)
		if err := os.Chmod(d, tc.mode); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if got := passable(fi, tc.uid, tc.gid); got != tc.want {
			t.Errorf("mode %o for %d:%d (owner %d:%d): passable = %v", tc.mode, tc.uid, tc.gid, uid, gid, got)
		}
	}
}
