package hooks

import (
	"strings"
	"testing"
)

// Hooks of the types Claude Code runs and toold cannot are left out, on
// any event, each named in Warnings; the hooks toold runs stay, and a
// group left with none is dropped (it would match and run nothing).
func TestUnrunnableHooksAreSkipped(t *testing.T) {
	doc := `{"hooks": {
	  "PreToolUse": [
	    {"matcher": "Bash", "hooks": [
	      {"type": "prompt", "prompt": "safe?"},
	      {"type": "command", "command": "echo ok"},
	      {"type": "http", "url": "https://x"},
	      {"type": "agent", "prompt": "check"},
	      {"type": "mcp_tool", "server": "s", "tool": "t"},
	      {"type": "command", "command": "Write-Host", "shell": "powershell"}]},
	    {"matcher": "Write", "hooks": [{"type": "prompt", "prompt": "only this"}]},
	    {"matcher": "Read", "hooks": []}],
	  "Stop": [{"hooks": [{"type": "prompt", "prompt": "done?"}]}],
	  "Notification": [{"hooks": [{"type": "agent", "prompt": "x"}, {"type": "command", "command": "y"}]}]
	}}`
	cfg, err := ParseSettings([]byte(doc), "team.json")
	if err != nil {
		t.Fatal(err)
	}
	pre := cfg.Groups[PreToolUse]
	if len(pre) != 2 || pre[0].Matcher != "Bash" || pre[1].Matcher != "Read" {
		t.Fatalf("PreToolUse groups %+v, want Bash and the empty Read group", pre)
	}
	if h := pre[0].Hooks; len(h) != 1 || h[0].Type != "command" || h[0].Command != "echo ok" || h[0].Path != "hooks.PreToolUse[0].hooks[1]" {
		t.Fatalf("Bash hooks %+v, want the command hook alone", h)
	}
	if len(cfg.Inert) != 1 || cfg.Inert[0] != Event("Notification") {
		t.Errorf("inert events %v, want Notification only (Stop has nothing left)", cfg.Inert)
	}
	want := []string{
		"hooks.PreToolUse[0].hooks[0]", "hooks.PreToolUse[0].hooks[2]", "hooks.PreToolUse[0].hooks[3]",
		"hooks.PreToolUse[0].hooks[4]", "hooks.PreToolUse[0].hooks[5]", "hooks.PreToolUse[1].hooks[0]",
		"hooks.Stop[0].hooks[0]", "hooks.Notification[0].hooks[0]",
	}
	all := strings.Join(cfg.Warnings, "\n")
	if len(cfg.Warnings) != len(want) {
		t.Errorf("%d warnings, want %d:\n%s", len(cfg.Warnings), len(want), all)
	}
	for _, p := range want {
		if !strings.Contains(all, "team.json: "+p+": skipped") {
			t.Errorf("no warning for %s:\n%s", p, all)
		}
	}
	for _, w := range []string{`"prompt"`, `"http"`, `"agent"`, `"mcp_tool"`, "powershell", "not in force"} {
		if !strings.Contains(all, w) {
			t.Errorf("warnings do not say %s:\n%s", w, all)
		}
	}
	// Merging keeps the warnings of both files.
	if m := Merge(cfg, cfg); len(m.Warnings) != 2*len(want) {
		t.Errorf("merged warnings %d, want %d", len(m.Warnings), 2*len(want))
	}
}
