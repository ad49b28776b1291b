package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/internal/tool"
)

// fakeBackend stands for the engine: Read runs, Write is denied by a
// rule, Bash asks first.
type fakeBackend struct {
	mu       sync.Mutex
	sessions map[string]bool
	created  []SessionRequest
	ended    []string
	useIDs   []string
}

func newFakeBackend(existing ...string) *fakeBackend {
	b := &fakeBackend{sessions: map[string]bool{}}
	for _, id := range existing {
		b.sessions[id] = true
	}
	return b
}

func (b *fakeBackend) CreateSession(_ context.Context, req SessionRequest) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if req.Workspace == "/forbidden" {
		return "", errors.New("workspace /forbidden is outside the allowed root")
	}
	b.created = append(b.created, req)
	id := fmt.Sprintf("sess-%d", len(b.created))
	b.sessions[id] = true
	return id, nil
}

func (b *fakeBackend) ListTools(_ context.Context, id string) ([]tool.Definition, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.sessions[id] {
		return nil, errors.New("no such session")
	}
	schema := json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"},"file_path":{"type":"string"}}}`)
	return []tool.Definition{
		{Name: "Bash", Description: "Run a command.", InputSchema: schema},
		{Name: "Read", Description: "Read a file.", InputSchema: schema},
		{Name: "Write", Description: "Write a file.", InputSchema: schema},
	}, nil
}

func (b *fakeBackend) Call(ctx context.Context, id, useID, name string, input json.RawMessage, asker Asker) (*tool.Result, error) {
	b.mu.Lock()
	known := b.sessions[id]
	b.useIDs = append(b.useIDs, useID)
	b.mu.Unlock()
	if !known {
		return nil, errors.New("no such session")
	}
	var in struct {
		Command  string `json:"command"`
		FilePath string `json:"file_path"`
	}
	_ = json.Unmarshal(input, &in)
	switch name {
	case "Read":
		return tool.Text("contents of "+in.FilePath+" in "+id).WithMeta("lines", 1), nil
	case "Write":
		return tool.ErrorResult(tool.KindPermissionDenied, "Permission to use Write has been denied by rule Write."), nil
	case "Bash":
		ans, err := asker.Ask(ctx, Question{ToolUseID: useID, Tool: name, Input: input, Summary: "Run: " + in.Command, Reason: "rule Bash(rm *) asks"})
		if err != nil {
			return tool.ErrorResult(tool.KindPermissionDenied, "Permission request failed: "+err.Error()), nil
		}
		if !ans.Allow {
			return tool.ErrorResult(tool.KindPermissionDenied, ans.Reason), nil
		}
		out := "ran " + in.Command
		if ans.ForSession {
			out += " (allowed for the session)"
		}
		return tool.Text(out), nil
	}
	return tool.ErrorResult(tool.KindUnknownTool, "No such tool available: "+name), nil
}

func (b *fakeBackend) EndSession(_ context.Context, id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ended = append(b.ended, id)
	delete(b.sessions, id)
	return nil
}

func (b *fakeBackend) endedSessions() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.ended)
}

func serve(t *testing.T, b Backend) (*Handler, string) {
	t.Helper()
	h := New(b, Options{})
	ts := httptest.NewServer(h)
	// The handler first: its open sessions hold SSE streams that the test
	// server would wait for.
	t.Cleanup(func() { h.Close(); ts.Close() })
	return h, ts.URL
}

type headerRT map[string]string

func (hd headerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range hd {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func connect(t *testing.T, url string, headers map[string]string, opts *sdk.ClientOptions) (*sdk.ClientSession, error) {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "0.1"}, opts)
	tr := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: headerRT(headers)}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, tr, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func callText(t *testing.T, cs *sdk.ClientSession, name string, args any) (*sdk.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return res, strings.Join(out, "\n")
}

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

func TestInitializeCreatesASessionThatServesTools(t *testing.T) {
	b := newFakeBackend()
	_, url := serve(t, b)
	cs, err := connect(t, url, map[string]string{WorkspaceHeader: "/srv/work", ModeHeader: "acceptEdits"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := SessionRequest{Workspace: "/srv/work", PermissionMode: "acceptEdits", ClientName: "test-client", ClientVersion: "0.1"}
	if len(b.created) != 1 || b.created[0] != want {
		t.Fatalf("created = %+v", b.created)
	}

	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"Bash", "Read", "Write"}) || lt.Tools[1].Description != "Read a file." || lt.Tools[1].InputSchema == nil {
		t.Fatalf("tools = %v (%+v)", names, lt.Tools[1])
	}

	res, text := callText(t, cs, "Read", map[string]any{"file_path": "/srv/work/a.go"})
	if res.IsError || text != "contents of /srv/work/a.go in sess-1" {
		t.Fatalf("Read: %v %q", res.IsError, text)
	}
	if m, _ := res.Meta[MetaResult].(map[string]any); m["lines"] != 1.0 {
		t.Errorf("result meta = %v", res.Meta)
	}
	if b.useIDs[0] == "" || !strings.HasPrefix(b.useIDs[0], "toolu_") {
		t.Errorf("tool use id = %q", b.useIDs[0])
	}

	res, text = callText(t, cs, "Write", map[string]any{"file_path": "/srv/work/a.go"})
	if !res.IsError || !strings.Contains(text, "denied") || res.Meta[MetaErrorKind] != "permission_denied" {
		t.Fatalf("Write: %v %q %v", res.IsError, text, res.Meta)
	}

	res, text = callText(t, cs, "Bash", map[string]any{"command": "rm -rf build"})
	if !res.IsError || !strings.Contains(text, "cannot answer permission requests") {
		t.Fatalf("an ask without elicitation must be denied: %v %q", res.IsError, text)
	}

	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the created session to end", func() bool { return slices.Equal(b.endedSessions(), []string{"sess-1"}) })
}

func TestAsksGoToTheClientAsElicitation(t *testing.T) {
	b := newFakeBackend()
	_, url := serve(t, b)
	var mu sync.Mutex
	var asked []string
	answer := func(action string, content map[string]any) *sdk.ClientOptions {
		return &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, req.Params.Message)
			mu.Unlock()
			return &sdk.ElicitResult{Action: action, Content: content}, nil
		}}
	}

	allow, err := connect(t, url, nil, answer("accept", map[string]any{"decision": "allow_session"}))
	if err != nil {
		t.Fatal(err)
	}
	res, text := callText(t, allow, "Bash", map[string]any{"command": "rm -rf build"})
	if res.IsError || text != "ran rm -rf build (allowed for the session)" {
		t.Fatalf("allowed ask: %v %q", res.IsError, text)
	}
	if len(asked) != 1 || asked[0] != "Allow Bash: Run: rm -rf build? (rule Bash(rm *) asks)" {
		t.Fatalf("question = %q", asked)
	}

	deny, err := connect(t, url, nil, answer("accept", map[string]any{"decision": "deny", "reason": "not on Fridays"}))
	if err != nil {
		t.Fatal(err)
	}
	if res, text := callText(t, deny, "Bash", map[string]any{"command": "rm -rf /tmp/x"}); !res.IsError || text != "not on Fridays" {
		t.Fatalf("denied ask: %v %q", res.IsError, text)
	}

	decline, err := connect(t, url, nil, answer("decline", nil))
	if err != nil {
		t.Fatal(err)
	}
	if res, text := callText(t, decline, "Bash", map[string]any{"command": "rm x"}); !res.IsError || !strings.Contains(text, "declined") {
		t.Fatalf("declined ask: %v %q", res.IsError, text)
	}
}

func TestHeaderNamesAnExistingSession(t *testing.T) {
	b := newFakeBackend("existing")
	h, url := serve(t, b)
	if _, err := connect(t, url, map[string]string{SessionHeader: "nope"}, nil); err == nil || !strings.Contains(err.Error(), "no such session") {
		t.Fatalf("an unknown session must fail initialize, got %v", err)
	}
	if _, err := connect(t, url, map[string]string{WorkspaceHeader: "/forbidden"}, nil); err == nil || !strings.Contains(err.Error(), "outside the allowed root") {
		t.Fatalf("a refused session must fail initialize, got %v", err)
	}

	cs, err := connect(t, url, map[string]string{SessionHeader: "existing"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, text := callText(t, cs, "Read", map[string]any{"file_path": "/a"}); text != "contents of /a in existing" {
		t.Fatalf("Read = %q", text)
	}
	if len(b.created) != 0 {
		t.Fatalf("a session was created although the client named one: %+v", b.created)
	}
	// Close waits until every closed MCP session has been let go of.
	h.Close()
	if ended := b.endedSessions(); len(ended) != 0 {
		t.Fatalf("a session the client did not create was ended: %v", ended)
	}
}

func TestCloseEndsCreatedSessions(t *testing.T) {
	b := newFakeBackend()
	h, url := serve(t, b)
	if _, err := connect(t, url, nil, nil); err != nil { // closed by h.Close
		t.Fatal(err)
	}
	if _, err := connect(t, url, nil, nil); err != nil { // closed by h.Close
		t.Fatal(err)
	}
	h.Close()
	got := b.endedSessions()
	slices.Sort(got)
	if !slices.Equal(got, []string{"sess-1", "sess-2"}) {
		t.Fatalf("ended = %v", got)
	}
}
