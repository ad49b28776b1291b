package main

import (
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/sandbox"
)

func TestSandboxAndRuntimeFlags(t *testing.T) {
	cfg, err := parseConfig(nil, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	sb, rt := cfg.Sandbox, cfg.Runtime
	if sb.Mode != sandbox.ModeBestEffort || sb.User != "nobody" || !sb.Network || sb.Limits != sandbox.DefaultLimits() {
		t.Errorf("sandbox defaults = %+v", sb)
	}
	if rt.Shells.MaxOutputBytes != 16<<20 || rt.Shells.MaxShells != 32 || rt.Shells.Dir == "" {
		t.Errorf("shell defaults = %+v", rt.Shells)
	}
	if w := rt.WebFetch; w.Timeout != time.Minute || w.MaxBytes != 10<<20 || w.CacheTTL != 15*time.Minute || w.KeepHTTP || len(w.AllowCIDRs) != 0 {
		t.Errorf("webfetch defaults = %+v", w)
	}
	if rt.BashTimeoutKills {
		t.Errorf("Bash kills at the timeout by default; Claude Code moves the command to the background")
	}

	cfg, err = parseConfig([]string{
		"--sandbox", "required", "--sandbox-network=false", "--sandbox-memory-max", "2GiB", "--sandbox-rlimit-fsize", "1048576",
		"--sandbox-read-dirs", "/opt/tools, /srv/data", "--shell-output-cap", "1MiB", "--webfetch-allow-cidr", "10.0.0.0/8,127.0.0.1",
		"--webfetch-cache-ttl", "0", "--bash-timeout-kills",
	}, func(k string) string {
		if k == "TOOLD_MAX_BACKGROUND_SHELLS" {
			return "4"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	sb, rt = cfg.Sandbox, cfg.Runtime
	if sb.Mode != sandbox.ModeRequired || sb.Network || sb.Limits.MemoryMax != 2<<30 || sb.Limits.FileSize != 1<<20 ||
		len(sb.ReadDirs) != 2 || sb.ReadDirs[1] != "/srv/data" {
		t.Errorf("sandbox = %+v", sb)
	}
	if rt.Shells.MaxOutputBytes != 1<<20 || rt.Shells.MaxShells != 4 || len(rt.WebFetch.AllowCIDRs) != 2 || rt.WebFetch.CacheTTL >= 0 || !rt.BashTimeoutKills {
		t.Errorf("runtime = %+v", rt)
	}

	for _, bad := range [][]string{
		{"--sandbox", "strict"},
		{"--sandbox-memory-max", "lots"},
		{"--sandbox-write-dirs", "relative/dir"},
		{"--sandbox-cgroup", "toold"},
		{"--max-background-shells", "0"},
		{"--webfetch-allow-cidr", "example.com"},
		{"--webfetch-timeout", "0s"},
	} {
		if _, err := parseConfig(bad, func(string) string { return "" }); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

func TestByteSize(t *testing.T) {
	for in, want := range map[string]uint64{"0": 0, "512": 512, "4KiB": 4 << 10, "16MiB": 16 << 20, "2g": 2 << 30, "1 TiB": 1 << 40} {
		var b byteSize
		if err := b.Set(in); err != nil || uint64(b) != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, b, err, want)
		}
	}
	for _, in := range []string{"", "-1", "1.5GiB", "99999999999TiB"} {
		var b byteSize
		if err := b.Set(in); err == nil {
			t.Errorf("Set(%q) was accepted", in)
		}
	}
	b := byteSize(16 << 30)
	if b.String() != "16GiB" {
		t.Errorf("String = %s", b.String())
	}
}

// TestFileToolFlags: MultiEdit, which Claude Code 2.1.332 lacks, is
// offered only with --multiedit, and the stricter read-before-write rule
// only with --require-read-before-write.
func TestFileToolFlags(t *testing.T) {
	for _, tc := range []struct {
		args        []string
		env         string
		multi, read bool
	}{
		{nil, "", false, false},
		{[]string{"--multiedit"}, "", true, false},
		{[]string{"--require-read-before-write"}, "", false, true},
		{nil, "TOOLD_REQUIRE_READ_BEFORE_WRITE", false, true},
		{[]string{"--multiedit", "--require-read-before-write"}, "", true, true},
	} {
		cfg, err := parseConfig(tc.args, func(k string) string {
			if k == tc.env {
				return "true"
			}
			return ""
		})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Runtime.MultiEdit != tc.multi || cfg.Runtime.Files.RequireRead != tc.read {
			t.Errorf("%q %s: runtime = %+v", tc.args, tc.env, cfg.Runtime)
		}
		reg, err := builtinTools(&toolRuntime{multi: cfg.Runtime.MultiEdit, files: cfg.Runtime.Files})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := reg.Lookup("MultiEdit"); ok != tc.multi {
			t.Errorf("%q: MultiEdit registered = %v", tc.args, ok)
		}
		for _, name := range []string{"Write", "Edit", "NotebookEdit"} {
			if _, ok := reg.Lookup(name); !ok {
				t.Errorf("%q: %s missing", tc.args, name)
			}
		}
		d, _ := reg.Definition("Write")
		if strict := strings.Contains(d.Description, "you must have read it"); strict != tc.read {
			t.Errorf("%q: Write description strict = %v", tc.args, strict)
		}
	}
}

// TestTaskListOrTodoWrite: the task list tools by default, TodoWrite
// deferred beside them; --todowrite offers TodoWrite alone.
func TestTaskListOrTodoWrite(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		tasks     bool
		todoLoads bool
	}{
		{nil, true, false},
		{[]string{"--todowrite"}, false, true},
	} {
		cfg, err := parseConfig(tc.args, func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		reg, err := builtinTools(&toolRuntime{todoWrite: cfg.Runtime.TodoWrite})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"TaskCreate", "TaskGet", "TaskList", "TaskUpdate"} {
			if _, ok := reg.Lookup(name); ok != tc.tasks {
				t.Errorf("%q: %s registered = %v", tc.args, name, ok)
			}
		}
		d, ok := reg.Definition("TodoWrite")
		if !ok || d.Deferred == tc.todoLoads {
			t.Errorf("%q: TodoWrite registered %v, deferred %v", tc.args, ok, d.Deferred)
		}
		for _, name := range []string{"TaskStop", "KillShell", "Monitor", "TaskOutput"} {
			if _, ok := reg.Lookup(name); !ok {
				t.Errorf("%q: %s missing", tc.args, name)
			}
		}
	}
}
