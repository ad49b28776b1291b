package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Read deny rules bind Bash, and allow rules do not carry a command out of
// the workspace, through the built binary, as root and as a non-root
// toold (uid 10001). The denied file and a canary outside the workspace,
// both readable by the command's user, never reach the output.
func TestBashFileRules(t *testing.T) {
	t.Run("root", func(t *testing.T) { testBashFileRules(t, -1) })
	t.Run("uid10001", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Logf("the tests run as uid %d: the other subtest already drives a non-root toold", os.Geteuid())
			return
		}
		testBashFileRules(t, 10001)
	})
}

func testBashFileRules(t *testing.T, uid int) {
	d := startTooldAs(t, uid)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	canaryDir := filepath.Dir(d.root)
	canary := filepath.Join(canaryDir, "canary")
	if err := os.WriteFile(canary, []byte("canary-content-xyzzy\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	session := func(mode string, allow []string) string {
		req, _ := json.Marshal(map[string]any{"mode": mode, "permissions": map[string]any{"allow": allow, "deny": []string{"Read(./.env)"}}})
		out, err := sh(t, ctx, `grpcurl -plaintext -d @ `+d.addr+` toold.v1.SessionService/CreateSession <<'EOF' | sed -n 's/^ *"id": "\([a-z2-7]*\)".*/\1/p'
`+string(req)+`
EOF`)
		sid := strings.TrimSpace(out)
		if err != nil || len(sid) != 26 {
			t.Fatalf("CreateSession: %v %q", err, out)
		}
		ws := filepath.Join(d.root, sid)
		os.MkdirAll(filepath.Join(ws, "sub"), 0o755)
		if err := os.WriteFile(filepath.Join(ws, ".env"), []byte("API_KEY=env-s3cr3t-value\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(ws, "ok.txt"), []byte("inside-ok\n"), 0o644)
		os.Symlink(".env", filepath.Join(ws, "innocent"))
		return sid
	}
	leaked := func(r callResult) bool {
		return strings.Contains(r.Text, "env-s3cr3t-value") || strings.Contains(r.Text, "canary-content-xyzzy")
	}
	relCanary := strings.TrimPrefix(canary, "/")
	upCanary, _ := filepath.Rel(filepath.Join(d.root, "x"), canary) // the canary seen from a workspace

	// dontAsk with cd and cat allowed: what would ask is denied.
	sid := session("PERMISSION_MODE_DONT_ASK", []string{"Bash(cat:*)", "Bash(cd:*)", "Bash(grep:*)", "Bash(echo:*)"})
	if r := execute(t, ctx, d.addr, sid, "ok", "Bash", map[string]any{"command": "cat ok.txt sub/../ok.txt"}); r.IsError || !strings.Contains(r.Text, "inside-ok") {
		t.Fatalf("a read inside the workspace did not run: %+v", r)
	}
	for i, tc := range []struct{ cmd, reason string }{
		{"cat .env", "Read(./.env)"},
		{"cat innocent", "Read(./.env)"},
		{"cat < .env", "Read(./.env)"},
		{"grep -f.env ok.txt", "Read(./.env)"},
		{"echo $(cat .env)", "Read(./.env)"},
		{"grep -r s3cr3t .", ".env is among them"},
		{"cd / && cat " + relCanary, canary},
		{"cat " + canary, canary},
		{"cat " + upCanary, canary},
		{"cat " + canaryDir + "/*", canaryDir},
		{"cd .. && cat ../canary", canary},
		// Last: a cd that runs moves the session's directory.
		{"cd sub && cat ../.env", "Read(./.env)"},
	} {
		r := execute(t, ctx, d.addr, sid, fmt.Sprintf("c%d", i), "Bash", map[string]any{"command": tc.cmd})
		if !r.IsError || !strings.HasPrefix(r.Text, "Permission to use Bash") || leaked(r) {
			t.Errorf("%s: want a denial, got %+v", tc.cmd, r)
		}
		// The model gets Claude Code's words; why is for the orchestrator.
		if why := explain(t, ctx, d.addr, sid, tc.cmd); !strings.Contains(why, tc.reason) {
			t.Errorf("%s: CheckPermission does not name %q: %s", tc.cmd, tc.reason, why)
		}
	}

	// bypassPermissions: the Read deny still binds; reads inside run.
	sid = session("PERMISSION_MODE_BYPASS_PERMISSIONS", nil)
	for i, cmd := range []string{"cat .env", "cd sub && head -n1 ../.env", "timeout 5 cat innocent", "sh -c 'tac .env'"} {
		r := execute(t, ctx, d.addr, sid, fmt.Sprintf("b%d", i), "Bash", map[string]any{"command": cmd})
		if !r.IsError || !strings.HasPrefix(r.Text, "Permission to use Bash") || leaked(r) {
			t.Errorf("bypassPermissions %s: want a denial, got %+v", cmd, r)
		}
		if why := explain(t, ctx, d.addr, sid, cmd); !strings.Contains(why, "Read(./.env)") {
			t.Errorf("bypassPermissions %s: CheckPermission does not name Read(./.env): %s", cmd, why)
		}
	}
	if r := execute(t, ctx, d.addr, sid, "ok", "Bash", map[string]any{"command": "cat ok.txt"}); r.IsError || !strings.Contains(r.Text, "inside-ok") {
		t.Fatalf("bypassPermissions cat ok.txt: %+v", r)
	}
	b, err := os.ReadFile(canary)
	if err != nil || string(b) != "canary-content-xyzzy\n" {
		t.Fatalf("the canary changed: %q %v", b, err)
	}
}

// explain returns CheckPermission's answer for a Bash command, as grpcurl
// prints it.
func explain(t *testing.T, ctx context.Context, addr, sid, cmd string) string {
	t.Helper()
	req, _ := json.Marshal(map[string]any{"session_id": sid, "call": map[string]any{"name": "Bash", "input": map[string]any{"command": cmd}}})
	out, err := sh(t, ctx, `grpcurl -plaintext -d @ `+addr+` toold.v1.ToolService/CheckPermission <<'EOF'
`+string(req)+`
EOF`)
	if err != nil {
		t.Fatalf("CheckPermission %s: %v\n%s", cmd, err, out)
	}
	return out
}
