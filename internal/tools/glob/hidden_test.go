package glob

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
)

// hiddenTree is a workspace where secrets/ and a/.env are hidden, as a
// Read deny rule would hide them. It returns the paths the hidden func
// was asked about.
func hiddenTree(t *testing.T) (*tool.Env, string, func() []string) {
	env, _, _ := tooltest.Env(t)
	c := &corpus{t: t, dir: env.Cwd}
	for _, f := range []string{"src/a.go", "secrets/key.go", "secrets/deep/x.go", "a/.env", "a/b.go", "top.env"} {
		c.put(f)
	}
	symlink(t, filepath.Join(env.Cwd, "secrets"), filepath.Join(env.Cwd, "innocent"))
	ws := env.Cwd
	var mu sync.Mutex
	var asked []string
	env.Hidden = func(abs string) bool {
		mu.Lock()
		asked = append(asked, abs)
		mu.Unlock()
		return abs == ws+"/secrets" || strings.HasPrefix(abs, ws+"/secrets/") || abs == ws+"/a/.env"
	}
	return env, ws, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), asked...)
	}
}

func TestGlobHidden(t *testing.T) {
	env, ws, _ := hiddenTree(t)
	tests := []struct {
		in   map[string]any
		want string
		n    int
	}{
		{map[string]any{"pattern": "**/*"}, "src/a.go\na/b.go\ntop.env", 3},
		{map[string]any{"pattern": "**/*.go"}, "src/a.go\na/b.go", 2},
		{map[string]any{"pattern": "**/.env"}, "No files found", 0},
		{map[string]any{"pattern": ".env"}, "No files found", 0},
		{map[string]any{"pattern": "*", "path": "a"}, "a/b.go", 1},
		{map[string]any{"pattern": "*.go"}, "src/a.go\na/b.go", 2},
		{map[string]any{"pattern": "secrets/**"}, "No files found", 0},
		{map[string]any{"pattern": "**/*", "path": "secrets"}, "No files found", 0},
		{map[string]any{"pattern": "**/*", "path": "secrets/deep"}, "No files found", 0},
		{map[string]any{"pattern": "$/secrets/**/*.go"}, "No files found", 0},
		{map[string]any{"pattern": "$/a/.env"}, "No files found", 0},
	}
	for _, tt := range tests {
		in := map[string]any{}
		for k, v := range tt.in {
			in[k] = strings.ReplaceAll(v.(string), "$", ws)
		}
		res, err := tooltest.Run(t, New(), env, in)
		if err != nil {
			t.Fatalf("%v: %v", tt.in, err)
		}
		want := strings.ReplaceAll(tt.want, "$", ws)
		if got := tooltest.Text(res); got != want {
			t.Errorf("%v: got\n%s\nwant\n%s", tt.in, got, want)
		}
		if res.Meta["num_files"] != tt.n {
			t.Errorf("%v: meta = %v", tt.in, res.Meta)
		}
	}
}

func TestGlobHiddenNotEntered(t *testing.T) {
	env, ws, asked := hiddenTree(t)
	if _, err := tooltest.Run(t, New(), env, map[string]any{"pattern": "**/*"}); err != nil {
		t.Fatal(err)
	}
	// A hidden directory is not entered at all.
	sawSecrets := false
	for _, p := range asked() {
		sawSecrets = sawSecrets || p == ws+"/secrets"
		if strings.HasPrefix(p, ws+"/secrets/") {
			t.Errorf("asked about %s, below a hidden directory", p)
		}
	}
	if !sawSecrets {
		t.Errorf("never asked about the secrets directory: %v", asked())
	}
}

func TestGlobHiddenCounts(t *testing.T) {
	env, ws, _ := hiddenTree(t)
	c := &corpus{t: t, dir: ws, n: 100}
	for i := range 120 {
		c.put(fmt.Sprintf("secrets/many/f%03d.txt", i))
	}
	for i := range 105 {
		c.put(fmt.Sprintf("pub/f%03d.txt", i))
	}
	res, err := tooltest.Run(t, New(), env, map[string]any{"pattern": "**/*.txt"})
	if err != nil {
		t.Fatal(err)
	}
	text := tooltest.Text(res)
	if strings.Contains(text, "secrets") {
		t.Errorf("hidden path listed:\n%s", text)
	}
	if res.Meta["num_files"] != 100 || res.Meta["total_files"] != 105 || res.Meta["truncated"] != true ||
		!strings.Contains(text, "(Showing 100 of 105 matching files; 5 more are not listed.") {
		t.Errorf("meta = %v, text ends %q", res.Meta, text[len(text)-120:])
	}
}

func TestGlobHiddenNil(t *testing.T) {
	env, ws, _ := hiddenTree(t)
	env.Hidden = nil
	res, err := tooltest.Run(t, New(), env, map[string]any{"pattern": "**/*.go"})
	if err != nil {
		t.Fatal(err)
	}
	if got := tooltest.Text(res); !strings.Contains(got, "secrets/deep/x.go") {
		t.Errorf("without Hidden, got\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "innocent")); err != nil {
		t.Fatal(err)
	}
}
