package policy

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func hiddenEngine(t *testing.T) *Engine {
	t.Helper()
	e, err := NewEngine(Options{Home: "/home/agent"})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func hiddenReq(id, ws string, rules SessionRules) Request {
	return Request{SessionID: id, Tool: "Grep", Mode: "default", Cwd: ws, Workspace: ws, Dirs: []string{ws}, Rules: rules}
}

// https://code.claude.com/docs/en/permissions "Read and Edit" (a Read deny
// rule also hides the path from Grep and Glob results)
func TestHiddenFunc(t *testing.T) {
	e := hiddenEngine(t)
	hidden := e.HiddenFunc(hiddenReq("s1", "/ws", SessionRules{CLIArg: Settings{
		Deny: []string{"Read(./secrets/**)", "Read(.env)", "Bash(rm *)"},
	}}))
	if hidden == nil {
		t.Fatal("HiddenFunc = nil with Read deny rules")
	}
	for p, want := range map[string]bool{
		"/ws/secrets":          true,
		"/ws/secrets/x":        true,
		"/ws/secrets/deep/y":   true,
		"/ws/a/.env":           true,
		"/ws/.env":             true,
		"/ws/src/a.go":         false,
		"/ws/src":              false,
		"/ws":                  false,
		"/ws/.envrc":           false,
		"/ws/secretsfile":      false,
		"/ws/a/.env.example":   false,
		"/elsewhere/README.md": false,
	} {
		if got := hidden(p); got != want {
			t.Errorf("hidden(%s) = %v, want %v", p, got, want)
		}
	}
}

func TestHiddenFuncNil(t *testing.T) {
	e := hiddenEngine(t)
	for name, rules := range map[string]SessionRules{
		"no rules": {},
		// Edit denies never hide from reading tools; a Read allow or ask
		// hides nothing; a bare Read deny removes Grep and Glob instead.
		"others": {CLIArg: Settings{
			Deny:  []string{"Edit(./secrets/**)", "Bash(cat *)", "WebFetch(domain:example.com)", "Read"},
			Ask:   []string{"Read(./private/**)"},
			Allow: []string{"Read(./src/**)"},
		}},
	} {
		if h := e.HiddenFunc(hiddenReq("nil-"+name, "/ws", rules)); h != nil {
			t.Errorf("%s: HiddenFunc != nil", name)
		}
	}
}

func TestHiddenFuncSymlinks(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"secrets", "src", "a"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"secrets/key", "src/a.go", "a/.env"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"innocent":   "secrets",   // a directory link into a hidden directory
		"config.txt": "a/.env",    // a file link to a hidden file
		"code":       "src",       // a link to a visible directory
		"dangling":   "nowhere/x", // resolves to nothing
	} {
		if err := os.Symlink(filepath.Join(ws, target), filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	e := hiddenEngine(t)
	hidden := e.HiddenFunc(hiddenReq("links", ws, SessionRules{CLIArg: Settings{Deny: []string{"Read(./secrets/**)", "Read(.env)"}}}))
	if hidden == nil {
		t.Fatal("HiddenFunc = nil")
	}
	for rel, want := range map[string]bool{
		"innocent":       true,
		"innocent/key":   true,
		"innocent/new":   true, // not there yet: matched by the path it would have
		"config.txt":     true,
		"code/a.go":      false,
		"code":           false,
		"dangling":       false,
		"missing/file":   false,
		"secrets/absent": true,
	} {
		// Twice: the second answer comes from the directory cache.
		for range 2 {
			if got := hidden(filepath.Join(ws, rel)); got != want {
				t.Errorf("hidden(%s) = %v, want %v", rel, got, want)
			}
		}
	}
	// The func is shared by a tool's walkers.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if !hidden(filepath.Join(ws, "innocent/key")) || hidden(filepath.Join(ws, "code/a.go")) {
					t.Error("concurrent answers differ")
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestHiddenFuncMatchesRuleSet(t *testing.T) {
	// The func agrees with RuleSet.Match on the paths it is given.
	e := hiddenEngine(t)
	rules := SessionRules{CLIArg: Settings{Deny: []string{"Read(~/.ssh/**)", "Read(//etc/**)", "Read(*.pem)", "Read(../other/**)"}}}
	req := hiddenReq("agree", "/ws/proj", rules)
	hidden := e.HiddenFunc(req)
	rs, err := e.rulesFor(req)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/home/agent/.ssh/id", "/etc/passwd", "/ws/proj/a/b.pem", "/ws/other/x", "/ws/proj/x", "/home/agent/x"} {
		want := rs.Match(Deny, Query{Tool: "Read", Path: p, Cwd: req.Cwd, Home: "/home/agent"}) != nil
		if got := hidden(p); got != want {
			t.Errorf("hidden(%s) = %v, Match says %v", p, got, want)
		}
	}
}
