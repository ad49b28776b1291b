package server_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/toold/toold/internal/claudecode"
	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/sandbox"
	"github.com/toold/toold/internal/server"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/bash"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// fixedSandbox reports a fixed status, as a launcher would after its probe.
type fixedSandbox sandbox.Status

func (f fixedSandbox) Status() sandbox.Status { return sandbox.Status(f) }

// serveInfo serves the test tools with opts and returns a ServerService
// client.
func serveInfo(t *testing.T, opts server.Options) tooldv1.ServerServiceClient {
	t.Helper()
	reg, err := tool.NewRegistry(echoTool{})
	if err != nil {
		t.Fatal(err)
	}
	st := memstore.New()
	eng, err := exec.NewEngine(exec.Config{Registry: reg, Store: st, Policy: policy.WorkspaceOnly{}})
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := session.NewManager(st, t.TempDir(), eng, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := server.NewToolService(reg, eng, mgr, 4)
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := server.New(opts, server.NewSessionService(mgr, eng), ts)
	conn := serveBufconn(t, srv)
	return tooldv1.NewServerServiceClient(conn)
}

func TestGetServerInfo(t *testing.T) {
	status := sandbox.Status{
		Mode: sandbox.ModeBestEffort, LandlockABI: 7, Landlock: true, Network: true,
		UserSwitch: true, User: "nobody", UID: 65534, GID: 65534,
		Cgroup: true, CgroupDir: "/sys/fs/cgroup/toold", PidsMax: true,
		Limits:         sandbox.Limits{OpenFiles: 65536, Processes: 4096, FileSize: 16 << 30, PidsMax: 4096, CPUSeconds: ^uint64(0)},
		Missing:        []string{"cgroup limits: no memory controller"},
		Hidden:         []string{"/etc/toold/tokens/tokens"},
		HiddenEnforced: true,
		DeniedPorts:    []int{50051, 6379},
		PortsDenied:    true,
	}
	c := serveInfo(t, server.Options{
		Info: server.ServerInfo{Version: "v1.2.3", Store: "redis", Sandbox: fixedSandbox(status),
			SettingsWarnings: []string{"ignored keys: model"}},
		AuthMode: "token",
	})
	got, err := c.GetServerInfo(ctx(t), &tooldv1.GetServerInfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetVersion() != "v1.2.3" || got.GetStore() != "redis" || got.GetAuth() != "token" {
		t.Errorf("version, store, auth = %q, %q, %q", got.GetVersion(), got.GetStore(), got.GetAuth())
	}
	sb := got.GetSandbox()
	if sb.GetMode() != "best-effort" || sb.GetLandlockAbi() != 7 || !sb.GetLandlock() || !sb.GetNetwork() || sb.GetNetworkDenied() ||
		!sb.GetUserSwitch() || sb.GetUser() != "nobody" || sb.GetUid() != 65534 || sb.GetGid() != 65534 ||
		!sb.GetCgroup() || sb.GetCgroupDir() != "/sys/fs/cgroup/toold" || sb.GetMemoryMax() || !sb.GetPidsMax() || sb.GetSubreaper() {
		t.Errorf("sandbox = %v", sb)
	}
	l := sb.GetLimits()
	if l.GetOpenFiles() != 65536 || l.GetProcesses() != 4096 || l.GetFileSize() != 16<<30 || l.GetPidsMax() != 4096 ||
		l.GetMemoryMax() != 0 || l.GetAddressSpace() != 0 || l.GetCpuSeconds() <= 0 {
		t.Errorf("limits = %v", l)
	}
	if len(sb.GetMissing()) != 1 || !strings.Contains(sb.GetMissing()[0], "memory controller") {
		t.Errorf("missing = %q", sb.GetMissing())
	}
	if !slices.Equal(sb.GetHiddenPaths(), []string{"/etc/toold/tokens/tokens"}) || !sb.GetHiddenEnforced() ||
		!slices.Equal(sb.GetDeniedPorts(), []int32{50051, 6379}) || !sb.GetPortsDenied() {
		t.Errorf("reach = %v %v %v %v", sb.GetHiddenPaths(), sb.GetHiddenEnforced(), sb.GetDeniedPorts(), sb.GetPortsDenied())
	}
	if !slices.Equal(got.GetSettingsWarnings(), []string{"ignored keys: model"}) {
		t.Errorf("settings warnings = %q", got.GetSettingsWarnings())
	}
}

// Unset, the server says what it knows: a development build, no
// authentication, no sandbox.
func TestGetServerInfoDefaults(t *testing.T) {
	c := serveInfo(t, server.Options{Info: server.ServerInfo{Store: "memory"}})
	got, err := c.GetServerInfo(ctx(t), &tooldv1.GetServerInfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetVersion() != "dev" || got.GetStore() != "memory" || got.GetAuth() != "none" || got.GetSandbox().GetMode() != "off" {
		t.Errorf("info = %v", got)
	}
	// The pinned Claude Code release is always reported: clients compare
	// it with the release they expect.
	if got.GetClaudeCodeVersion() != claudecode.Version || claudecode.Version == "" {
		t.Errorf("claude_code_version = %q, want %q", got.GetClaudeCodeVersion(), claudecode.Version)
	}
}

// docTool returns a PDF document block.
type docTool struct{}

func (docTool) Definition() tool.Definition {
	return tool.Definition{Name: "Doc", Description: "a document", InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{}}`)}
}
func (docTool) Parse(json.RawMessage) (tool.Invocation, error) { return docTool{}, nil }
func (docTool) Traits() tool.Traits                            { return tool.Traits{ReadOnly: true, ConcurrencySafe: true} }
func (docTool) Activity() tool.Activity                        { return tool.Activity{Summary: "doc"} }
func (docTool) Run(context.Context, *tool.Env) (*tool.Result, error) {
	return &tool.Result{Content: []tool.Block{
		{Type: tool.BlockText, Text: "PDF file: a.pdf"},
		{Type: tool.BlockDocument, MediaType: "application/pdf", Data: []byte("%PDF-1")},
	}}, nil
}

func TestDocumentBlock(t *testing.T) {
	e := startWith(t, memstore.New(), policy.WorkspaceOnly{}, exec.AskConfig{}, docTool{})
	s := e.newSession(t)
	stream, err := e.tools.Execute(ctx(t), &tooldv1.ExecuteRequest{SessionId: s.GetId(), Calls: []*tooldv1.ToolCall{{ToolUseId: "toolu_1", Name: "Doc"}}})
	if err != nil {
		t.Fatal(err)
	}
	events, err := collect(t, stream)
	if err != nil {
		t.Fatal(err)
	}
	res := events[len(events)-1].GetResult()
	block, _ := json.Marshal(res.GetToolResult().AsMap()["content"])
	want := `[{"text":"PDF file: a.pdf","type":"text"},{"source":{"data":"JVBERi0x","media_type":"application/pdf","type":"base64"},"type":"document"}]`
	if string(block) != want {
		t.Errorf("tool_result content = %s, want %s", block, want)
	}
	doc := res.GetContent()[1].GetDocument()
	if doc.GetMediaType() != "application/pdf" || string(doc.GetData()) != "%PDF-1" {
		t.Errorf("document block = %v", res.GetContent()[1])
	}
}

// A session's variables reach its commands, after the server's own, and
// come back with the session; a name bash could not take is refused.
func TestSessionEnv(t *testing.T) {
	e := startWith(t, memstore.New(), policy.WorkspaceOnly{}, exec.AskConfig{}, bash.New(bash.Options{}))
	resp, err := e.sessions.CreateSession(ctx(t), &tooldv1.CreateSessionRequest{Env: map[string]string{"GREETING": "hi there", "PROJECT_ID": "p-42"}})
	if err != nil {
		t.Fatal(err)
	}
	s := resp.GetSession()
	if s.GetEnv()["GREETING"] != "hi there" || len(s.GetEnv()) != 2 {
		t.Errorf("created session env = %v", s.GetEnv())
	}
	got, err := e.sessions.GetSession(ctx(t), &tooldv1.GetSessionRequest{SessionId: s.GetId()})
	if err != nil || got.GetSession().GetEnv()["PROJECT_ID"] != "p-42" {
		t.Fatalf("GetSession env = %v, %v", got.GetSession().GetEnv(), err)
	}
	stream, err := e.tools.Execute(ctx(t), &tooldv1.ExecuteRequest{SessionId: s.GetId(), Calls: []*tooldv1.ToolCall{
		{ToolUseId: "toolu_1", Name: "Bash", Input: input(t, map[string]any{"command": `printf '%s/%s' "$GREETING" "$PROJECT_ID"`})},
	}})
	if err != nil {
		t.Fatal(err)
	}
	events, err := collect(t, stream)
	if err != nil {
		t.Fatal(err)
	}
	res := events[len(events)-1].GetResult()
	if res.GetIsError() || res.GetContent()[0].GetText().GetText() != "hi there/p-42" {
		t.Errorf("Bash saw %v", res)
	}

	for _, bad := range []string{"1BAD", "BAD-NAME", "TOOLD_SECRET"} {
		_, err := e.sessions.CreateSession(ctx(t), &tooldv1.CreateSessionRequest{Env: map[string]string{bad: "x"}})
		wantCode(t, err, codes.InvalidArgument, bad)
	}
	_, err = e.sessions.CreateSession(ctx(t), &tooldv1.CreateSessionRequest{Env: map[string]string{"NUL": "a\x00b"}})
	wantCode(t, err, codes.InvalidArgument, "NUL")
}
