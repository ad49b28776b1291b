package e2e

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fsServer is the reference MCP filesystem server that `make deps` installs
// from npm.
func fsServer(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("TOOLD_MCP_FS_SERVER")
	if bin == "" {
		bin = filepath.Join(repoRoot(t), ".deps", "node_modules", ".bin", "mcp-server-filesystem")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("the reference MCP filesystem server is missing (%v): run `make deps`, which installs it from npm", err)
	}
	return bin
}

// An MCP server from the operator's settings: its tools join each
// session's pool after the built-ins, are called through grpcurl with the
// same permission rules, and its state is listed.
func TestMCPServerToolsInThePool(t *testing.T) {
	bin := fsServer(t)
	settings := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(settings, []byte(`{"mcpServers": {"fs": {"command": "`+bin+`", "args": ["."]}},
		"permissions": {"deny": ["mcp__fs__write_file"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d := startToold(t, "--settings", settings, "--sandbox", "off")
	sid := createSession(t, ctx, d.addr)

	out, err := sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`"}' `+d.addr+` toold.v1.ToolService/ListTools`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mustContain(t, out, `"name": "mcp__fs__read_text_file"`, `"mcpServer": "fs"`, `"state": "connected"`, `"transport": "stdio"`)
	if strings.Index(out, `"name": "Write"`) > strings.Index(out, `"name": "mcp__fs__`) {
		t.Fatal("MCP tools are listed before the built-ins")
	}

	out, err = sh(t, ctx, `
grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "w", "name": "Write", "input": {"file_path": "note.txt", "content": "written by Write\n"}}]}' `+d.addr+` toold.v1.ToolService/Execute >/dev/null
grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [
  {"tool_use_id": "m1", "name": "mcp__fs__read_text_file", "input": {"path": "note.txt"}},
  {"tool_use_id": "m2", "name": "mcp__fs__write_file", "input": {"path": "evil.txt", "content": "x"}}]}' `+d.addr+` toold.v1.ToolService/Execute`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// A bare deny rule removes the tool, as Claude Code's
	// filterToolsByDenyRules does: it is not listed, and a call of it is
	// a call of a disabled tool.
	mustContain(t, out, "written by Write", "ERROR_KIND_UNKNOWN_TOOL",
		"No such tool available: mcp__fs__write_file. mcp__fs__write_file is disabled for this session, in subagents as well as here.")
	if _, err := os.Stat(filepath.Join(d.root, sid, "evil.txt")); err == nil {
		t.Fatal("a denied MCP call ran")
	}
	out, _ = sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`"}' `+d.addr+` toold.v1.ToolService/ListTools`)
	if strings.Contains(out, `"name": "mcp__fs__write_file"`) {
		t.Fatal("a tool a deny rule removes is listed")
	}
}

// ToolSearch finds a session's MCP tools when the session belongs to a
// tenant (authentication on): the catalog looks the session up as the
// caller, not as nobody. A tool a deny rule removes is not found.
func TestToolSearchFindsMCPToolsOfATenantsSession(t *testing.T) {
	bin := fsServer(t)
	settings := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(settings, []byte(`{"mcpServers": {"fs": {"command": "`+bin+`", "args": ["."]}},
		"permissions": {"deny": ["mcp__fs__write_file"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tokens := writeTokens(t, map[string]string{"team-a": "secret-a"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d := startToold(t, "--settings", settings, "--sandbox", "off", "--auth", "token", "--auth-tokens", tokens)
	a := `-H "authorization: Bearer secret-a"`
	out, err := sh(t, ctx, `grpcurl -plaintext `+a+` -d '{}' `+d.addr+` toold.v1.SessionService/CreateSession`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	sid := strings.TrimSpace(out[strings.Index(out, `"id": "`)+7:])
	sid = sid[:strings.Index(sid, `"`)]
	out, err = sh(t, ctx, `grpcurl -plaintext `+a+` -d '{"session_id": "`+sid+`", "calls": [
  {"tool_use_id": "s1", "name": "ToolSearch", "input": {"query": "mcp__fs", "max_results": 50}}]}' `+d.addr+` toold.v1.ToolService/Execute`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mustContain(t, out, "mcp__fs__read_text_file", "mcp__fs__list_directory")
	if strings.Contains(out, "mcp__fs__write_file") {
		t.Fatalf("ToolSearch found a tool a deny rule removes:\n%s", out)
	}
}

// toold's own MCP endpoint, driven by the SDK's client: initialize (a
// session is created for it), list tools, call one, and a call that is
// denied because the client cannot be asked.
func TestMCPEndpoint(t *testing.T) {
	mcpAddr := freeAddr(t)
	d := startToold(t, "--mcp-listen", mcpAddr, "--sandbox", "off")
	_ = d
	var cs *sdk.ClientSession
	deadline := time.Now().Add(20 * time.Second)
	for {
		c := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil)
		tr := &sdk.StreamableClientTransport{Endpoint: "http://" + mcpAddr + "/mcp",
			HTTPClient: &http.Client{Transport: modeHeader("default")}}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var err error
		cs, err = c.Connect(ctx, tr, nil)
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("connect to toold's MCP endpoint: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	defer cs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range list.Tools {
		names[tl.Name] = true
	}
	if !names["Read"] || !names["Bash"] {
		t.Fatalf("tools over MCP: %v", names)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "Glob", Arguments: map[string]any{"pattern": "*"}})
	if err != nil || res.IsError {
		t.Fatalf("Glob over MCP: %v %+v", err, res)
	}
	// In default mode a write asks; this client offers no elicitation, so
	// the ask is denied and nothing is written.
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "touch made-over-mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError {
		t.Fatalf("a call that must ask ran over an MCP client that cannot be asked: %+v", res)
	}
	matches, _ := filepath.Glob(filepath.Join(d.root, "*", "made-over-mcp"))
	if len(matches) != 0 {
		t.Fatalf("the denied command ran: %v", matches)
	}
}

type modeHeader string

func (m modeHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Toold-Permission-Mode", string(m))
	return http.DefaultTransport.RoundTrip(r)
}
