package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A settings file written for Claude Code, with every hook type and the
// keys teams set, starts toold: the command hook runs around a call, the
// hooks toold cannot run are skipped with a warning naming each, and the
// keys toold does not use are listed on one line at start.
func TestTeamSettingsFile(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "pre-ran")
	settings := `{
	  "$schema": "https://json.schemastore.org/claude-code-settings.json",
	  "model": "claude-sonnet-4-5",
	  "env": {"NODE_ENV": "development"},
	  "sandbox": {"enabled": true, "autoAllowBashIfSandboxed": true},
	  "statusLine": {"type": "command", "command": "~/.claude/statusline.sh"},
	  "enabledPlugins": {"formatter@team-tools": true},
	  "includeCoAuthoredBy": false,
	  "permissions": {"defaultMode": "acceptEdits", "additionalDirectories": ["../docs"], "deny": ["Bash(curl *)"]},
	  "hooks": {
	    "PreToolUse": [{"matcher": "Bash", "hooks": [
	      {"type": "command", "command": "cat > /dev/null; echo ran >> ` + marker + `"},
	      {"type": "http", "url": "https://hooks.example.com/pre"},
	      {"type": "prompt", "prompt": "Is this safe? $ARGUMENTS"},
	      {"type": "agent", "prompt": "Check the command"},
	      {"type": "mcp_tool", "server": "policy", "tool": "check"}]}],
	    "Stop": [{"hooks": [{"type": "prompt", "prompt": "Done?"}]}],
	    "UserPromptSubmit": [{"hooks": [{"type": "agent", "prompt": "Check"}]}]
	  }
	}`
	path := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(path, []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d := startToold(t, "--settings", path)
	sid := createSession(t, ctx, d.addr)
	out, _ := sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "t1", "name": "Bash", "input": {"command": "echo hello-team"}}]}' `+d.addr+` toold.v1.ToolService/Execute 2>&1`)
	mustContain(t, out, "hello-team")
	if data, err := os.ReadFile(marker); err != nil || !strings.Contains(string(data), "ran") {
		t.Fatalf("the command hook did not run: %v %q", err, data)
	}

	logs := d.logs.String()
	if n := strings.Count(logs, "settings keys toold does not use"); n != 1 {
		t.Errorf("%d lines about unused keys, want 1:\n%s", n, logs)
	}
	for _, want := range []string{"model", "env", "sandbox", "statusLine", "enabledPlugins", "includeCoAuthoredBy"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log does not name the key %s", want)
		}
	}
	for _, p := range []string{"hooks.PreToolUse[0].hooks[1]", "hooks.PreToolUse[0].hooks[2]", "hooks.PreToolUse[0].hooks[3]", "hooks.PreToolUse[0].hooks[4]", "hooks.Stop[0].hooks[0]", "hooks.UserPromptSubmit[0].hooks[0]"} {
		if !strings.Contains(logs, p+": skipped") {
			t.Errorf("the log does not name the skipped hook %s", p)
		}
	}
}
