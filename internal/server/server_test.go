package server_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/server"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// waitTool blocks until its context ends and records that it saw the end.
type waitTool struct {
	started  chan struct{}
	released atomic.Bool
}

func (w *waitTool) Definition() tool.Definition {
	return tool.Definition{Name: "Wait", Description: "blocks", InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{}}`)}
}
func (w *waitTool) Parse(json.RawMessage) (tool.Invocation, error) { return w, nil }
func (w *waitTool) Traits() tool.Traits                            { return tool.Traits{} }
func (w *waitTool) Activity() tool.Activity                        { return tool.Activity{Summary: "wait"} }
func (w *waitTool) Run(ctx context.Context, _ *tool.Env) (*tool.Result, error) {
	close(w.started)
	<-ctx.Done()
	w.released.Store(true)
	return nil, ctx.Err()
}

// echoTool returns its text and streams it as stdout first.
type echoTool struct{}

func (echoTool) Definition() tool.Definition {
	return tool.Definition{Name: "Echo", Description: "echoes", InputSchema: json.RawMessage(
		`{"type":"object","additionalProperties":false,"required":["text"],"properties":{"text":{"type":"string"}}}`)}
}
func (echoTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in struct{ Text string }
	err := json.Unmarshal(raw, &in)
	return echoInv(in.Text), err
}

type echoInv string

func (echoInv) Traits() tool.Traits { return tool.Traits{ReadOnly: true, ConcurrencySafe: true} }
func (e echoInv) Activity() tool.Activity {
	return tool.Activity{Summary: "Echo " + string(e), Read: true}
}
func (e echoInv) Run(_ context.Context, env *tool.Env) (*tool.Result, error) {
	env.Progress.Stdout([]byte(e))
	if e == "image" {
		return tool.Image("image/png", []byte{1, 2, 3}), nil
	}
	return tool.Text(string(e)).WithMeta("exit_code", 0), nil
}

// panicStore panics on reading a session, to prove a handler panic is
// contained.
type panicStore struct{ store.Store }

func (panicStore) GetSession(context.Context, string) (*store.Session, error) { panic("store bug") }

func (panicStore) BeginCalls(context.Context, string, string, []store.Claim, store.CallTimes) (*store.Session, []store.ClaimResult, error) {
	panic("store bug")
}

type env struct {
	root     string
	wait     *waitTool
	sessions tooldv1.SessionServiceClient
	tools    tooldv1.ToolServiceClient
	health   healthpb.HealthClient
	conn     *grpc.ClientConn
}

func start(t *testing.T, st store.Store) *env {
	return startWith(t, st, policy.WorkspaceOnly{}, exec.AskConfig{})
}

// startWith serves the test tools (plus extra ones) with a given decider.
func startWith(t *testing.T, st store.Store, dec policy.Decider, ask exec.AskConfig, extra ...tool.Tool) *env {
	t.Helper()
	return startServer(t, server.Options{}, st, dec, ask, extra...)
}

// startServer is startWith with the server's options.
func startServer(t *testing.T, opts server.Options, st store.Store, dec policy.Decider, ask exec.AskConfig, extra ...tool.Tool) *env {
	t.Helper()
	w := &waitTool{started: make(chan struct{})}
	reg, err := tool.NewRegistry(append([]tool.Tool{echoTool{}, w}, extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := exec.NewEngine(exec.Config{Registry: reg, Store: st, Policy: dec, Ask: ask})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "root")
	var checker session.RulesChecker
	if pe, ok := dec.(*policy.Engine); ok {
		checker = pe
	}
	mgr, err := session.NewManager(st, root, eng, checker)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := server.NewToolService(reg, eng, mgr, 4)
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := server.New(opts, server.NewSessionService(mgr, eng), ts)
	conn := serveBufconn(t, srv)
	return &env{
		root: mgr.Root(), wait: w, conn: conn,
		sessions: tooldv1.NewSessionServiceClient(conn),
		tools:    tooldv1.NewToolServiceClient(conn),
		health:   healthpb.NewHealthClient(conn),
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func wantCode(t *testing.T, err error, code codes.Code, msg string) {
	t.Helper()
	st, _ := status.FromError(err)
	if st.Code() != code || !strings.Contains(st.Message(), msg) {
		t.Fatalf("got %v %q, want %v containing %q", st.Code(), st.Message(), code, msg)
	}
}

func (e *env) newSession(t *testing.T) *tooldv1.Session {
	t.Helper()
	resp, err := e.sessions.CreateSession(ctx(t), &tooldv1.CreateSessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return resp.GetSession()
}

func TestSessionLifecycle(t *testing.T) {
	e := start(t, memstore.New())
	ws := filepath.Join(e.root, "project")
	os.Mkdir(ws, 0o755)
	resp, err := e.sessions.CreateSession(ctx(t), &tooldv1.CreateSessionRequest{
		Workspace: ws,
		Mode:      tooldv1.PermissionMode_PERMISSION_MODE_ACCEPT_EDITS,
		Permissions: &tooldv1.Permissions{
			Allow: []string{"Bash(npm test *)"}, Deny: []string{"Read(./.env)"}, Ask: []string{"Bash(git push *)"},
			AdditionalDirectories: []string{e.root},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := resp.GetSession()
	if len(s.GetId()) != 26 || s.GetWorkspace() != ws || s.GetCwd() != ws || s.GetMode() != tooldv1.PermissionMode_PERMISSION_MODE_ACCEPT_EDITS ||
		s.GetPermissions().GetAllow()[0] != "Bash(npm test *)" || s.GetPermissions().GetAdditionalDirectories()[0] != e.root || s.GetCreateTime() == nil {
		t.Fatalf("session = %v", s)
	}
	got, err := e.sessions.GetSession(ctx(t), &tooldv1.GetSessionRequest{SessionId: s.GetId()})
	if err != nil || got.GetSession().GetWorkspace() != ws {
		t.Fatalf("GetSession = %v, %v", got, err)
	}
	if _, err := e.sessions.DeleteSession(ctx(t), &tooldv1.DeleteSessionRequest{SessionId: s.GetId()}); err != nil {
		t.Fatal(err)
	}
	_, err = e.sessions.GetSession(ctx(t), &tooldv1.GetSessionRequest{SessionId: s.GetId()})
	wantCode(t, err, codes.NotFound, "not found")
	// A repeated delete (a client that lost the answer) is done, not
	// NOT_FOUND; the session stays gone.
	if _, err := e.sessions.DeleteSession(ctx(t), &tooldv1.DeleteSessionRequest{SessionId: s.GetId()}); err != nil {
		t.Fatalf("repeated DeleteSession = %v", err)
	}
	_, err = e.sessions.GetSession(ctx(t), &tooldv1.GetSessionRequest{SessionId: s.GetId()})
	wantCode(t, err, codes.NotFound, "not found")
}

func TestFreshWorkspace(t *testing.T) {
	e := start(t, memstore.New())
	s := e.newSession(t)
	if filepath.Dir(s.GetWorkspace()) != e.root || s.GetMode() != tooldv1.PermissionMode_PERMISSION_MODE_DEFAULT {
		t.Fatalf("session = %v", s)
	}
	if fi, err := os.Stat(s.GetWorkspace()); err != nil || !fi.IsDir() {
		t.Fatalf("workspace not created: %v", err)
	}
}

func TestCreateSessionRejects(t *testing.T) {
	e := start(t, memstore.New())
	outside := t.TempDir()
	file := filepath.Join(e.root, "file")
	os.WriteFile(file, nil, 0o644)
	os.Symlink(outside, filepath.Join(e.root, "link-out"))
	os.Mkdir(e.root+"-evil", 0o755)
	tests := []struct {
		name string
		req  *tooldv1.CreateSessionRequest
		msg  string
	}{
		{"relative workspace", &tooldv1.CreateSessionRequest{Workspace: "rel/dir"}, "must be an absolute path"},
		{"outside the root", &tooldv1.CreateSessionRequest{Workspace: outside}, "outside the server's workspace root"},
		{"symlink out of the root", &tooldv1.CreateSessionRequest{Workspace: filepath.Join(e.root, "link-out")}, "outside the server's workspace root"},
		{"sibling prefix", &tooldv1.CreateSessionRequest{Workspace: e.root + "-evil"}, "outside the server's workspace root"},
		{"missing", &tooldv1.CreateSessionRequest{Workspace: filepath.Join(e.root, "missing")}, "no such file"},
		{"a file", &tooldv1.CreateSessionRequest{Workspace: file}, "not a directory"},
		{"unknown mode", &tooldv1.CreateSessionRequest{Mode: 99}, "mode"},
		{"additional dir outside", &tooldv1.CreateSessionRequest{Permissions: &tooldv1.Permissions{AdditionalDirectories: []string{outside}}}, "outside"},
		{"empty rule", &tooldv1.CreateSessionRequest{Permissions: &tooldv1.Permissions{Allow: []string{" "}}}, "permissions.allow[0]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.sessions.CreateSession(ctx(t), tc.req)
			wantCode(t, err, codes.InvalidArgument, tc.msg)
		})
	}
	entries, _ := os.ReadDir(e.root)
	var left []string
	for _, en := range entries {
		if en.Name() != ".toold-fresh" { // toold's notes of fresh workspaces
			left = append(left, en.Name())
		}
	}
	if len(left) != 2 { // file and link-out: no half-made workspace left behind
		t.Errorf("root holds %q after refused creates", left)
	}
	if notes, _ := os.ReadDir(filepath.Join(e.root, ".toold-fresh")); len(notes) != 0 {
		t.Errorf("notes of refused fresh workspaces stay: %v", notes)
	}
}

func TestGetSessionIDs(t *testing.T) {
	e := start(t, memstore.New())
	_, err := e.sessions.GetSession(ctx(t), &tooldv1.GetSessionRequest{})
	wantCode(t, err, codes.InvalidArgument, "session_id")
	_, err = e.sessions.GetSession(ctx(t), &tooldv1.GetSessionRequest{SessionId: "../../etc"})
	wantCode(t, err, codes.InvalidArgument, "malformed")
	_, err = e.sessions.GetSession(ctx(t), &tooldv1.GetSessionRequest{SessionId: strings.Repeat("a", 26)})
	wantCode(t, err, codes.NotFound, "not found")
}

func TestListTools(t *testing.T) {
	e := start(t, memstore.New())
	resp, err := e.tools.ListTools(ctx(t), &tooldv1.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range resp.GetTools() {
		names = append(names, d.GetName())
	}
	if strings.Join(names, ",") != "Echo,Wait" {
		t.Fatalf("names = %v", names)
	}
	if resp.GetTools()[0].GetInputSchema().GetFields()["type"].GetStringValue() != "object" {
		t.Fatalf("schema = %v", resp.GetTools()[0].GetInputSchema())
	}
	_, err = e.tools.ListTools(ctx(t), &tooldv1.ListToolsRequest{SessionId: strings.Repeat("b", 26)})
	wantCode(t, err, codes.NotFound, "not found")
}

func collect(t *testing.T, stream tooldv1.ToolService_ExecuteClient) ([]*tooldv1.ExecuteEvent, error) {
	var out []*tooldv1.ExecuteEvent
	for {
		ev, err := stream.Recv()
		if err != nil {
			if status.Code(err) == codes.OK || err.Error() == "EOF" {
				return out, nil
			}
			return out, err
		}
		out = append(out, ev)
	}
}

func input(t *testing.T, m map[string]any) *structpb.Struct {
	s, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestExecuteStreamsEventsAndToolResult(t *testing.T) {
	e := start(t, memstore.New())
	s := e.newSession(t)
	stream, err := e.tools.Execute(ctx(t), &tooldv1.ExecuteRequest{SessionId: s.GetId(), Calls: []*tooldv1.ToolCall{
		{ToolUseId: "toolu_1", Name: "Echo", Input: input(t, map[string]any{"text": "hello"})},
		{ToolUseId: "toolu_2", Name: "Echo", InputJson: `{"text":"image"}`},
		{ToolUseId: "toolu_3", Name: "Missing"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	events, err := collect(t, stream)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string][]*tooldv1.ExecuteEvent{}
	for _, ev := range events {
		byID[ev.GetToolUseId()] = append(byID[ev.GetToolUseId()], ev)
	}
	one := byID["toolu_1"]
	if len(one) != 4 || one[0].GetDecision().GetBehavior() != tooldv1.Behavior_BEHAVIOR_ALLOW ||
		one[1].GetStarted().GetSummary() != "Echo hello" || !one[1].GetStarted().GetIsRead() ||
		string(one[2].GetProgress().GetStdout()) != "hello" || one[3].GetResult() == nil {
		t.Fatalf("toolu_1 events = %v", one)
	}
	res := one[3].GetResult()
	block, _ := json.Marshal(res.GetToolResult().AsMap())
	want := `{"content":[{"text":"hello","type":"text"}],"is_error":false,"tool_use_id":"toolu_1","type":"tool_result"}`
	if string(block) != want || res.GetContent()[0].GetText().GetText() != "hello" || res.GetMetadata().GetFields()["exit_code"].GetNumberValue() != 0 {
		t.Fatalf("tool_result = %s, result = %v", block, res)
	}
	img := byID["toolu_2"][3].GetResult()
	block, _ = json.Marshal(img.GetToolResult().AsMap()["content"])
	if string(block) != `[{"source":{"data":"AQID","media_type":"image/png","type":"base64"},"type":"image"}]` ||
		img.GetContent()[0].GetImage().GetMediaType() != "image/png" {
		t.Fatalf("image result = %s", block)
	}
	missing := byID["toolu_3"]
	if len(missing) != 1 || !missing[0].GetResult().GetIsError() || missing[0].GetResult().GetErrorKind() != tooldv1.ErrorKind_ERROR_KIND_UNKNOWN_TOOL ||
		missing[0].GetResult().GetToolResult().AsMap()["is_error"] != true {
		t.Fatalf("unknown tool events = %v", missing)
	}
}

func TestExecuteRequestErrors(t *testing.T) {
	e := start(t, memstore.New())
	s := e.newSession(t)
	echo := func(id string) *tooldv1.ToolCall {
		return &tooldv1.ToolCall{ToolUseId: id, Name: "Echo", Input: input(t, map[string]any{"text": "x"})}
	}
	tests := []struct {
		name string
		req  *tooldv1.ExecuteRequest
		code codes.Code
		msg  string
	}{
		{"no session id", &tooldv1.ExecuteRequest{Calls: []*tooldv1.ToolCall{echo("a")}}, codes.InvalidArgument, "session_id"},
		{"unknown session", &tooldv1.ExecuteRequest{SessionId: strings.Repeat("c", 26), Calls: []*tooldv1.ToolCall{echo("a")}}, codes.NotFound, "not found"},
		{"malformed session", &tooldv1.ExecuteRequest{SessionId: "x/../y", Calls: []*tooldv1.ToolCall{echo("a")}}, codes.InvalidArgument, "malformed"},
		{"empty batch", &tooldv1.ExecuteRequest{SessionId: s.GetId()}, codes.InvalidArgument, "at least one call"},
		{"oversized batch", &tooldv1.ExecuteRequest{SessionId: s.GetId(), Calls: []*tooldv1.ToolCall{echo("a"), echo("b"), echo("c"), echo("d"), echo("e")}}, codes.InvalidArgument, "at most 4"},
		{"duplicate id", &tooldv1.ExecuteRequest{SessionId: s.GetId(), Calls: []*tooldv1.ToolCall{echo("a"), echo("a")}}, codes.InvalidArgument, `"a" appears more than once`},
		{"missing id", &tooldv1.ExecuteRequest{SessionId: s.GetId(), Calls: []*tooldv1.ToolCall{echo("")}}, codes.InvalidArgument, "calls[0].tool_use_id"},
		{"missing name", &tooldv1.ExecuteRequest{SessionId: s.GetId(), Calls: []*tooldv1.ToolCall{{ToolUseId: "a"}}}, codes.InvalidArgument, "calls[0].name"},
		{"both inputs", &tooldv1.ExecuteRequest{SessionId: s.GetId(), Calls: []*tooldv1.ToolCall{{ToolUseId: "a", Name: "Echo", Input: input(t, nil), InputJson: "{}"}}}, codes.InvalidArgument, "not both"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stream, err := e.tools.Execute(ctx(t), tc.req)
			if err == nil {
				_, err = collect(t, stream)
			}
			wantCode(t, err, tc.code, tc.msg)
		})
	}
}

func TestClientCancelStopsTheCall(t *testing.T) {
	e := start(t, memstore.New())
	s := e.newSession(t)
	c, cancel := context.WithCancel(ctx(t))
	stream, err := e.tools.Execute(c, &tooldv1.ExecuteRequest{SessionId: s.GetId(), Calls: []*tooldv1.ToolCall{{ToolUseId: "w", Name: "Wait"}}})
	if err != nil {
		t.Fatal(err)
	}
	for {
		ev, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if ev.GetStarted() != nil {
			break
		}
	}
	cancel()
	deadline := time.After(20 * time.Second)
	for !e.wait.released.Load() {
		select {
		case <-deadline:
			t.Fatal("the call did not see the cancellation")
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func TestDeleteSessionStopsItsCalls(t *testing.T) {
	e := start(t, memstore.New())
	s := e.newSession(t)
	stream, err := e.tools.Execute(ctx(t), &tooldv1.ExecuteRequest{SessionId: s.GetId(), Calls: []*tooldv1.ToolCall{{ToolUseId: "w", Name: "Wait"}}})
	if err != nil {
		t.Fatal(err)
	}
	<-e.wait.started
	if _, err := e.sessions.DeleteSession(ctx(t), &tooldv1.DeleteSessionRequest{SessionId: s.GetId()}); err != nil {
		t.Fatal(err)
	}
	if !e.wait.released.Load() {
		t.Fatal("DeleteSession returned while the call still ran")
	}
	events, err := collect(t, stream)
	if err != nil {
		t.Fatal(err)
	}
	last := events[len(events)-1].GetResult()
	if last.GetErrorKind() != tooldv1.ErrorKind_ERROR_KIND_CANCELLED {
		t.Fatalf("last event = %v", events[len(events)-1])
	}
}

func TestPanicIsContainedAndServerKeepsServing(t *testing.T) {
	e := start(t, panicStore{memstore.New()})
	stream, err := e.tools.Execute(ctx(t), &tooldv1.ExecuteRequest{SessionId: strings.Repeat("d", 26), Calls: []*tooldv1.ToolCall{{ToolUseId: "a", Name: "Echo"}}})
	if err == nil {
		_, err = collect(t, stream)
	}
	wantCode(t, err, codes.Internal, "internal error (error id ")
	if resp, err := e.health.Check(ctx(t), &healthpb.HealthCheckRequest{}); err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health after panic: %v %v", resp, err)
	}
}

func TestHealthPerService(t *testing.T) {
	e := start(t, memstore.New())
	for _, svc := range []string{"", "toold.v1.ToolService", "toold.v1.SessionService"} {
		resp, err := e.health.Check(ctx(t), &healthpb.HealthCheckRequest{Service: svc})
		if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("health %q: %v %v", svc, resp, err)
		}
	}
}

// serveBufconn serves srv on an in-memory listener for the test and returns
// a client connection to it; both stop when the test ends.
func serveBufconn(t *testing.T, srv *grpc.Server) *grpc.ClientConn {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// Rules Claude Code accepts or skips with a warning never make
// CreateSession fail: the ones toold cannot use come back as warnings, and
// the session keeps the others. With StrictRules they are refused.
func TestCreateSessionRuleWarnings(t *testing.T) {
	pe, err := policy.NewEngine(policy.Options{Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	e := startWith(t, memstore.New(), pe, exec.AskConfig{})
	rules := &tooldv1.Permissions{
		Allow: []string{"Agent(modle:x)", "Task(Explore)", "Bash(GOFLAGS=-count=1 go test:*)", "mcp__*", "mcp__server__tool", "Bash(npm test)"},
		Deny:  []string{"Write(docs/**)", "Bash(rm"},
	}
	resp, err := e.sessions.CreateSession(ctx(t), &tooldv1.CreateSessionRequest{Permissions: rules})
	if err != nil {
		t.Fatalf("CreateSession refused rules Claude Code accepts: %v", err)
	}
	w := resp.GetWarnings()
	if len(w) != 5 {
		t.Fatalf("warnings %q, want 5 (Agent, Task, mcp__*, Write, unbalanced)", w)
	}
	for _, s := range w {
		if !strings.Contains(s, "ignored") {
			t.Errorf("warning %q does not say the rule is ignored", s)
		}
	}
	clean, err := e.sessions.CreateSession(ctx(t), &tooldv1.CreateSessionRequest{Permissions: &tooldv1.Permissions{Allow: []string{"Bash(npm test)"}}})
	if err != nil || len(clean.GetWarnings()) != 0 {
		t.Fatalf("clean rules: %v, warnings %q", err, clean.GetWarnings())
	}

	strict, err := policy.NewEngine(policy.Options{Home: t.TempDir(), StrictRules: true})
	if err != nil {
		t.Fatal(err)
	}
	es := startWith(t, memstore.New(), strict, exec.AskConfig{})
	_, err = es.sessions.CreateSession(ctx(t), &tooldv1.CreateSessionRequest{Permissions: rules})
	wantCode(t, err, codes.InvalidArgument, "Write(docs/**)")
}
