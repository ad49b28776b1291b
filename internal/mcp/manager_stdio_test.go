package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
)

func newManager(t *testing.T, opts Options) *Manager {
	t.Helper()
	if opts.MinBackoff == 0 {
		opts.MinBackoff, opts.MaxBackoff = 20*time.Millisecond, 200*time.Millisecond
	}
	if opts.ConnectTimeout == 0 {
		opts.ConnectTimeout = 20 * time.Second
	}
	m := NewManager(opts)
	t.Cleanup(m.Close)
	return m
}

func newSession(t *testing.T, id string) Session {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return Session{ID: id, Workspace: dir, Environ: []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dir}}
}

func helperManager(t *testing.T, opts Options, env map[string]string) *Manager {
	t.Helper()
	opts.Operator = Config{Servers: []ServerConfig{helperConfig(t, "helper", env)}}
	return newManager(t, opts)
}

func findTool(t *testing.T, tools []tool.Tool, name string) *Tool {
	t.Helper()
	for _, tl := range tools {
		if tl.Definition().Name == name {
			return tl.(*Tool)
		}
	}
	t.Fatalf("no tool %s among %v", name, names(tools))
	return nil
}

func names(tools []tool.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Definition().Name)
	}
	return out
}

func call(t *testing.T, tl tool.Tool, input string) (*tool.Result, error) {
	t.Helper()
	inv, err := tl.Parse(json.RawMessage(input))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return inv.Run(context.Background(), &tool.Env{Progress: tool.NopProgress{}})
}

func mustCall(t *testing.T, tl tool.Tool, input string) *tool.Result {
	t.Helper()
	res, err := call(t, tl, input)
	if err != nil {
		t.Fatalf("%s: %v", tl.Definition().Name, err)
	}
	return res
}

func errorKind(t *testing.T, err error) (tool.ErrorKind, string) {
	t.Helper()
	var te *tool.Error
	if !errors.As(err, &te) {
		t.Fatalf("error %v (%T) is not a *tool.Error", err, err)
	}
	return te.Kind, te.Msg
}

func stateOf(m *Manager, session, name string) ServerState {
	for _, s := range m.States(session) {
		if s.Name == name {
			return s
		}
	}
	return ServerState{}
}

// eventually polls cond; the deadline is generous because the helper is a
// real process on a shared machine.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStdioToolsAreListedSortedAndCallable(t *testing.T) {
	m := helperManager(t, Options{}, nil)
	sess := newSession(t, "s1")
	if st := stateOf(m, "s1", "helper"); st.State != StatePending {
		t.Fatalf("before first use the stdio server must be pending, got %+v", st)
	}
	tools := m.Tools(context.Background(), sess)
	got := names(tools)
	want := []string{"mcp__helper__crash", "mcp__helper__echo", "mcp__helper__fail", "mcp__helper__garbage",
		"mcp__helper__gentle_write", "mcp__helper__grow", "mcp__helper__hang", "mcp__helper__media",
		"mcp__helper__plain", "mcp__helper__progress", "mcp__helper__spawn", "mcp__helper__structured", "mcp__helper__where"}
	if !slices.Equal(got, want) {
		t.Fatalf("tools = %v\nwant %v", got, want)
	}
	echo := findTool(t, tools, "mcp__helper__echo")
	if echo.RemoteName() != "echo" || echo.Server() != "helper" || echo.Definition().Description != "Echo the text." {
		t.Fatalf("echo = %+v", echo.Definition())
	}
	var schema map[string]any
	if err := json.Unmarshal(echo.Definition().InputSchema, &schema); err != nil || schema["properties"] == nil {
		t.Fatalf("schema not passed through: %s", echo.Definition().InputSchema)
	}
	if got := tooltest.Text(mustCall(t, echo, `{"text":"hi"}`)); got != "echo: hi" {
		t.Fatalf("echo result = %q", got)
	}
	st := stateOf(m, "s1", "helper")
	if st.State != StateConnected || st.Tools != len(want) || st.Transport != Stdio || st.Scope != ScopeOperator {
		t.Fatalf("state = %+v", st)
	}
}

func TestAnnotationsBecomeTraitsFailClosed(t *testing.T) {
	m := helperManager(t, Options{}, nil)
	tools := m.Tools(context.Background(), newSession(t, "s1"))
	tests := []struct {
		name                           string
		readOnly, concurrent, destruct bool
		openWorld                      bool
	}{
		{"mcp__helper__echo", true, true, false, true},
		{"mcp__helper__gentle_write", false, false, false, false},
		{"mcp__helper__plain", false, false, true, true},
	}
	for _, tc := range tests {
		tl := findTool(t, tools, tc.name)
		inv, err := tl.Parse(json.RawMessage(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		tr := inv.Traits()
		if tr.ReadOnly != tc.readOnly || tr.ConcurrencySafe != tc.concurrent || tr.Destructive != tc.destruct || tl.OpenWorld() != tc.openWorld {
			t.Errorf("%s: traits %+v open world %v", tc.name, tr, tl.OpenWorld())
		}
	}
	if got := findTool(t, tools, "mcp__helper__plain").Definition().MaxResultChars; got != 200000 {
		t.Errorf("Definition().MaxResultChars = %d, want 200000: the engine persists results past it", got)
	}
	if got := findTool(t, tools, "mcp__helper__plain").MaxResultChars(); got != 200000 {
		t.Errorf("declared result limit = %d", got)
	}
	if got := findTool(t, tools, "mcp__helper__echo").MaxResultChars(); got != 0 {
		t.Errorf("undeclared result limit = %d", got)
	}
}

func TestResultsAreMappedToBlocks(t *testing.T) {
	m := helperManager(t, Options{}, nil)
	tools := m.Tools(context.Background(), newSession(t, "s1"))

	res := mustCall(t, findTool(t, tools, "mcp__helper__media"), `{}`)
	if len(res.Content) != 4 || res.IsError {
		t.Fatalf("media result = %+v", res)
	}
	if b := res.Content[0]; b.Type != tool.BlockImage || b.MediaType != "image/png" || string(b.Data) != "\x89PNG fake" {
		t.Errorf("image block = %+v", b)
	}
	if b := res.Content[1]; b.Type != tool.BlockText || !strings.Contains(b.Text, "Audio (audio/wav, 2.0 KiB)") {
		t.Errorf("audio block = %+v", b)
	}
	if b := res.Content[2]; b.Text != "[Resource from helper at file:///notes.txt] the notes" {
		t.Errorf("resource block = %q", b.Text)
	}
	if b := res.Content[3]; b.Text != "[Resource link: file:///big.csv (big.csv), text/csv]" {
		t.Errorf("link block = %q", b.Text)
	}

	res = mustCall(t, findTool(t, tools, "mcp__helper__structured"), `{}`)
	if tooltest.Text(res) != `{"rows":3}` || res.Meta[MetaStructuredContent] == nil {
		t.Errorf("structured result = %+v", res)
	}

	res = mustCall(t, findTool(t, tools, "mcp__helper__fail"), `{}`)
	if !res.IsError || res.Kind != tool.KindFailed || tooltest.Text(res) != "table users does not exist" {
		t.Errorf("error result = %+v", res)
	}
}

func TestStdioServerRunsInWorkspaceWithSessionEnvironment(t *testing.T) {
	m := helperManager(t, Options{}, map[string]string{"HELPER_TOKEN": "s3cret"})
	sess := newSession(t, "s1")
	out := tooltest.Text(mustCall(t, findTool(t, m.Tools(context.Background(), sess), "mcp__helper__where"), `{}`))
	for _, want := range []string{"cwd=" + sess.Workspace + " ", "token=s3cret", "home=" + sess.Workspace} {
		if !strings.Contains(out, want) {
			t.Errorf("%q lacks %q", out, want)
		}
	}
}

func TestStdioServersArePerSessionAndStopWithIt(t *testing.T) {
	m := helperManager(t, Options{}, nil)
	a, b := newSession(t, "a"), newSession(t, "b")
	ta, tb := m.Tools(context.Background(), a), m.Tools(context.Background(), b)
	pidA, pidB := helperPID(t, ta), helperPID(t, tb)
	if pidA == pidB {
		t.Fatalf("sessions share the stdio process %d", pidA)
	}
	child, err := strconv.Atoi(tooltest.Text(mustCall(t, findTool(t, ta, "mcp__helper__spawn"), `{}`)))
	if err != nil {
		t.Fatal(err)
	}
	m.CloseSession("a")
	if alive(pidA) {
		t.Errorf("server process %d of the closed session still runs", pidA)
	}
	eventually(t, "the server's child to be killed", func() bool { return !alive(child) })
	if !alive(pidB) || helperPID(t, tb) != pidB {
		t.Errorf("the other session's server was disturbed")
	}
	res, err := call(t, findTool(t, ta, "mcp__helper__echo"), `{"text":"x"}`)
	if kind, _ := errorKind(t, err); res != nil || kind != tool.KindUnavailable {
		t.Errorf("a tool of a closed session answered: %v %v", res, err)
	}
}

func helperPID(t *testing.T, tools []tool.Tool) int {
	t.Helper()
	out := tooltest.Text(mustCall(t, findTool(t, tools, "mcp__helper__where"), `{}`))
	var pid int
	if _, err := fmt.Sscanf(out, "pid=%d", &pid); err != nil {
		t.Fatalf("where = %q", out)
	}
	return pid
}

// alive reports whether a process exists and is not a zombie.
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func TestCrashGivesErrorResultAndRestarts(t *testing.T) {
	m := helperManager(t, Options{}, nil)
	tools := m.Tools(context.Background(), newSession(t, "s1"))
	pid := helperPID(t, tools)

	_, err := call(t, findTool(t, tools, "mcp__helper__crash"), `{}`)
	if kind, msg := errorKind(t, err); kind != tool.KindUnavailable || !strings.Contains(msg, "the connection failed") {
		t.Fatalf("crash: kind %v, %q", kind, msg)
	}
	eventually(t, "a restart", func() bool {
		st := stateOf(m, "s1", "helper")
		return st.State == StateConnected && st.Restarts >= 1
	})
	st := stateOf(m, "s1", "helper")
	if !strings.Contains(st.LastError, "exit status 3") || !strings.Contains(st.LastError, "segfault in handler") {
		t.Errorf("last error = %q", st.LastError)
	}
	if got := tooltest.Text(mustCall(t, findTool(t, tools, "mcp__helper__echo"), `{"text":"back"}`)); got != "echo: back" {
		t.Errorf("after restart: %q", got)
	}
	if helperPID(t, tools) == pid {
		t.Errorf("no new process after the crash")
	}
}

func TestHangPastTimeoutIsATimeoutResult(t *testing.T) {
	m := helperManager(t, Options{CallTimeout: 300 * time.Millisecond}, nil)
	tools := m.Tools(context.Background(), newSession(t, "s1"))
	_, err := call(t, findTool(t, tools, "mcp__helper__hang"), `{}`)
	if kind, msg := errorKind(t, err); kind != tool.KindTimeout || !strings.Contains(msg, "did not answer hang") {
		t.Fatalf("hang: kind %v, %q", kind, msg)
	}
	// The server still answers. Under load an answer may take longer than
	// the short timeout too: that the server answers is what counts.
	var got string
	eventually(t, "an answer after the timeout", func() bool {
		res, err := call(t, findTool(t, tools, "mcp__helper__echo"), `{"text":"still here"}`)
		if err == nil {
			got = tooltest.Text(res)
		}
		return err == nil
	})
	if got != "echo: still here" {
		t.Errorf("after the timeout: %q", got)
	}
}

func TestGarbageOutputFailsTheCallAndRestarts(t *testing.T) {
	m := helperManager(t, Options{CallTimeout: 5 * time.Second}, nil)
	tools := m.Tools(context.Background(), newSession(t, "s1"))
	res, err := call(t, findTool(t, tools, "mcp__helper__garbage"), `{}`)
	if res != nil || err == nil {
		t.Fatalf("garbage answered %+v", res)
	}
	if kind, _ := errorKind(t, err); kind != tool.KindUnavailable && kind != tool.KindFailed {
		t.Fatalf("garbage: %v", err)
	}
	eventually(t, "a restart", func() bool {
		st := stateOf(m, "s1", "helper")
		return st.State == StateConnected && st.Restarts >= 1
	})
	if got := tooltest.Text(mustCall(t, findTool(t, tools, "mcp__helper__echo"), `{"text":"ok"}`)); got != "echo: ok" {
		t.Errorf("after restart: %q", got)
	}
}

func TestServerThatCannotStartIsReportedAndCallsFail(t *testing.T) {
	m := helperManager(t, Options{MaxAttempts: 2}, map[string]string{helperMode: "exit-at-start"})
	tools := m.Tools(context.Background(), newSession(t, "s1"))
	if len(tools) != 0 {
		t.Fatalf("a server that never started gave tools %v", names(tools))
	}
	eventually(t, "the failed state", func() bool { return stateOf(m, "s1", "helper").State == StateFailed })
	st := stateOf(m, "s1", "helper")
	if !strings.Contains(st.LastError, "missing API token") || st.Restarts != 1 {
		t.Errorf("state = %+v", st)
	}
}

func TestFailedServerIsTriedAgainOnLaterUse(t *testing.T) {
	m := helperManager(t, Options{MaxAttempts: 1}, map[string]string{helperMode: "needs-ready-file"})
	sess := newSession(t, "s1")
	m.Tools(context.Background(), sess)
	eventually(t, "the failed state", func() bool { return stateOf(m, "s1", "helper").State == StateFailed })
	if err := os.WriteFile(filepath.Join(sess.Workspace, "ready"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the server's tools after a later listing", func() bool {
		return len(m.Tools(context.Background(), sess)) > 0
	})
	if st := stateOf(m, "s1", "helper"); st.State != StateConnected || !strings.Contains(st.LastError, "not ready") {
		t.Errorf("state = %+v", st)
	}
}

func TestSilentServerTimesOutAtStart(t *testing.T) {
	m := helperManager(t, Options{ConnectTimeout: 300 * time.Millisecond, MaxAttempts: 1}, map[string]string{helperMode: "silent"})
	if tools := m.Tools(context.Background(), newSession(t, "s1")); len(tools) != 0 {
		t.Fatalf("tools = %v", names(tools))
	}
	eventually(t, "the failed state", func() bool { return stateOf(m, "s1", "helper").State == StateFailed })
	if st := stateOf(m, "s1", "helper"); !strings.Contains(st.LastError, "within 300ms") {
		t.Errorf("last error = %q", st.LastError)
	}
}

func TestMissingCommandIsReported(t *testing.T) {
	cfg := ServerConfig{Name: "nope", Prefix: "nope", Transport: Stdio, Command: "no-such-mcp-server"}
	m := newManager(t, Options{Operator: Config{Servers: []ServerConfig{cfg}}, MaxAttempts: 1})
	m.Tools(context.Background(), newSession(t, "s1"))
	eventually(t, "the failed state", func() bool { return stateOf(m, "s1", "nope").State == StateFailed })
	if st := stateOf(m, "s1", "nope"); !strings.Contains(st.LastError, `command "no-such-mcp-server" not found`) {
		t.Errorf("last error = %q", st.LastError)
	}
}

func TestListChangedUpdatesTheTools(t *testing.T) {
	var mu sync.Mutex
	var changed []string
	m := helperManager(t, Options{OnChange: func(id string) {
		mu.Lock()
		changed = append(changed, id)
		mu.Unlock()
	}}, nil)
	sess := newSession(t, "s1")
	tools := m.Tools(context.Background(), sess)
	mustCall(t, findTool(t, tools, "mcp__helper__grow"), `{}`)
	eventually(t, "the new tool", func() bool {
		return slices.Contains(names(m.Tools(context.Background(), sess)), "mcp__helper__late")
	})
	mu.Lock()
	defer mu.Unlock()
	if len(changed) < 2 || changed[len(changed)-1] != "s1" {
		t.Errorf("change notices = %q", changed)
	}
}

func TestProgressNotificationsReachTheCall(t *testing.T) {
	m := helperManager(t, Options{}, nil)
	tools := m.Tools(context.Background(), newSession(t, "s1"))
	inv, err := findTool(t, tools, "mcp__helper__progress").Parse(json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	rec := &tooltest.Recorder{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := inv.Run(ctx, &tool.Env{Progress: rec})
		done <- err
	}()
	eventually(t, "two progress messages", func() bool {
		_, _, msgs := rec.Snapshot()
		return len(msgs) == 2
	})
	if _, _, msgs := rec.Snapshot(); msgs[0] != "1/2 step 1" || msgs[1] != "2/2 step 2" {
		t.Errorf("progress = %q", msgs)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("a call the caller cancelled must end as cancelled, got %v", err)
	}
}

func TestWorkspaceConfigOnlyWhenAllowed(t *testing.T) {
	sess := newSession(t, "s1")
	cfg := helperConfig(t, "ws", nil)
	entry, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"ws":     map[string]any{"command": cfg.Command, "env": cfg.Env},
		"helper": map[string]any{"command": "/bin/false"},
	}})
	if err := os.WriteFile(filepath.Join(sess.Workspace, WorkspaceFile), entry, 0o644); err != nil {
		t.Fatal(err)
	}

	off := helperManager(t, Options{}, nil)
	if got := names(off.Tools(context.Background(), sess)); slices.Contains(got, "mcp__ws__echo") {
		t.Fatalf("workspace servers started without permission: %v", got)
	}

	on := helperManager(t, Options{WorkspaceConfig: true}, nil)
	got := names(on.Tools(context.Background(), sess))
	if !slices.Contains(got, "mcp__ws__echo") || !slices.Contains(got, "mcp__helper__echo") {
		t.Fatalf("tools = %v", got)
	}
	if st := stateOf(on, "s1", "ws"); st.Scope != ScopeWorkspace || st.State != StateConnected {
		t.Errorf("ws state = %+v", st)
	}
	var shadowed int
	for _, st := range on.States("s1") {
		if st.Name == "helper" && st.Scope == ScopeWorkspace {
			shadowed++
			if !strings.Contains(st.LastError, "operator's settings define a server of the same name") {
				t.Errorf("shadowed entry = %+v", st)
			}
		}
	}
	if shadowed != 1 {
		t.Errorf("the workspace's helper must be reported as not started, states = %+v", on.States("s1"))
	}
}

func TestBadWorkspaceConfigIsReported(t *testing.T) {
	sess := newSession(t, "s1")
	if err := os.WriteFile(filepath.Join(sess.Workspace, WorkspaceFile), []byte(`{"mcpServers":{"x":{"command":1}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	m := newManager(t, Options{WorkspaceConfig: true})
	m.Tools(context.Background(), sess)
	st := stateOf(m, "s1", WorkspaceFile)
	if st.State != StateFailed || !strings.Contains(st.LastError, "mcpServers.x.command: must be a string") {
		t.Errorf("state = %+v", st)
	}
}
