package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A PreToolUse hook from the operator's settings file blocks rm commands
// through the built binary: exit 2, its stderr in the result, its run on
// the stream. Other calls run.
func TestHooksBlockRmThroughSettings(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not installed")
	}
	dir := t.TempDir()
	hook := filepath.Join(dir, "no-rm.sh")
	os.WriteFile(hook, []byte(`#!/bin/bash
cmd=$(jq -r '.tool_input.command')
if grep -qE '(^|[;&| ])rm( |$)' <<<"$cmd"; then
  echo "Blocked by the team's hook: rm is not allowed ($cmd)" >&2
  exit 2
fi
`), 0o755)
	// Session hooks leave a mark named after the event and the session,
	// written in $CLAUDE_PROJECT_DIR (the workspace) to show it is set.
	mark := filepath.Join(dir, "mark.sh")
	os.WriteFile(mark, []byte(`#!/bin/bash
in=$(cat)
jq -r '(.source // .reason) + " " + .session_id' <<<"$in" > "$CLAUDE_PROJECT_DIR/.hook-$(jq -r .hook_event_name <<<"$in")"
`), 0o755)
	settings := filepath.Join(dir, "settings.json")
	os.WriteFile(settings, []byte(`{"hooks": {
		"PreToolUse": [{"matcher": "Bash|Read", "hooks": [{"type": "command", "command": "`+hook+`", "timeout": 30}]}],
		"SessionStart": [{"hooks": [{"type": "command", "command": "`+mark+`"}]}],
		"SessionEnd": [{"hooks": [{"type": "command", "command": "`+mark+`"}]}]}}`), 0o644)

	d := startToold(t, "--settings", settings)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// A workspace the client names outlives the session (a fresh one would
	// be removed with it), so the SessionEnd mark can be read after.
	ws := filepath.Join(d.root, "project")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := sh(t, ctx, `grpcurl -plaintext -d '{"mode": "PERMISSION_MODE_BYPASS_PERMISSIONS", "workspace": "`+ws+`"}' `+d.addr+` toold.v1.SessionService/CreateSession | sed -n 's/^ *"id": "\([a-z2-7]*\)".*/\1/p'`)
	sid := strings.TrimSpace(out)
	if err != nil || len(sid) != 26 {
		t.Fatalf("CreateSession: %v %q", err, out)
	}
	os.WriteFile(filepath.Join(ws, "keep.txt"), []byte("precious\n"), 0o644)

	out, err = sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [
		{"tool_use_id": "rm", "name": "Bash", "input": {"command": "rm -f keep.txt"}},
		{"tool_use_id": "read", "name": "Read", "input": {"file_path": "keep.txt"}}]}' `+d.addr+` toold.v1.ToolService/Execute`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mustContain(t, out,
		`"errorKind": "ERROR_KIND_PERMISSION_DENIED"`,
		`Blocked by the team's hook: rm is not allowed (rm -f keep.txt)`,
		`"hookRun": {`, `"event": "PreToolUse"`, `"status": "blocked"`, `"decision": "deny"`, `"exitCode": 2`,
		`"status": "ok"`, // the hook's run for Read
		`precious`,       // Read ran, and the file is still there
	)
	if _, err := os.Stat(filepath.Join(ws, "keep.txt")); err != nil {
		t.Fatal("the blocked rm ran")
	}
	if !strings.Contains(d.logs.String(), "hook ran") {
		t.Errorf("no log line for the hook runs:\n%s", d.logs)
	}

	if b, err := os.ReadFile(filepath.Join(ws, ".hook-SessionStart")); err != nil || string(b) != "startup "+sid+"\n" {
		t.Errorf("SessionStart mark: %q %v", b, err)
	}
	if out, err := sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`"}' `+d.addr+` toold.v1.SessionService/DeleteSession`); err != nil {
		t.Fatalf("DeleteSession: %v\n%s", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(ws, ".hook-SessionEnd")); err != nil || string(b) != "other "+sid+"\n" {
		t.Errorf("SessionEnd mark: %q %v", b, err)
	}
}

// A hooks block that does not parse stops toold at start with exit 2,
// naming the bad value.
func TestBadHooksSettingsExit2(t *testing.T) {
	settings := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(settings, []byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "timeout": "soon"}]}]}}`), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), "--listen", freeAddr(t), "--workspace-root", filepath.Join(t.TempDir(), "ws"), "--settings", settings)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "hooks.PreToolUse[0].hooks[0].timeout") {
		t.Fatalf("err %v, output:\n%s", err, out)
	}
}
