package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A Read deny rule blocks Read and Edit of the path and hides it from Glob
// and Grep, through the built binary.
func TestReadDenyHidesFromSearch(t *testing.T) {
	d := startToold(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := sh(t, ctx, `grpcurl -plaintext -d '{"mode": "PERMISSION_MODE_BYPASS_PERMISSIONS", "permissions": {"deny": ["Read(./secret/**)"]}}' `+d.addr+` toold.v1.SessionService/CreateSession | sed -n 's/^ *"id": "\([a-z2-7]*\)".*/\1/p'`)
	sid := strings.TrimSpace(out)
	if err != nil || len(sid) != 26 {
		t.Fatalf("CreateSession: %v %q", err, out)
	}
	exec := func(calls string) string {
		out, err := sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [`+calls+`]}' `+d.addr+` toold.v1.ToolService/Execute`)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return out
	}
	// Bash could not write there: the redirect is an Edit the Read deny covers.
	out = exec(`{"tool_use_id": "b", "name": "Bash", "input": {"command": "mkdir -p secret src && echo s3cr3t-value > secret/k"}}`)
	mustContain(t, out, `"errorKind": "ERROR_KIND_PERMISSION_DENIED"`)
	ws := filepath.Join(d.root, sid)
	os.MkdirAll(filepath.Join(ws, "secret"), 0o755)
	os.MkdirAll(filepath.Join(ws, "src"), 0o755)
	os.WriteFile(filepath.Join(ws, "secret", "k"), []byte("s3cr3t-value\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "src", "a"), []byte("s3cr3t-free\n"), 0o644)
	out = exec(`{"tool_use_id": "g1", "name": "Glob", "input": {"pattern": "**/*"}},
		{"tool_use_id": "g2", "name": "Grep", "input": {"pattern": "s3cr3t", "output_mode": "content"}},
		{"tool_use_id": "r", "name": "Read", "input": {"file_path": "secret/k"}}`)
	mustContain(t, out, "src/a", "s3cr3t-free", `"errorKind": "ERROR_KIND_PERMISSION_DENIED"`, "Read(./secret/**)")
	if strings.Contains(out, "s3cr3t-value") || strings.Contains(out, "secret/k\"") || strings.Contains(out, "secret/k\\n") {
		t.Fatalf("the denied file leaked:\n%s", out)
	}
}
