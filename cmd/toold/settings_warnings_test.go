package main

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/policy"
)

// A team's settings file, written for Claude Code, with every hook type and
// the keys teams commonly set: toold starts with it, runs the hooks it can,
// and says once, at start, what it skips and which keys it ignores.
func TestTeamSettingsFileStartsToold(t *testing.T) {
	path, _ := filepath.Abs("testdata/team-settings.json")
	cfg, err := parseConfig([]string{"--settings", path}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := policy.NewEngine(policy.Options{PolicyFile: cfg.Settings}); err != nil {
		t.Fatalf("the permission settings are refused: %v", err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	r, warnings, err := newHooks(cfg, log, nil)
	if err != nil {
		t.Fatalf("toold would exit 2: %v", err)
	}
	defer r.Close()
	out := logs.String()

	// One line lists the keys toold does not use, the made-up one included.
	var keyLines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "settings keys toold does not use") {
			keyLines = append(keyLines, l)
		}
	}
	if len(keyLines) != 1 {
		t.Fatalf("%d lines about unused keys, want 1:\n%s", len(keyLines), out)
	}
	for _, k := range []string{"model", "env", "sandbox", "statusLine", "enabledPlugins", "extraKnownMarketplaces", "apiKeyHelper", "someFutureSetting"} {
		if !strings.Contains(keyLines[0], k) {
			t.Errorf("the unused keys line does not name %s: %s", k, keyLines[0])
		}
	}
	for _, k := range []string{"permissions", "hooks", "$schema"} {
		if strings.Contains(keyLines[0], k) {
			t.Errorf("the unused keys line names %s, which toold reads: %s", k, keyLines[0])
		}
	}
	// Every skipped hook is named by its place in the file.
	for _, p := range []string{
		"hooks.PreToolUse[0].hooks[1]", "hooks.PreToolUse[0].hooks[2]", "hooks.PreToolUse[0].hooks[3]", "hooks.PreToolUse[0].hooks[4]",
		"hooks.PreToolUse[1].hooks[0]", "hooks.PostToolUse[0].hooks[1]", "hooks.PostToolUse[0].hooks[0].asyncRewake",
		"hooks.Stop[0].hooks[0]", "hooks.UserPromptSubmit[0].hooks[0]",
	} {
		if !strings.Contains(out, p+":") {
			t.Errorf("the log does not name %s:\n%s", p, out)
		}
	}
	if strings.Contains(out, "hooks.PreToolUse[0].hooks[0]:") {
		t.Errorf("the command hook is reported as skipped:\n%s", out)
	}
	// GetServerInfo gets the same lines: the ignored keys first, then one
	// per skipped hook.
	all := strings.Join(warnings, "\n")
	if len(warnings) < 2 || !strings.HasPrefix(warnings[0], "ignored keys: ") || !strings.Contains(warnings[0], "someFutureSetting") {
		t.Errorf("warnings for GetServerInfo = %q", warnings)
	}
	for _, p := range []string{"hooks.PreToolUse[0].hooks[1]", "hooks.Stop[0].hooks[0]"} {
		if !strings.Contains(all, p+":") {
			t.Errorf("the warnings for GetServerInfo do not name %s: %q", p, warnings)
		}
	}
}

// The leniency is for keys toold does not read; in what it reads, the
// file stays strict.
func TestSettingsStayStrictWhereTooldReads(t *testing.T) {
	for _, doc := range []string{
		`{"model": "a", "model": "b"}`,
		`{"permissions": []}`,
		`{"permissions": {"allow": "Bash"}}`,
		`{"permissions": {"alow": ["Bash"]}}`,
		`{"hooks": {"PreToolUse": [{"hooks": [{"type": "comand", "command": "x"}]}]}}`,
		`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "asyncRewake": "yes"}]}]}}`,
		`{"disableAllHooks": "yes"}`,
		`{"Permissions": {}}`,
	} {
		path := filepath.Join(t.TempDir(), "s.json")
		if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		_, perr := policy.NewEngine(policy.Options{PolicyFile: path})
		_, herr := hooks.ParseSettingsFile(path)
		if perr == nil && herr == nil {
			t.Errorf("%s: accepted", doc)
		}
	}
}
