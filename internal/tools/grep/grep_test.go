package grep

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
)

// small builds a little workspace with known modification times.
func small(t *testing.T) (*tool.Env, string) {
	env, _, _ := tooltest.Env(t)
	f := &fileSet{t: t, dir: env.Cwd}
	// A repository: .gitignore applies only inside one.
	if err := os.Mkdir(filepath.Join(env.Cwd, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.text(".gitignore", "*.log\n")
	f.text("a.go", "package a\n\nfunc Alpha() {}\n\n// TODO: alpha\n")
	f.text("b.go", "package b\n\nfunc Beta() {}\nfunc beta2() {}\n")
	f.text("docs/readme.md", "Alpha and beta.\nTODO: docs\n")
	f.text("app.log", "Alpha in a log\n")
	f.text(".config/settings.json", "{\"alpha\": 1}\n")
	return env, env.Cwd
}

func TestGrepOutput(t *testing.T) {
	tests := []struct {
		name string
		in   map[string]any
		want string // $ stands for the workspace
	}{
		{name: "files newest first",
			in:   map[string]any{"pattern": "func"},
			want: "Found 2 files\nb.go\na.go"},
		{name: "no file",
			in:   map[string]any{"pattern": "gamma"},
			want: "No files found"},
		{name: "content",
			in:   map[string]any{"pattern": "func", "output_mode": "content"},
			want: "a.go:3:func Alpha() {}\nb.go:3:func Beta() {}\nb.go:4:func beta2() {}"},
		{name: "content without numbers",
			in:   map[string]any{"pattern": "TODO", "output_mode": "content", "-n": false},
			want: "a.go:// TODO: alpha\ndocs/readme.md:TODO: docs"},
		{name: "content with context",
			in:   map[string]any{"pattern": "Beta", "output_mode": "content", "-C": 1},
			want: "b.go-2-\nb.go:3:func Beta() {}\nb.go-4-func beta2() {}"},
		{name: "context between files",
			in:   map[string]any{"pattern": "TODO", "output_mode": "content", "-B": 1},
			want: "a.go-4-\na.go:5:// TODO: alpha\n--\ndocs/readme.md-1-Alpha and beta.\ndocs/readme.md:2:TODO: docs"},
		{name: "no match in content",
			in:   map[string]any{"pattern": "gamma", "output_mode": "content"},
			want: "No matches found"},
		{name: "count",
			in:   map[string]any{"pattern": "(?i)beta", "output_mode": "count"},
			want: "b.go:2\ndocs/readme.md:1\n\nFound 3 total occurrences across 2 files."},
		{name: "count one",
			in:   map[string]any{"pattern": "docs", "output_mode": "count"},
			want: "docs/readme.md:1\n\nFound 1 total occurrence across 1 file."},
		{name: "ignore case",
			in:   map[string]any{"pattern": "ALPHA", "-i": true},
			want: "Found 3 files\n.config/settings.json\ndocs/readme.md\na.go"},
		{name: "gitignored file skipped, hidden file searched",
			in:   map[string]any{"pattern": "lpha"},
			want: "Found 3 files\n.config/settings.json\ndocs/readme.md\na.go"},
		{name: "glob",
			in:   map[string]any{"pattern": "Alpha", "glob": "*.md"},
			want: "Found 1 file\ndocs/readme.md"},
		{name: "glob selects an ignored file",
			in:   map[string]any{"pattern": "Alpha", "glob": "*.log"},
			want: "Found 1 file\napp.log"},
		{name: "type",
			in:   map[string]any{"pattern": "Alpha", "type": "go"},
			want: "Found 1 file\na.go"},
		{name: "path directory",
			in:   map[string]any{"pattern": "TODO", "path": "docs", "output_mode": "content"},
			want: "docs/readme.md:2:TODO: docs"},
		{name: "path file",
			in:   map[string]any{"pattern": "func", "path": "$/b.go", "output_mode": "count"},
			want: "b.go:2\n\nFound 2 total occurrences across 1 file."},
		{name: "ignored file named explicitly",
			in:   map[string]any{"pattern": "Alpha", "path": "app.log"},
			want: "Found 1 file\napp.log"},
		{name: "multiline",
			in:   map[string]any{"pattern": `Beta\(\) \{\}.func`, "multiline": true, "output_mode": "content"},
			want: "b.go:3:func Beta() {}\nb.go:4:func beta2() {}"},
		{name: "head limit",
			in:   map[string]any{"pattern": "a", "head_limit": 2},
			want: "Found 2 files limit: 2\n.config/settings.json\ndocs/readme.md"},
		{name: "offset to the end",
			in:   map[string]any{"pattern": "a", "head_limit": 2, "offset": 3},
			want: "Found 1 file offset: 3\na.go"},
		{name: "content offset",
			in:   map[string]any{"pattern": "a", "output_mode": "content", "head_limit": 1, "offset": 1},
			want: "a.go:1:package a\n\n[Showing results with pagination = limit: 1, offset: 1]"},
		{name: "offset past the end",
			in:   map[string]any{"pattern": "func", "output_mode": "content", "offset": 3},
			want: "No entries at this offset\n\n[Showing results with pagination = offset: 3]"},
		{name: "count keeps the total when paged",
			in:   map[string]any{"pattern": "a", "output_mode": "count", "head_limit": 1},
			want: ".config/settings.json:1\n\nFound 8 total occurrences across 4 files. with pagination = limit: 1"},
	}
	for name, opts := range backends(t) {
		env, ws := small(t)
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				in := map[string]any{}
				for k, v := range tt.in {
					if s, ok := v.(string); ok {
						v = strings.ReplaceAll(s, "$", ws)
						if k == "pattern" {
							v = s
						}
					}
					in[k] = v
				}
				res, err := tooltest.Run(t, New(opts), env, in)
				if err != nil {
					t.Fatal(err)
				}
				want := strings.ReplaceAll(tt.want, "$", ws)
				if got := tooltest.Text(res); got != want {
					t.Errorf("got\n%s\nwant\n%s", got, want)
				}
				if res.IsError {
					t.Error("IsError set")
				}
			})
		}
	}
}

func TestGrepInputErrors(t *testing.T) {
	env, ws := small(t)
	tests := []struct {
		name string
		in   map[string]any
		want string
	}{
		{name: "NUL in pattern", in: map[string]any{"pattern": "a\x00"}, want: "pattern contains a NUL byte"},
		{name: "NUL in path", in: map[string]any{"pattern": "a", "path": "x\x00y"}, want: "path contains a NUL byte"},
		{name: "NUL in glob", in: map[string]any{"pattern": "a", "glob": "*\x00"}, want: "glob contains a NUL byte"},
		{name: "unknown type", in: map[string]any{"pattern": "a", "type": "cobol"}, want: "unrecognized file type: cobol"},
		{name: "type flag", in: map[string]any{"pattern": "a", "type": "--pre=sh"}, want: "unrecognized file type"},
		{name: "bad glob", in: map[string]any{"pattern": "a", "glob": "{a,b"}, want: "error parsing glob"},
		{name: "bad mode", in: map[string]any{"pattern": "a", "output_mode": "lines"}, want: "output_mode must be"},
		{name: "fractional number", in: map[string]any{"pattern": "a", "head_limit": 2.5}, want: "head_limit must be a whole number"},
		{name: "negative", in: map[string]any{"pattern": "a", "-A": -1}, want: "-A must be a whole number"},
		{name: "context fraction in content mode", in: map[string]any{"pattern": "a", "output_mode": "content", "-A": 1.5}, want: "rg: error parsing flag -A: value is not a valid number: invalid digit found in string"},
		{name: "context alias fraction", in: map[string]any{"pattern": "a", "output_mode": "content", "context": 0.5}, want: "rg: error parsing flag -C: value is not a valid number"},
		{name: "context conflict", in: map[string]any{"pattern": "a", "-C": 1, "context": 2}, want: "disagree"},
		{name: "missing path", in: map[string]any{"pattern": "a", "path": "nope"}, want: "Path does not exist: nope"},
		{name: "newline outside multiline", in: map[string]any{"pattern": "a\nb"}, want: "multiline: true"},
		{name: "bad regex", in: map[string]any{"pattern": "a(b"}, want: "regex parse error"},
		{name: "control character in path", in: map[string]any{"pattern": "a", "path": "x\x01"}, want: "control characters"},
	}
	for name, opts := range backends(t) {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				_, err := tooltest.Run(t, New(opts), env, tt.in)
				var te *tool.Error
				if !asToolError(err, &te) || (te.Kind != tool.KindInvalidInput && te.Kind != tool.KindNotFound) {
					t.Fatalf("err = %v, want invalid input", err)
				}
				if !strings.Contains(te.Msg, tt.want) {
					t.Errorf("message %q lacks %q", te.Msg, tt.want)
				}
				// Claude Code gives these without <tool_use_error>.
				if bare := strings.HasPrefix(te.Msg, rejectedPrefix) || te.Kind == tool.KindNotFound; bare != te.Bare {
					t.Errorf("bare = %v, want %v", te.Bare, bare)
				}
			})
		}
	}
	_ = ws
}

// A context fraction outside content mode is not passed on, so the search
// runs.
func TestGrepContextFractionIgnoredOutsideContent(t *testing.T) {
	env, _ := small(t)
	for name, opts := range backends(t) {
		t.Run(name, func(t *testing.T) {
			if _, err := tooltest.Run(t, New(opts), env, map[string]any{"pattern": "a", "-B": 1.5}); err != nil {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

// TestGrepFlagInjection: patterns, globs and paths that look like rg flags
// are searched for, never obeyed. --pre would run a program per file.
func TestGrepFlagInjection(t *testing.T) {
	for name, opts := range backends(t) {
		t.Run(name, func(t *testing.T) {
			env, _, _ := tooltest.Env(t)
			ws := env.Cwd
			f := &fileSet{t: t, dir: ws}
			marker := filepath.Join(ws, "ran")
			f.text("pre.sh", "#!/bin/sh\ntouch "+marker+"\ncat \"$1\"\n")
			os.Chmod(filepath.Join(ws, "pre.sh"), 0o755)
			f.text("flags.txt", "use --pre=./pre.sh here\n-e and --files\n")
			f.text("--pre=./pre.sh", "a file named like a flag\n")
			for _, in := range []map[string]any{
				{"pattern": "--pre=./pre.sh", "output_mode": "content"},
				{"pattern": "-e", "output_mode": "content"},
				{"pattern": "--files", "output_mode": "content"},
				{"pattern": "--", "output_mode": "content"},
				{"pattern": "a", "glob": "--pre=./pre.sh"},
				{"pattern": "file", "path": "--pre=./pre.sh", "output_mode": "content"},
				{"pattern": "-z"},
			} {
				res, err := tooltest.Run(t, New(opts), env, in)
				if err != nil {
					t.Fatalf("%v: %v", in, err)
				}
				got := tooltest.Text(res)
				switch in["pattern"] {
				case "--pre=./pre.sh":
					if want := "flags.txt:1:use --pre=./pre.sh here"; got != want {
						t.Errorf("got %q, want %q", got, want)
					}
				case "-e", "--files":
					if want := "flags.txt:2:-e and --files"; got != want {
						t.Errorf("got %q, want %q", got, want)
					}
				case "--":
					if !strings.Contains(got, "flags.txt:1:use --pre") {
						t.Errorf("-- not searched for: %q", got)
					}
				case "file":
					if want := "1:a file named like a flag"; got != want {
						t.Errorf("got %q, want %q", got, want)
					}
				}
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("a --pre program ran")
			}
		})
	}
}

func TestGrepCancelled(t *testing.T) {
	env, _ := small(t)
	for name, opts := range backends(t) {
		inv, err := New(opts).Parse([]byte(`{"pattern":"a"}`))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := inv.Run(ctx, env); err != context.Canceled {
			t.Errorf("%s: err = %v, want context.Canceled", name, err)
		}
	}
}

func TestGrepActivityAndTraits(t *testing.T) {
	inv, err := New(Options{PureGo: true}).Parse([]byte(`{"pattern":"TODO","path":"src"}`))
	if err != nil {
		t.Fatal(err)
	}
	if a := inv.Activity(); a.Summary != "Grep TODO in src" || !a.Search {
		t.Errorf("activity = %+v", a)
	}
	if tr := inv.Traits(); !tr.ReadOnly || !tr.ConcurrencySafe || tr.Destructive {
		t.Errorf("traits = %+v", tr)
	}
	inv, _ = New(Options{PureGo: true}).Parse([]byte(`{"pattern":"x"}`))
	if a := inv.Activity(); a.Summary != "Grep x" {
		t.Errorf("activity = %+v", a)
	}
}

func TestGrepBackendChoice(t *testing.T) {
	if g := New(Options{PureGo: true}).(*grepTool); g.rg != nil {
		t.Error("PureGo still uses rg")
	}
	if g := New(Options{RgPath: "/nonexistent/rg"}).(*grepTool); g.rg != nil {
		t.Error("a missing rg was accepted")
	}
	if g := New(Options{RgPath: "/bin/true"}).(*grepTool); g.rg != nil {
		t.Error("a program that is not ripgrep was accepted")
	}
}

func TestGrepLongOutputIsPaged(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	f := &fileSet{t: t, dir: env.Cwd}
	line := strings.Repeat("needle ", 60) + "\n"
	f.text("big.txt", strings.Repeat(line, 3000))
	for name, opts := range backends(t) {
		res, err := tooltest.Run(t, New(opts), env, map[string]any{"pattern": "needle", "output_mode": "content", "head_limit": 0})
		if err != nil {
			t.Fatal(err)
		}
		text := tooltest.Text(res)
		if len(text) > maxResultBytes+200 {
			t.Errorf("%s: %d bytes, over the cap", name, len(text))
		}
		if !strings.Contains(text, "[Showing results with pagination = limit: ") || res.Meta["truncated"] != true {
			t.Errorf("%s: no truncation note: ...%s", name, text[len(text)-200:])
		}
		next, _ := res.Meta["next_offset"].(int)
		if next < 100 || next >= 3000 {
			t.Errorf("%s: next_offset = %v", name, res.Meta["next_offset"])
		}
	}
}

// A binary file named as the path is searched with NUL as a line break;
// a match shows as ripgrep's note, not as lines.
func TestGrepNamedBinaryFile(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	f := &fileSet{t: t, dir: env.Cwd}
	f.text("bin.dat", "hit\x00\x00\x00\x00hit\n")
	for name, opts := range backends(t) {
		for _, tt := range []struct {
			in   map[string]any
			want string
		}{
			{map[string]any{"pattern": "hit", "path": "bin.dat", "output_mode": "content"}, `binary file matches (found "\0" byte around offset 3)`},
			{map[string]any{"pattern": "hit", "path": "bin.dat"}, "Found 1 file\nbin.dat"},
			{map[string]any{"pattern": "zzz", "path": "bin.dat", "output_mode": "content"}, "No matches found"},
		} {
			res, err := tooltest.Run(t, New(opts), env, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := tooltest.Text(res); got != tt.want {
				t.Errorf("%s %v: got %q, want %q", name, tt.in, got, tt.want)
			}
		}
	}
}
