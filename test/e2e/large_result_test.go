package e2e

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestLargeResultReadBackByHandle: a Bash result over 30 000 characters
// comes back as a <persisted-output> preview with a handle, and Read pages
// through the stored result by that handle, in a session of the default
// mode (Bash allowed by a rule, Read by being a read). Another session
// cannot read it, and it is gone with its session.
func TestLargeResultReadBackByHandle(t *testing.T) {
	// Confinement is not what this test is about: the sandbox user may
	// not reach the test's temporary workspaces.
	d := startToold(t, "--allowed-tools", "Bash(seq *)", "--sandbox", "off")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	newSession := func() string {
		out, err := sh(t, ctx, `grpcurl -plaintext -d '{"mode": "PERMISSION_MODE_DEFAULT"}' `+d.addr+` toold.v1.SessionService/CreateSession | sed -n 's/^ *"id": "\([a-z2-7]*\)".*/\1/p'`)
		if err != nil || len(strings.TrimSpace(out)) != 26 {
			t.Fatalf("CreateSession: %v %q", err, out)
		}
		return strings.TrimSpace(out)
	}
	execute := func(sid, call string) string {
		t.Helper()
		out, err := sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [`+call+`]}' `+d.addr+` toold.v1.ToolService/Execute`)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return out
	}
	sid := newSession()
	// 1000 lines of 40 characters: 39 999 characters without the last newline.
	out := execute(sid, `{"tool_use_id": "toolu_big", "name": "Bash", "input": {"command": "seq -f \"line %05g xxxxxxxxxxxxxxxxxxxxxxxxxxxx\" 1 1000"}}`)
	mustContain(t, out,
		`\u003cpersisted-output\u003e\nOutput too large (39999 characters, 1000 lines). Full output saved as: toold-result://toolu_big`,
		`Preview (first 2000 bytes):\nline 00001 xxxxxxxxxxxxxxxxxxxxxxxxxxxx\nline 00002`,
		`\n...\n\u003c/persisted-output\u003e`,
	)
	if strings.Contains(out, "line 00051") || strings.Contains(out, "line 01000") {
		t.Fatalf("more than the preview came back inline:\n%.3000s", out)
	}

	out = execute(sid, `{"tool_use_id": "r1", "name": "Read", "input": {"file_path": "toold-result://toolu_big", "offset": 998, "limit": 2}}`)
	mustContain(t, out,
		`"text": "998\tline 00998 xxxxxxxxxxxxxxxxxxxxxxxxxxxx\n999\tline 00999 xxxxxxxxxxxxxxxxxxxxxxxxxxxx"`)
	out = execute(sid, `{"tool_use_id": "r2", "name": "Read", "input": {"file_path": "toold-result://toolu_big", "offset": 1000}}`)
	mustContain(t, out, `"text": "1000\tline 01000 xxxxxxxxxxxxxxxxxxxxxxxxxxxx"`)

	// The handle is the session's own.
	other := newSession()
	out = execute(other, `{"tool_use_id": "r3", "name": "Read", "input": {"file_path": "toold-result://toolu_big"}}`)
	mustContain(t, out, `"isError": true`, `No stored result toold-result://toolu_big in this session`)

	// Dropped with the session: a session created again cannot see it
	// either, and DeleteSession succeeds.
	if out, err := sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`"}' `+d.addr+` toold.v1.SessionService/DeleteSession`); err != nil {
		t.Fatalf("DeleteSession: %v\n%s", err, out)
	}
	out, _ = sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "r4", "name": "Read", "input": {"file_path": "toold-result://toolu_big"}}]}' `+d.addr+` toold.v1.ToolService/Execute`)
	mustContain(t, out, "NotFound")
}

// TestDeferredToolsToolSearchAndTodoWrite: a deferred tool is listed by
// name only, ToolSearch returns its definition, and TodoWrite keeps the
// session's list and returns the old one.
func TestDeferredToolsToolSearchAndTodoWrite(t *testing.T) {
	d := startToold(t, "--deferred-tools", "NotebookEdit,TodoWrite")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := sh(t, ctx, `grpcurl -plaintext `+d.addr+` toold.v1.ToolService/ListTools`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mustContain(t, out, `"name": "NotebookEdit",`+"\n"+`      "deferred": true`, `"name": "ToolSearch"`)
	if i := strings.Index(out, `"name": "NotebookEdit"`); strings.Contains(out[i:i+200], "inputSchema") {
		t.Fatalf("a deferred tool came with its schema:\n%s", out[i:i+200])
	}

	sid := createSession(t, ctx, d.addr)
	call := func(id, name, input string) string {
		out, err := sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "`+id+`", "name": "`+name+`", "input": `+input+`}]}' `+d.addr+` toold.v1.ToolService/Execute`)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return out
	}
	out = call("s1", "ToolSearch", `{"query": "notebook cell"}`)
	mustContain(t, out, `\u003cfunction\u003e{\"description\":`, `\"name\":\"NotebookEdit\",\"parameters\":{`)
	out = call("s2", "ToolSearch", `{"query": "select:TodoWrite,Bash"}`)
	mustContain(t, out, `\"name\":\"TodoWrite\"`, `\"name\":\"Bash\"`)

	first := `{"todos": [{"content": "Write code", "status": "in_progress", "activeForm": "Writing code"}]}`
	out = call("t1", "TodoWrite", first)
	// Claude Code's sentence alone; the list is in the metadata.
	mustContain(t, out, "Todos have been modified successfully", `"new_todos"`, `"content": "Write code"`)
	out = call("t2", "TodoWrite", `{"todos": [{"content": "Write code", "status": "completed", "activeForm": "Writing code"}, {"content": "Test it", "status": "in_progress", "activeForm": "Testing it"}]}`)
	// The old list comes back in the metadata beside the new one (the
	// JSON keys are sorted: new_todos, then old_todos).
	j, i := strings.Index(out, `"new_todos"`), strings.Index(out, `"old_todos"`)
	if i < 0 || j < 0 || j > i {
		t.Fatalf("old or new list missing:\n%s", out)
	}
	if nw, old := out[j:i], out[i:]; strings.Count(old, `"content"`) != 1 || !strings.Contains(old, `"in_progress"`) || strings.Count(nw, `"content"`) != 2 {
		t.Errorf("old list %s\nnew list %s", old, nw)
	}
	mustContain(t, out, `"content": "Test it"`)
	out = call("t3", "TodoWrite", `{"todos": [{"content": "", "status": "pending", "activeForm": "x"}]}`)
	mustContain(t, out, `"isError": true`)
}
