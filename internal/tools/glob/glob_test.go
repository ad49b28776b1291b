package glob

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
)

// base is the modification time of the oldest test file; put makes each
// later file one minute newer, so that the expected order is the order of
// creation.
var base = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

type corpus struct {
	t   testing.TB
	dir string
	n   int
}

func (c *corpus) put(name string) string {
	c.t.Helper()
	p := filepath.Join(c.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
		c.t.Fatal(err)
	}
	c.n++
	mt := base.Add(time.Duration(c.n) * time.Minute)
	if err := os.Chtimes(p, mt, mt); err != nil {
		c.t.Fatal(err)
	}
	return p
}

func symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// tree builds the shared test workspace. Files are listed oldest first.
func tree(t *testing.T) (*tool.Env, string) {
	env, _, _ := tooltest.Env(t)
	c := &corpus{t: t, dir: env.Cwd}
	for _, f := range []string{
		"main.go",
		"README.md",
		"go.mod",
		"cmd/tool/main.go",
		"cmd/tool/main_test.go",
		"internal/a/a.go",
		"internal/a/a_test.go",
		"internal/b/deep/er/b.go",
		"web/src/app.ts",
		"web/src/lib/util.ts",
		"web/package.json",
		"config.yaml",
		".env",
		".github/workflows/ci.yaml",
		".git/HEAD",
		".git/objects/ab/cdef",
		".hg/store/x.go",
		"node_modules/pkg/index.ts",
		"odd name [1].txt",
		"star*.txt",
	} {
		c.put(f)
	}
	if err := os.MkdirAll(filepath.Join(env.Cwd, "emptydir.go"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Inside links: listed by neither name nor target walk.
	symlink(t, "main.go", filepath.Join(env.Cwd, "link.go"))
	symlink(t, "internal", filepath.Join(env.Cwd, "linkdir"))
	return env, env.Cwd
}

func run(t *testing.T, env *tool.Env, in map[string]any) (string, *tool.Result, error) {
	t.Helper()
	res, err := tooltest.Run(t, New(), env, in)
	if err != nil {
		return "", nil, err
	}
	return tooltest.Text(res), res, nil
}

func TestGlob(t *testing.T) {
	env, ws := tree(t)
	if err := os.MkdirAll(filepath.Join(ws, "cmd", "tool", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   map[string]any
		cwd  string // relative to ws
		want string // paths relative to the cwd (ABS: the workspace), oldest first
	}{
		{name: "recursive", in: map[string]any{"pattern": "**/*.go"},
			want: "main.go\ncmd/tool/main.go\ncmd/tool/main_test.go\ninternal/a/a.go\ninternal/a/a_test.go\ninternal/b/deep/er/b.go"},
		{name: "no slash matches at any depth", in: map[string]any{"pattern": "*.go"},
			want: "main.go\ncmd/tool/main.go\ncmd/tool/main_test.go\ninternal/a/a.go\ninternal/a/a_test.go\ninternal/b/deep/er/b.go"},
		{name: "file name at any depth", in: map[string]any{"pattern": "a_test.go"}, want: "internal/a/a_test.go"},
		{name: "no slash names files, not directories", in: map[string]any{"pattern": "tool"}, want: "No files found"},
		{name: "a slash anchors", in: map[string]any{"pattern": "internal/*.go"}, want: "No files found"},
		{name: "literal base dir", in: map[string]any{"pattern": "internal/**/*_test.go"}, want: "internal/a/a_test.go"},
		{name: "one level wildcard dir", in: map[string]any{"pattern": "cmd/*/main.go"}, want: "cmd/tool/main.go"},
		{name: "star dir then deep", in: map[string]any{"pattern": "*/b/**/*.go"}, want: "internal/b/deep/er/b.go"},
		{name: "braces", in: map[string]any{"pattern": "**/*.{json,yaml}"},
			want: "web/package.json\nconfig.yaml\n.github/workflows/ci.yaml"},
		{name: "hidden files included", in: map[string]any{"pattern": ".*"}, want: ".env"},
		{name: "no literal", in: map[string]any{"pattern": "go.mod"}, want: "go.mod"},
		{name: "path argument", in: map[string]any{"pattern": "**/*.ts", "path": "web"},
			want: "web/src/app.ts\nweb/src/lib/util.ts"},
		{name: "absolute path argument", in: map[string]any{"pattern": "*.ts", "path": "ABS/web/src"}, want: "web/src/app.ts\nweb/src/lib/util.ts"},
		{name: "absolute pattern", in: map[string]any{"pattern": "ABS/internal/a/*.go"},
			want: "internal/a/a.go\ninternal/a/a_test.go"},
		{name: "absolute pattern: the rest matches at any depth", in: map[string]any{"pattern": "ABS/internal/*.go"},
			want: "internal/a/a.go\ninternal/a/a_test.go\ninternal/b/deep/er/b.go"},
		{name: "absolute pattern ignores path", in: map[string]any{"pattern": "ABS/*.md", "path": "web"}, want: "README.md"},
		{name: "relative to cwd", cwd: "cmd", in: map[string]any{"pattern": "**/main*.go"},
			want: "tool/main.go\ntool/main_test.go"},
		{name: "outside the cwd stays absolute", cwd: "cmd/tool", in: map[string]any{"pattern": "../../internal/a/a.go"}, want: "ABS/internal/a/a.go"},
		{name: "leading dot slash", in: map[string]any{"pattern": "./internal/a/*.go"},
			want: "internal/a/a.go\ninternal/a/a_test.go"},
		{name: "escaped meta", in: map[string]any{"pattern": `odd name \[1\].txt`}, want: "odd name [1].txt"},
		{name: "escaped star", in: map[string]any{"pattern": `star\*.txt`}, want: "star*.txt"},
		{name: "vcs dirs skipped", in: map[string]any{"pattern": "**/HEAD"}, want: "No files found"},
		{name: "vcs dir named", in: map[string]any{"pattern": "**/.git/**"}, want: ".git/HEAD\n.git/objects/ab/cdef"},
		{name: "vcs dir as base", in: map[string]any{"pattern": ".git/*"}, want: ".git/HEAD"},
		{name: "other vcs skipped", in: map[string]any{"pattern": "**/x.go"}, want: "No files found"},
		{name: "node_modules not ignored", in: map[string]any{"pattern": "**/index.ts"}, want: "node_modules/pkg/index.ts"},
		{name: "directories not listed", in: map[string]any{"pattern": "emptydir*"}, want: "No files found"},
		{name: "symlinks not listed or followed", in: map[string]any{"pattern": "link*/**"}, want: "No files found"},
		{name: "missing base dir", in: map[string]any{"pattern": "nope/**/*.go"}, want: "No files found"},
		{name: "base is a file", in: map[string]any{"pattern": "main.go/*"}, want: "No files found"},
		{name: "no match", in: map[string]any{"pattern": "**/*.rs"}, want: "No files found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := *env
			e.Cwd = filepath.Join(ws, tt.cwd)
			in := map[string]any{}
			for k, v := range tt.in {
				in[k] = strings.ReplaceAll(v.(string), "ABS", ws)
			}
			got, res, err := run(t, &e, in)
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.ReplaceAll(tt.want, "ABS", ws); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
			if res.IsError {
				t.Error("IsError set")
			}
		})
	}
}

func TestGlobTruncates(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	c := &corpus{t: t, dir: env.Cwd}
	for i := range 130 {
		c.put(fmt.Sprintf("d%d/f%03d.txt", i%7, i))
	}
	got, res, err := run(t, env, map[string]any{"pattern": "**/*.txt"})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(got, "\n")
	if len(lines) != 101 {
		t.Fatalf("got %d lines, want 100 paths and a note", len(lines))
	}
	// Oldest first, the oldest 100 kept: f000 up to f099, as Claude Code.
	if want := "d0/f000.txt"; lines[0] != want {
		t.Errorf("first = %s, want %s", lines[0], want)
	}
	if want := "d1/f099.txt"; lines[99] != want {
		t.Errorf("last = %s, want %s", lines[99], want)
	}
	wantNote := "(Showing 100 of 130 matching files; 30 more are not listed. Narrow the pattern or path to see the rest.)"
	if lines[100] != wantNote {
		t.Errorf("note = %q", lines[100])
	}
	if res.Meta["truncated"] != true || res.Meta["num_files"] != 100 || res.Meta["total_files"] != 130 {
		t.Errorf("meta = %v", res.Meta)
	}
}

// Files with the same modification time are listed in the order of a
// depth-first walk that reads each directory as the file system lists it
// (as Claude Code's stable sort of its walk does), whatever the names.
func TestGlobTiesFollowTheWalk(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	for _, n := range []string{"c.txt", "a.txt", "b/a.txt", "b/z.txt", "m.txt"} {
		p := filepath.Join(env.Cwd, n)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, base, base); err != nil {
			t.Fatal(err)
		}
	}
	var walk func(dir, rel string) []string
	walk = func(dir, rel string) []string {
		f, err := os.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		entries, err := f.ReadDir(-1) // the file system's order, unsorted
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			if e.IsDir() {
				out = append(out, walk(filepath.Join(dir, e.Name()), rel+e.Name()+"/")...)
			} else {
				out = append(out, rel+e.Name())
			}
		}
		return out
	}
	want := strings.Join(walk(env.Cwd, ""), "\n")
	for range 3 { // the walk is parallel; its order must not be
		got, _, err := run(t, env, map[string]any{"pattern": "**/*.txt"})
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("got\n%s\nwant\n%s", got, want)
		}
	}
}

func TestGlobInputErrors(t *testing.T) {
	env, ws := tree(t)
	tests := []struct {
		name string
		in   map[string]any
		want string
		kind tool.ErrorKind // zero: invalid input
	}{
		{name: "unclosed class", in: map[string]any{"pattern": "[a-"}, want: `Invalid glob pattern "[a-"`},
		{name: "unclosed brace", in: map[string]any{"pattern": "{a,b"}, want: `Invalid glob pattern "{a,b"`},
		{name: "empty pattern", in: map[string]any{"pattern": ""}, want: "pattern is empty"},
		{name: "NUL in pattern", in: map[string]any{"pattern": "a\x00b"}, want: "NUL"},
		{name: "NUL in path", in: map[string]any{"pattern": "*", "path": "a\x00b"}, want: "NUL"},
		{name: "missing path", in: map[string]any{"pattern": "*", "path": "nope"},
			want: "Directory does not exist: " + filepath.Join(ws, "nope") + ". Note: your current working directory is " + ws + ".", kind: tool.KindNotFound},
		{name: "path is a file", in: map[string]any{"pattern": "*", "path": "main.go"}, want: "Path is not a directory: " + filepath.Join(ws, "main.go"), kind: tool.KindWrongType},
		{name: "control character in path", in: map[string]any{"pattern": "*", "path": "a\x01b"}, want: "control characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := run(t, env, tt.in)
			var te *tool.Error
			kind := tt.kind
			if kind == tool.KindNone {
				kind = tool.KindInvalidInput
			}
			if !errors.As(err, &te) || te.Kind != kind {
				t.Fatalf("err = %v, want %v", err, kind)
			}
			if !strings.Contains(te.Msg, tt.want) {
				t.Errorf("message %q does not contain %q", te.Msg, tt.want)
			}
		})
	}
}

func TestGlobActivityAndTraits(t *testing.T) {
	inv, err := New().Parse([]byte(`{"pattern":"**/*.go","path":"src"}`))
	if err != nil {
		t.Fatal(err)
	}
	if a := inv.Activity(); a.Summary != "Glob **/*.go in src" || !a.Search {
		t.Errorf("activity = %+v", a)
	}
	if tr := inv.Traits(); !tr.ReadOnly || !tr.ConcurrencySafe || tr.Destructive {
		t.Errorf("traits = %+v", tr)
	}
	inv, _ = New().Parse([]byte(`{"pattern":"*.md"}`))
	if a := inv.Activity(); a.Summary != "Glob *.md" {
		t.Errorf("activity = %+v", a)
	}
}
