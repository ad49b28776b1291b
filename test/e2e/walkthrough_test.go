package e2e

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// walkthrough returns the README's grpcurl walk-through, verbatim.
func walkthrough(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	start := strings.Index(s, "<!-- walkthrough:start -->")
	end := strings.Index(s, "<!-- walkthrough:end -->")
	if start < 0 || end < start {
		t.Fatal("README.md has no walkthrough block")
	}
	block := s[start:end]
	open := strings.Index(block, "```sh\n")
	close := strings.LastIndex(block, "```")
	if open < 0 || close <= open {
		t.Fatal("walkthrough block has no sh code fence")
	}
	return block[open+len("```sh\n") : close]
}

func TestREADMEWalkthrough(t *testing.T) {
	d := startToold(t)
	script := strings.ReplaceAll(walkthrough(t), "localhost:50051", d.addr)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := sh(t, ctx, script)
	if err != nil {
		t.Fatalf("walkthrough failed: %v\n%s", err, out)
	}
	mustContain(t, out,
		"grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection", "toold.v1.SessionService", "toold.v1.ToolService",
		"rpc Execute ( .toold.v1.ExecuteRequest ) returns ( stream .toold.v1.ExecuteEvent );",
		`"name": "Bash"`, `"name": "Edit"`, `"name": "Glob"`, `"name": "Grep"`, `"name": "Read"`, `"name": "Write"`,
		"session: ",
		`"toolUseId": "toolu_01"`, "hello.txt",
		`"text": "1\thello from toold\n2\t"`,
		`"summary": "Read hello.txt"`,
		`"stdout": "`+base64.StdEncoding.EncodeToString([]byte("tick 1\n")),
		`"text": "tick 1\ntick 2\ntick 3"`,
		`"seq": "3"`, `"replayed": true`,
		`"toolUseId": "toolu_04"`, `"toolUseId": "toolu_05"`,
		`"toolUseId": "toolu_10"`, `"text": "1\thello from toold"`,
		`"type": "tool_result"`,
		`"behavior": "BEHAVIOR_ASK"`, `"command": "rm -rf /"`, `"source": "criticalPath"`,
		`"permissionRequest": {`, `"requestId": "perm_`,
		`"text": "initialised"`,
		`"state": "CANCEL_STATE_CANCELLING"`, `"errorKind": "ERROR_KIND_CANCELLED"`,
	)
	// Only the cancelled call is an error.
	if n := strings.Count(out, `"isError": true`); n != 1 {
		t.Errorf("%d walkthrough calls failed, want only the cancelled one:\n%s", n, out)
	}
	if t.Failed() {
		t.Logf("walkthrough output:\n%s", out)
	}
}
