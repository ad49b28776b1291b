package grep

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
)

// hiddenWorkspace hides secrets/ and a/.env as a Read deny rule would,
// following symbolic links as the policy engine does. It returns the
// paths the hidden func was asked about.
func hiddenWorkspace(t *testing.T) (*tool.Env, string, func() []string) {
	env, _, _ := tooltest.Env(t)
	ws := env.Cwd
	f := &fileSet{t: t, dir: ws}
	f.text("src/a.go", "package a\n// uses TOKEN\n")
	f.text("a/b.go", "package b\nvar TOKEN = 1\n")
	f.text("secrets/key.txt", "before\nTOKEN=abc123\nTOKEN=def456\nafter\n")
	f.text("secrets/deep/x.txt", "TOKEN deepvalue\n")
	f.text("a/.env", "prefix\nTOKEN=envvalue\nsuffix\n")
	link(t, "secrets", filepath.Join(ws, "innocent"))
	link(t, "a/.env", filepath.Join(ws, "config.txt"))
	covered := func(p string) bool {
		return p == ws+"/secrets" || strings.HasPrefix(p, ws+"/secrets/") || p == ws+"/a/.env"
	}
	var mu sync.Mutex
	var asked []string
	env.Hidden = func(abs string) bool {
		mu.Lock()
		asked = append(asked, abs)
		mu.Unlock()
		if covered(abs) {
			return true
		}
		r, err := filepath.EvalSymlinks(abs)
		return err == nil && covered(r)
	}
	return env, ws, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), asked...)
	}
}

// leaks are the strings that only hidden files hold or name.
var leaks = []string{"secrets", ".env", "innocent", "config.txt", "abc123", "def456", "deepvalue", "envvalue", "before", "after", "prefix", "suffix"}

func TestGrepHidden(t *testing.T) {
	tests := []struct {
		name string
		in   map[string]any
		want string
	}{
		{name: "files",
			in:   map[string]any{"pattern": "TOKEN"},
			want: "Found 2 files\na/b.go\nsrc/a.go"},
		{name: "content with context",
			in:   map[string]any{"pattern": "TOKEN", "output_mode": "content", "-C": 2},
			want: "a/b.go-1-package b\na/b.go:2:var TOKEN = 1\n--\nsrc/a.go-1-package a\nsrc/a.go:2:// uses TOKEN"},
		{name: "count",
			in:   map[string]any{"pattern": "TOKEN", "output_mode": "count"},
			want: "a/b.go:1\nsrc/a.go:1\n\nFound 2 total occurrences across 2 files."},
		{name: "count paged",
			in:   map[string]any{"pattern": "TOKEN", "output_mode": "count", "head_limit": 1},
			want: "a/b.go:1\n\nFound 2 total occurrences across 2 files. with pagination = limit: 1"},
		{name: "glob selecting hidden files",
			in:   map[string]any{"pattern": "TOKEN", "glob": "*.{txt,env}"},
			want: "No files found"},
		{name: "hidden file only",
			in:   map[string]any{"pattern": "envvalue", "output_mode": "content"},
			want: "No matches found"},
		{name: "hidden directory as path",
			in:   map[string]any{"pattern": "TOKEN", "path": "secrets"},
			want: "No files found"},
		{name: "below a hidden directory",
			in:   map[string]any{"pattern": "TOKEN", "path": "$/secrets/deep", "output_mode": "content"},
			want: "No matches found"},
		{name: "hidden file as path, content",
			in:   map[string]any{"pattern": "TOKEN", "path": "a/.env", "output_mode": "content", "-C": 5},
			want: "No matches found"},
		{name: "hidden file as path, count",
			in:   map[string]any{"pattern": "TOKEN", "path": "secrets/key.txt", "output_mode": "count"},
			want: "No matches found\n\nFound 0 total occurrences across 0 files."},
		{name: "hidden file as path, files",
			in:   map[string]any{"pattern": "TOKEN", "path": "a/.env"},
			want: "No files found"},
		{name: "link to a hidden directory as path",
			in:   map[string]any{"pattern": "TOKEN", "path": "innocent", "output_mode": "content"},
			want: "No matches found"},
		{name: "link to a hidden file as path",
			in:   map[string]any{"pattern": "TOKEN", "path": "config.txt", "output_mode": "content"},
			want: "No matches found"},
		{name: "visible directory",
			in:   map[string]any{"pattern": "TOKEN|prefix", "path": "a", "output_mode": "content"},
			want: "a/b.go:2:var TOKEN = 1"},
	}
	for name, opts := range backends(t) {
		env, ws, _ := hiddenWorkspace(t)
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				in := map[string]any{}
				for k, v := range tt.in {
					if s, ok := v.(string); ok && k != "pattern" {
						v = strings.ReplaceAll(s, "$", ws)
					}
					in[k] = v
				}
				res, err := tooltest.Run(t, New(opts), env, in)
				if err != nil {
					t.Fatal(err)
				}
				got := tooltest.Text(res)
				if want := strings.ReplaceAll(tt.want, "$", ws); got != want {
					t.Errorf("got\n%s\nwant\n%s", got, want)
				}
				for _, l := range leaks {
					if strings.Contains(got, l) {
						t.Errorf("result shows %q:\n%s", l, got)
					}
				}
				if res.Meta["backend"] != name {
					t.Errorf("backend = %v, want %s", res.Meta["backend"], name)
				}
			})
		}
		t.Run(name+"/meta", func(t *testing.T) {
			res, err := tooltest.Run(t, New(opts), env, map[string]any{"pattern": "TOKEN", "output_mode": "count"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Meta["num_files"] != 2 || res.Meta["total_entries"] != 2 {
				t.Errorf("meta = %v", res.Meta)
			}
		})
		t.Run(name+"/without Hidden", func(t *testing.T) {
			// The same search without the func shows what it hides.
			env := *env
			env.Hidden = nil
			res, err := tooltest.Run(t, New(opts), &env, map[string]any{"pattern": "TOKEN", "output_mode": "content"})
			if err != nil {
				t.Fatal(err)
			}
			got := tooltest.Text(res)
			for _, s := range []string{"abc123", "deepvalue", "envvalue"} {
				if !strings.Contains(got, s) {
					t.Errorf("without Hidden, %q missing:\n%s", s, got)
				}
			}
		})
	}
}

func TestGrepHiddenNotRead(t *testing.T) {
	// The built-in engine does not enter a hidden directory.
	env, ws, asked := hiddenWorkspace(t)
	if _, err := tooltest.Run(t, New(Options{PureGo: true}), env, map[string]any{"pattern": "TOKEN"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range asked() {
		if strings.HasPrefix(p, ws+"/secrets/") {
			t.Errorf("asked about %s, below a hidden directory", p)
		}
	}
}
