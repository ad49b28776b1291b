package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/internal/tool/tooltest"
)

// remoteServer is a streamable-HTTP MCP server that insists on a bearer
// token and counts the sessions opened with it.
func remoteServer(t *testing.T) (*sdk.Server, string, *atomic.Int32) {
	t.Helper()
	var sessions atomic.Int32
	srv := sdk.NewServer(&sdk.Implementation{Name: "remote", Version: "1"}, &sdk.ServerOptions{
		InitializedHandler: func(context.Context, *sdk.InitializedRequest) { sessions.Add(1) },
	})
	srv.AddTool(&sdk.Tool{Name: "search", InputSchema: objectSchema, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text("found: " + string(req.Params.Arguments)), nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t0k" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return srv, ts.URL, &sessions
}

func TestHTTPServerIsSharedBetweenSessions(t *testing.T) {
	srv, url, sessions := remoteServer(t)
	var mu sync.Mutex
	var changed []string
	cfg := ServerConfig{Name: "remote", Prefix: "remote", Transport: HTTP, URL: url, Headers: map[string]string{"Authorization": "Bearer t0k"}}
	m := newManager(t, Options{Operator: Config{Servers: []ServerConfig{cfg}}, OnChange: func(id string) {
		mu.Lock()
		changed = append(changed, id)
		mu.Unlock()
	}})
	m.Start()
	a := m.Tools(context.Background(), newSession(t, "a"))
	b := m.Tools(context.Background(), newSession(t, "b"))
	if !slices.Equal(names(a), []string{"mcp__remote__search"}) || !slices.Equal(names(b), names(a)) {
		t.Fatalf("tools: a %v, b %v", names(a), names(b))
	}
	if got := tooltest.Text(mustCall(t, findTool(t, b, "mcp__remote__search"), `{"text":"x"}`)); got != `found: {"text":"x"}` {
		t.Fatalf("call = %q", got)
	}
	if n := sessions.Load(); n != 1 {
		t.Fatalf("the remote server saw %d sessions; one shared session expected", n)
	}
	if st := stateOf(m, "a", "remote"); st.State != StateConnected || st.Scope != ScopeOperator || st.Transport != HTTP || st.Tools != 1 {
		t.Fatalf("state = %+v", st)
	}

	srv.AddTool(&sdk.Tool{Name: "fetch", InputSchema: objectSchema},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("fetched"), nil })
	eventually(t, "the added tool", func() bool {
		return slices.Equal(names(m.Tools(context.Background(), newSession(t, "a"))), []string{"mcp__remote__fetch", "mcp__remote__search"})
	})
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(changed, "") {
		t.Errorf("a shared server's change must be announced for every session, got %q", changed)
	}
}

func TestHTTPServerRejectingUsIsReported(t *testing.T) {
	_, url, _ := remoteServer(t)
	cfg := ServerConfig{Name: "remote", Prefix: "remote", Transport: HTTP, URL: url}
	m := newManager(t, Options{Operator: Config{Servers: []ServerConfig{cfg}}, MaxAttempts: 1})
	if tools := m.Tools(context.Background(), newSession(t, "a")); len(tools) != 0 {
		t.Fatalf("tools = %v", names(tools))
	}
	st := stateOf(m, "a", "remote")
	if st.State != StateFailed || !strings.Contains(st.LastError, "Unauthorized") {
		t.Fatalf("state = %+v", st)
	}
}
