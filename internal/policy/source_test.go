package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/internal/shell"
)

func writeSettings(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSourceNames(t *testing.T) {
	// https://code.claude.com/docs/en/settings (Claude Code's source names)
	want := []string{"policySettings", "flagSettings", "projectSettings", "userSettings", "localSettings", "cliArg", "session"}
	for i, w := range want {
		if got := Source(i).String(); got != w {
			t.Errorf("Source(%d) = %q, want %q", i, got, w)
		}
		if s, err := ParseSource(w); err != nil || s != Source(i) {
			t.Errorf("ParseSource(%q) = %v, %v", w, s, err)
		}
	}
	if _, err := ParseSource("nope"); err == nil {
		t.Error("ParseSource accepted an unknown name")
	}
	if got := Source(42).String(); got != "Source(42)" {
		t.Errorf("got %q", got)
	}
}

func TestLoadSources(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeSettings(t, filepath.Join(ws, ".claude/settings.json"), `{"permissions":{"allow":["Bash(make *)"],"deny":["Read(/secrets/**)"]}}`)
	writeSettings(t, filepath.Join(ws, ".claude/settings.local.json"), `{"permissions":{"ask":["Bash(git push *)"]}}`)
	policyFile, err := filepath.Abs("testdata/settings/policy.json")
	if err != nil {
		t.Fatal(err)
	}
	opts := LoadOptions{
		PolicyFile:         policyFile,
		Flag:               Settings{Deny: []string{"WebSearch"}},
		Workspace:          ws,
		Cwd:                filepath.Join(ws, "sub"),
		ReadWorkspaceFiles: true,
		User:               Settings{Deny: []string{"Read(/keys/**)"}},
		Home:               "/home/u",
		CLIArg:             Settings{Allow: []string{"Read"}},
		Session:            []string{"Bash(npm test)"},
		SessionAsk:         []string{"Bash(npm publish *)"},
	}
	srcs, err := LoadSources(opts)
	if err != nil {
		t.Fatal(err)
	}
	// https://code.claude.com/docs/en/permissions "Read and Edit" (where /path anchors, per source)
	want := []struct {
		src  Source
		root string
	}{
		{SourcePolicy, filepath.Dir(policyFile)}, // --settings file: its directory
		{SourceFlag, filepath.Join(ws, "sub")},   // command line: the original cwd
		{SourceProject, ws},                      // project settings: the project root
		{SourceUser, "/home/u/.claude"},          // user settings: ~/.claude
		{SourceLocal, filepath.Join(ws, "sub")},  // local settings: the original cwd
		{SourceCLIArg, filepath.Join(ws, "sub")},
		{SourceSession, filepath.Join(ws, "sub")},
	}
	if len(srcs) != len(want) {
		t.Fatalf("got %d sources: %+v", len(srcs), srcs)
	}
	for i, w := range want {
		if srcs[i].Source != w.src || srcs[i].Root != w.root || srcs[i].Origin == "" {
			t.Errorf("source %d = %+v, want %v rooted at %q", i, srcs[i], w.src, w.root)
		}
	}
	rs, err := Compile(srcs)
	if err != nil {
		t.Fatal(err)
	}
	if r := rs.Match(Ask, Query{Tool: "Bash", Command: &shell.Analyze("npm publish x").Commands[0]}); r == nil || r.Source != SourceSession {
		t.Errorf("session ask = %v", r)
	}
	// https://code.claude.com/docs/en/permissions "Read and Edit" (a project /path rule anchors at the project root)
	if r := rs.Match(Deny, Query{Tool: "Read", Path: filepath.Join(ws, "secrets/k"), Cwd: opts.Cwd}); r == nil || r.Source != SourceProject {
		t.Errorf("project deny = %v", r)
	}
	// https://code.claude.com/docs/en/permissions "Read and Edit" (a policy /path rule anchors at its file's directory)
	if r := rs.Match(Deny, Query{Tool: "Read", Path: filepath.Join(filepath.Dir(policyFile), "secrets/x"), Cwd: opts.Cwd}); r == nil || r.Source != SourcePolicy {
		t.Errorf("policy deny = %v", r)
	}
	// https://code.claude.com/docs/en/permissions "Read and Edit" (a user /path rule anchors at ~/.claude)
	if r := rs.Match(Deny, Query{Tool: "Read", Path: "/home/u/.claude/keys/a", Cwd: opts.Cwd}); r == nil || r.Source != SourceUser {
		t.Errorf("user deny = %v", r)
	}
}

func TestLoadSourcesWorkspaceOff(t *testing.T) {
	// LoadOptions.ReadWorkspaceFiles: off, the workspace's files are not read
	// (security.md §1 #13, #14), even when broken.
	ws := t.TempDir()
	writeSettings(t, filepath.Join(ws, ".claude/settings.json"), `{"permissions":{"allow":["Bash"]}} garbage`)
	srcs, err := LoadSources(LoadOptions{Workspace: ws})
	if err != nil || len(srcs) != 0 {
		t.Errorf("LoadSources = %+v, %v; want nothing", srcs, err)
	}
}

func TestLoadSourcesErrors(t *testing.T) {
	outside := t.TempDir()
	writeSettings(t, filepath.Join(outside, "settings.json"), `{"permissions":{"allow":["Bash"]}}`)

	escape := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(escape, ".claude")); err != nil {
		t.Fatal(err)
	}
	broken := t.TempDir()
	writeSettings(t, filepath.Join(broken, ".claude/settings.local.json"), `{"permissions":{"allow":["Bash"]`)
	missing := t.TempDir()

	for _, tc := range []struct {
		name    string
		opts    LoadOptions
		wantErr string
	}{
		// security.md §1 #13 (a symlink must not lead the loader out of the workspace)
		{"symlink escape", LoadOptions{Workspace: escape, ReadWorkspaceFiles: true}, "escapes"},
		// LoadSources doc: a file that exists but cannot be parsed is an error
		{"invalid local", LoadOptions{Workspace: broken, ReadWorkspaceFiles: true}, "settings.local.json"},
		// LoadOptions.PolicyFile doc: the operator's file must exist
		{"missing policy", LoadOptions{PolicyFile: filepath.Join(missing, "nope.json"), Workspace: missing}, "no such file"},
		// LoadOptions doc
		{"relative workspace", LoadOptions{Workspace: "rel", ReadWorkspaceFiles: true}, "not absolute"},
		// https://code.claude.com/docs/en/settings (defaultMode values)
		{"bad user settings", LoadOptions{Workspace: missing, User: Settings{DefaultMode: "x"}}, "userSettings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadSources(tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
	// Missing workspace files are fine.
	if srcs, err := LoadSources(LoadOptions{Workspace: missing, ReadWorkspaceFiles: true}); err != nil || len(srcs) != 0 {
		t.Errorf("missing files: %+v, %v", srcs, err)
	}
}

func TestLoadSourcesBadRuleFailsCompile(t *testing.T) {
	// ruleset.go Compile: all or nothing, the error names the file.
	p, err := filepath.Abs("testdata/settings/bad_rule.json")
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := LoadSources(LoadOptions{PolicyFile: p, Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Compile(srcs)
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "permissions.deny[0]") {
		t.Errorf("err = %v", err)
	}
}

func TestUserSlashRuleWithoutRoot(t *testing.T) {
	// LoadOptions.UserRoot doc: no anchor, no /path rules.
	srcs, err := LoadSources(LoadOptions{Workspace: t.TempDir(), User: Settings{Deny: []string{"Read(/x/**)"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Compile(srcs); err == nil || !strings.Contains(err.Error(), "no anchor directory") {
		t.Errorf("err = %v", err)
	}
}
