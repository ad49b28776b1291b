package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// EnterWorktree and ExitWorktree through the built binary, as root (git
// runs as the sandbox user) and as a non-root toold (uid 10001): the
// session's tools work in the worktree, its files outside are out of
// reach, and ExitWorktree brings it back.
func TestWorktreeRoundTrip(t *testing.T) {
	t.Run("root", func(t *testing.T) { testWorktree(t, -1) })
	t.Run("uid10001", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Logf("the tests run as uid %d: the other subtest already drives a non-root toold", os.Geteuid())
			return
		}
		testWorktree(t, 10001)
	})
}

func testWorktree(t *testing.T, uid int) {
	d := startTooldAs(t, uid)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, _ := json.Marshal(map[string]any{"mode": "PERMISSION_MODE_BYPASS_PERMISSIONS"})
	out, err := sh(t, ctx, `grpcurl -plaintext -d @ `+d.addr+` toold.v1.SessionService/CreateSession <<'EOF' | sed -n 's/^ *"id": "\([a-z2-7]*\)".*/\1/p'
`+string(req)+`
EOF`)
	sid := strings.TrimSpace(out)
	if err != nil || len(sid) != 26 {
		t.Fatalf("CreateSession: %v %q", err, out)
	}
	ws := filepath.Join(d.root, sid)
	call := func(id, name string, input map[string]any) callResult {
		return execute(t, ctx, d.addr, sid, id, name, input)
	}
	if r := call("w0", "EnterWorktree", map[string]any{"name": "feat"}); !r.IsError || !strings.HasPrefix(r.Text, "Cannot create a worktree: not in a git repository") {
		t.Fatalf("outside a repository: %+v", r)
	}
	if r := call("w1", "Bash", map[string]any{"command": "echo one > a.txt && git init -q -b main && git add a.txt && git -c user.name=t -c user.email=t@example.com commit -qm init && echo ok"}); r.IsError || r.Text != "ok" {
		t.Fatalf("making the repository: %+v", r)
	}
	wt := filepath.Join(ws, ".claude", "worktrees", "feat")
	r := call("w2", "EnterWorktree", map[string]any{"name": "feat"})
	if r.IsError || !strings.HasPrefix(r.Text, "Created worktree at “"+wt+"” on branch “worktree-feat”.") {
		t.Fatalf("EnterWorktree: %+v", r)
	}
	if r := call("w3", "Bash", map[string]any{"command": "pwd; git branch --show-current; echo two > b.txt; git status --short"}); r.IsError || r.Text != wt+"\nworktree-feat\n?? b.txt" {
		t.Fatalf("Bash in the worktree: %+v", r)
	}
	if r := call("w4", "Read", map[string]any{"file_path": "b.txt"}); r.IsError || !strings.Contains(r.Text, "two") {
		t.Fatalf("Read in the worktree: %+v", r)
	}
	// The main checkout is out of the session's reach while it is in
	// the worktree.
	if r := call("w5", "Read", map[string]any{"file_path": filepath.Join(ws, "a.txt")}); !r.IsError {
		t.Fatalf("Read of the main checkout: %+v", r)
	}
	if r := call("w6", "Write", map[string]any{"file_path": filepath.Join(ws, "main.txt"), "content": "m\n"}); !r.IsError || !strings.Contains(r.Text, "This session is isolated in the worktree "+wt) {
		t.Fatalf("Write to the main checkout: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(ws, "main.txt")); err == nil {
		t.Fatal("the main checkout was written")
	}
	if r := call("w7", "ExitWorktree", map[string]any{"action": "remove"}); !r.IsError || !strings.Contains(r.Text, "Worktree has 1 uncommitted file.") {
		t.Fatalf("remove with a change: %+v", r)
	}
	if r := call("w8", "ExitWorktree", map[string]any{"action": "keep"}); r.IsError || !strings.HasSuffix(r.Text, "Session is now back in “"+ws+"”.") {
		t.Fatalf("keep: %+v", r)
	}
	if r := call("w9", "Bash", map[string]any{"command": "pwd; git worktree list --porcelain | grep -c ^worktree; cat .claude/worktrees/feat/b.txt"}); r.IsError || r.Text != ws+"\n2\ntwo" {
		t.Fatalf("after keep: %+v", r)
	}
	// In one turn, the calls after EnterWorktree work in the worktree,
	// and those after ExitWorktree back in the workspace.
	wt2 := filepath.Join(ws, ".claude", "worktrees", "second")
	got := executeBatch(t, ctx, d.addr, sid, []map[string]any{
		{"tool_use_id": "b1", "name": "EnterWorktree", "input": map[string]any{"name": "second"}},
		{"tool_use_id": "b2", "name": "Bash", "input": map[string]any{"command": "pwd"}},
		{"tool_use_id": "b3", "name": "Write", "input": map[string]any{"file_path": "in-second.txt", "content": "2\n"}},
		{"tool_use_id": "b4", "name": "ExitWorktree", "input": map[string]any{"action": "keep"}},
		{"tool_use_id": "b5", "name": "Bash", "input": map[string]any{"command": "pwd"}},
	})
	if got["b2"].Text != wt2 || got["b5"].Text != ws {
		t.Fatalf("one turn: pwd after EnterWorktree %q (want %q), after ExitWorktree %q (want %q); %+v", got["b2"].Text, wt2, got["b5"].Text, ws, got)
	}
	if _, err := os.Stat(filepath.Join(wt2, "in-second.txt")); err != nil {
		t.Fatalf("the Write after EnterWorktree did not land in the worktree: %v (%+v)", err, got["b3"])
	}
}

// executeBatch sends calls as one Execute and returns each call's result
// by tool_use_id.
func executeBatch(t *testing.T, ctx context.Context, addr, sid string, calls []map[string]any) map[string]callResult {
	t.Helper()
	req, _ := json.Marshal(map[string]any{"session_id": sid, "calls": calls})
	out, err := sh(t, ctx, `grpcurl -plaintext -d @ `+addr+` toold.v1.ToolService/Execute <<'EOF'
`+string(req)+`
EOF`)
	if err != nil {
		t.Fatalf("Execute: %v\n%s", err, out)
	}
	got := map[string]callResult{}
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var ev struct {
			ToolUseID string `json:"toolUseId"`
			Result    *struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text struct{ Text string } `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if err := dec.Decode(&ev); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("Execute: %v\n%s", err, out)
		}
		if ev.Result != nil {
			var text strings.Builder
			for _, c := range ev.Result.Content {
				text.WriteString(c.Text.Text)
			}
			got[ev.ToolUseID] = callResult{Text: text.String(), IsError: ev.Result.IsError}
		}
	}
	if len(got) != len(calls) {
		t.Fatalf("Execute: %d results for %d calls\n%s", len(got), len(calls), out)
	}
	return got
}

// Without ToolSearch (a bare deny rule took it away) no tool is deferred:
// ListTools gives NotebookEdit in full; with it, by name only.
func TestNothingDeferredWithoutToolSearch(t *testing.T) {
	d := startToold(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list := func(deny []string) string {
		req, _ := json.Marshal(map[string]any{"permissions": map[string]any{"deny": deny}})
		out, err := sh(t, ctx, `SID=$(grpcurl -plaintext -d @ `+d.addr+` toold.v1.SessionService/CreateSession <<'EOF' | sed -n 's/^ *"id": "\([a-z2-7]*\)".*/\1/p'
`+string(req)+`
EOF
)
grpcurl -plaintext -d '{"session_id": "'$SID'"}' `+d.addr+` toold.v1.ToolService/ListTools | jq -r .toolsJson | jq -r '.[].name' | sort | tr '\n' ' '`)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return out
	}
	if got := list(nil); strings.Contains(got, "NotebookEdit") || !strings.Contains(got, "Skill") {
		t.Errorf("with ToolSearch, the tools sent in full: %s", got)
	}
	if got := list([]string{"ToolSearch"}); !strings.Contains(got, "NotebookEdit") || !strings.Contains(got, "EnterWorktree") || strings.Contains(got, "ToolSearch") {
		t.Errorf("without ToolSearch: %s", got)
	}
}
