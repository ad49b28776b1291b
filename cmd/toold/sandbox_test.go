package main

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/toold/toold/internal/sandbox"
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

func TestSandboxWarmHelpersFlag(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    int
		wantErr bool
	}{
		{nil, sandbox.DefaultWarmHelpers, false},
		{[]string{"--sandbox-warm-helpers", "5"}, 5, false},
		{[]string{"--sandbox-warm-helpers", "0"}, -1, false},
		{[]string{"--sandbox-warm-helpers", "-1"}, 0, true},
	} {
		fs := flag.NewFlagSet("toold", flag.ContinueOnError)
		f := addSandboxFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		opts, err := f.config()
		if (err != nil) != tc.wantErr {
			t.Errorf("%v: err = %v", tc.args, err)
			continue
		}
		if err == nil && opts.WarmHelpers != tc.want {
			t.Errorf("%v: WarmHelpers = %d, want %d", tc.args, opts.WarmHelpers, tc.want)
		}
	}
}
