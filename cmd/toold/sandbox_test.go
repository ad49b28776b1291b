package main

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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

// Every file toold reads its credentials and configuration from is hidden
// from commands, and every port it listens on or talks to the store on is
// denied, without the operator naming them.
func TestSandboxKeepsToolDsOwnFilesAndPorts(t *testing.T) {
	tenants := t.TempDir()
	cfg, err := parseConfig([]string{
		"--listen", "127.0.0.1:50051", "--health-listen", "127.0.0.1:8081", "--metrics-listen", ":9464", "--mcp-listen", "127.0.0.1:7070",
		"--redis-url", "redis://redis:6380/0", "--settings", "/etc/toold/settings/settings.json", "--tenant-settings", tenants,
		"--jwt-jwks", "/etc/toold/jwks/keys.json", "--audit-log", "/var/log/toold/audit.log",
		"--sandbox-hide", "/var/run/secrets", "--sandbox-deny-ports", "5432",
	}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/etc/toold/settings/settings.json", tenants, "/etc/toold/jwks/keys.json", "/var/log/toold/audit.log", "/var/run/secrets"} {
		if !slices.Contains(cfg.Sandbox.Hidden, want) {
			t.Errorf("hidden paths %v lack %s", cfg.Sandbox.Hidden, want)
		}
	}
	for _, want := range []int{50051, 8081, 9464, 7070, 6380, 5432} {
		if !slices.Contains(cfg.Sandbox.DeniedPorts, want) {
			t.Errorf("denied ports %v lack %d", cfg.Sandbox.DeniedPorts, want)
		}
	}
	cfg, err = parseConfig([]string{"--redis-url", "redis://redis"}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(cfg.Sandbox.DeniedPorts, 6379) {
		t.Errorf("a Redis URL without a port: denied ports %v lack 6379", cfg.Sandbox.DeniedPorts)
	}
	if _, err := parseConfig([]string{"--sandbox-deny-ports", "70000"}, func(string) string { return "" }); err == nil {
		t.Error("--sandbox-deny-ports 70000 was accepted")
	}
}
