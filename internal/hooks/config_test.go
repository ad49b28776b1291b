package hooks

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseClaudeCodeSettings(t *testing.T) {
	// A settings file as a team has it, permissions and other keys included.
	doc := `{
	  "permissions": {"allow": ["Bash(npm run *)"]},
	  "model": "opus",
	  "hooks": {
	    "PreToolUse": [
	      {"matcher": "Bash", "hooks": [
	        {"type": "command", "if": "Bash(rm *)", "command": "${CLAUDE_PROJECT_DIR}/.claude/hooks/block-rm.sh", "timeout": 30, "statusMessage": "checking rm"}]},
	      {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "lint.sh"}]}
	    ],
	    "PostToolUse": [{"hooks": [{"type": "grpc", "endpoint": "orchestrator:9000", "insecure": true, "headers": {"Authorization": "Bearer x"}}]}],
	    "SessionStart": [{"matcher": "startup|resume", "hooks": [{"type": "command", "command": "git", "args": ["status", "--short"], "shell": "bash"}]}],
	    "Stop": [{"hooks": [{"type": "command", "command": "notify.sh"}]}],
	    "UserPromptSubmit": []
	  }
	}`
	cfg, err := ParseSettings([]byte(doc), "settings.json")
	if err != nil {
		t.Fatal(err)
	}
	pre := cfg.Groups[PreToolUse]
	if len(pre) != 2 || pre[0].Matcher != "Bash" || pre[1].Matcher != "Edit|Write" {
		t.Fatalf("PreToolUse groups %+v", pre)
	}
	h := pre[0].Hooks[0]
	if h.Type != "command" || h.If != "Bash(rm *)" || h.Timeout != 30*time.Second || h.StatusMessage != "checking rm" ||
		h.Path != "hooks.PreToolUse[0].hooks[0]" || h.Origin != "settings.json" {
		t.Errorf("handler %+v", h)
	}
	g := cfg.Groups[PostToolUse][0].Hooks[0]
	if g.Type != "grpc" || g.Endpoint != "orchestrator:9000" || !g.Insecure || g.Headers["authorization"] != "Bearer x" {
		t.Errorf("grpc handler %+v", g)
	}
	if s := cfg.Groups[SessionStart][0].Hooks[0]; s.Command != "git" || strings.Join(s.Args, " ") != "status --short" {
		t.Errorf("exec-form handler %+v", s)
	}
	if len(cfg.Inert) != 1 || cfg.Inert[0] != "Stop" {
		t.Errorf("inert events %v, want [Stop]", cfg.Inert)
	}
}

func TestConfigErrorsNameThePath(t *testing.T) {
	cases := []struct {
		doc, path, reason string
	}{
		{`[]`, "", "must be a JSON object"},
		{`{"hooks": {"PreToolUse": []}, "hooks": {}}`, "", "duplicate key \"hooks\""},
		{`{"Hooks": {}}`, "Hooks", "did you mean \"hooks\""},
		{`{"hooks": []}`, "hooks", "must be an object"},
		{`{"hooks": {"PreToolUs": []}}`, "hooks.PreToolUs", "unknown hook event"},
		{`{"hooks": {"PreToolUse": {}}}`, "hooks.PreToolUse", "must be an array"},
		{`{"hooks": {"PreToolUse": [{"matcher": "Bash"}]}}`, "hooks.PreToolUse[0].hooks", "missing"},
		{`{"hooks": {"PreToolUse": [{"matcher": 3, "hooks": []}]}}`, "hooks.PreToolUse[0].matcher", "must be a string"},
		{`{"hooks": {"PreToolUse": [{"matcher": "Bash(", "hooks": []}]}}`, "hooks.PreToolUse[0].matcher", "not a valid regular expression"},
		{`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hook": []}]}}`, "hooks.PreToolUse[0].hook", "unknown key"},
		{`{"hooks": {"PreToolUse": [{"hooks": [{"command": "x"}]}]}}`, "hooks.PreToolUse[0].hooks[0].type", "missing"},
		{`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command"}]}]}}`, "hooks.PreToolUse[0].hooks[0].command", "missing or empty"},
		{`{"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "x"}, {"type": "command", "command": "y", "timeout": "30"}]}]}}`, "hooks.PostToolUse[0].hooks[1].timeout", "number of seconds"},
		{`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]}}`, "hooks.PreToolUse[0].hooks[0].timeout", "more than 0"},
		{`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "comand": "x"}]}]}}`, "hooks.PreToolUse[0].hooks[0].comand", "unknown key"},
		{`{"hooks": {"PreToolUse": [{"hooks": [{"type": "shell", "command": "x"}]}]}}`, "hooks.PreToolUse[0].hooks[0].type", "unknown hook type"},
		{`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "shell": "zsh"}]}]}}`, "hooks.PreToolUse[0].hooks[0].shell", "not supported"},
		{`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "asyncRewake": 1}]}]}}`, "hooks.PreToolUse[0].hooks[0].asyncRewake", "true or false"},
		{`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "async": "yes"}]}]}}`, "hooks.PreToolUse[0].hooks[0].async", "true or false"},
		{`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "if": "Bash(rm *"}]}]}}`, "hooks.PreToolUse[0].hooks[0].if", "parenthes"},
		{`{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "x", "if": "Bash(rm *)"}]}]}}`, "hooks.SessionStart[0].hooks[0].if", "tool events only"},
		{`{"hooks": {"PreToolUse": [{"hooks": [{"type": "grpc"}]}]}}`, "hooks.PreToolUse[0].hooks[0].endpoint", "missing"},
		{`{"hooks": {"PreToolUse": [{"hooks": [{"type": "grpc", "endpoint": "x:1", "command": "y"}]}]}}`, "hooks.PreToolUse[0].hooks[0].command", "unknown key for a \"grpc\" hook"},
		{`{"hooks": {"PreToolUse": [{"hooks": [{"type": "grpc", "endpoint": "x:1", "insecure": true, "caFile": "/ca.pem"}]}]}}`, "hooks.PreToolUse[0].hooks[0].caFile", "insecure"},
	}
	for _, c := range cases {
		_, err := ParseSettings([]byte(c.doc), "s.json")
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%s: err = %v, want a ConfigError", c.doc, err)
			continue
		}
		if ce.Path != c.path || !strings.Contains(ce.Reason, c.reason) || ce.Origin != "s.json" {
			t.Errorf("%s:\n got %s %q\nwant %s ...%q...", c.doc, ce.Path, ce.Reason, c.path, c.reason)
		}
		if c.path != "" && !strings.Contains(err.Error(), "s.json: "+c.path+": ") {
			t.Errorf("message %q does not name the file and path", err)
		}
	}
}

func TestParseSettingsFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(p, []byte(`{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"true"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseSettingsFile(p)
	if err != nil || len(cfg.Groups[PreToolUse]) != 1 || cfg.Groups[PreToolUse][0].Origin != p {
		t.Errorf("cfg %+v err %v", cfg, err)
	}
	if _, err := ParseSettingsFile(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing operator file must be an error")
	}
	if _, err := ParseSettingsFile(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: %v", err)
	}
}

func TestMatcherForms(t *testing.T) {
	cases := []struct {
		matcher string
		yes, no []string
	}{
		{"", []string{"Bash", "mcp__x__y"}, nil},
		{"*", []string{"Bash", "Read"}, nil},
		{"Bash", []string{"Bash"}, []string{"BashOutput", "bash", "MyBash"}},
		{"Edit|Write", []string{"Edit", "Write"}, []string{"NotebookEdit", "Edit|Write"}},
		{"Edit, Write", []string{"Edit", "Write"}, []string{"Read"}},
		{"Edit.*", []string{"Edit", "NotebookEdit"}, []string{"Write"}},
		{"^Edit$", []string{"Edit"}, []string{"NotebookEdit"}},
		{"mcp__memory__.*", []string{"mcp__memory__create", "mcp__memory__"}, []string{"mcp__github__x", "mcp__memory"}},
		{"mcp__memory", nil, []string{"mcp__memory__create"}},
		{"mcp__.*__write.*", []string{"mcp__fs__write_file"}, []string{"mcp__fs__read"}},
		{"startup|resume", []string{"startup", "resume"}, []string{"clear"}},
		{"prompt_input_exit", []string{"prompt_input_exit"}, []string{"other"}},
	}
	for _, c := range cases {
		m, err := compileMatcher(c.matcher)
		if err != nil {
			t.Errorf("%q: %v", c.matcher, err)
			continue
		}
		for _, n := range c.yes {
			if !m.matches(n) {
				t.Errorf("%q does not match %q", c.matcher, n)
			}
		}
		for _, n := range c.no {
			if m.matches(n) {
				t.Errorf("%q matches %q", c.matcher, n)
			}
		}
	}
}

func TestMerge(t *testing.T) {
	a, _ := ParseSettings([]byte(`{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"a"}]}]}}`), "a")
	b, _ := ParseSettings([]byte(`{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"b"}]}],"Stop":[{"hooks":[{"type":"command","command":"s"}]}]}}`), "b")
	m := Merge(a, b)
	if len(m.Groups[PreToolUse]) != 2 || m.Groups[PreToolUse][0].Origin != "a" || len(m.Inert) != 1 {
		t.Errorf("merged %+v", m)
	}
	if len(a.Groups[PreToolUse]) != 1 {
		t.Error("Merge changed its argument")
	}
	b.DisableAllHooks = true
	if m := Merge(a, b); len(m.Groups[PreToolUse]) != 1 {
		t.Error("a disabled extra still merged")
	}
}

func TestSessionEndBudget(t *testing.T) {
	h := func(d time.Duration) task {
		tk := task{handler: &Handler{Timeout: d}, timeout: d}
		if d == 0 {
			tk.timeout = DefaultTimeout
		}
		return tk
	}
	cases := []struct {
		set  []time.Duration
		want time.Duration
	}{
		{[]time.Duration{0, 0}, 1500 * time.Millisecond},
		{[]time.Duration{0, 10 * time.Second}, 10 * time.Second},
		{[]time.Duration{5 * time.Minute}, 60 * time.Second},
	}
	for _, c := range cases {
		var tasks []task
		for _, d := range c.set {
			tasks = append(tasks, h(d))
		}
		shareSessionEndBudget(tasks)
		for i, tk := range tasks {
			want := c.want
			if c.set[i] != 0 && c.set[i] < want {
				want = c.set[i]
			}
			if tk.timeout != want {
				t.Errorf("%v: hook %d gets %s, want %s", c.set, i, tk.timeout, want)
			}
		}
	}
}
