package mcp

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func envOf(m map[string]string) LookupEnv {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestParseConfigClaudeCodeShape(t *testing.T) {
	doc := `{
	  "permissions": {"allow": ["Read"]},
	  "mcpServers": {
	    "github": {"type": "http", "url": "https://api.example.com/mcp/", "headers": {"Authorization": "Bearer ${GH_TOKEN}"}},
	    "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "${DIR:-.}"], "env": {"DEBUG": "1"}},
	    "my.db": {"type": "stdio", "command": "db-mcp"}
	  }
	}`
	cfg, err := ParseConfig([]byte(doc), "settings.json", ScopeOperator, envOf(map[string]string{"GH_TOKEN": "t0k"}))
	if err != nil {
		t.Fatal(err)
	}
	want := []ServerConfig{
		{Name: "fs", Prefix: "fs", Transport: Stdio, Scope: ScopeOperator, Command: "npx",
			Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "."}, Env: map[string]string{"DEBUG": "1"}},
		{Name: "github", Prefix: "github", Transport: HTTP, Scope: ScopeOperator, URL: "https://api.example.com/mcp/",
			Headers: map[string]string{"Authorization": "Bearer t0k"}},
		{Name: "my.db", Prefix: "my_db", Transport: Stdio, Scope: ScopeOperator, Command: "db-mcp"},
	}
	if !reflect.DeepEqual(cfg.Servers, want) {
		t.Fatalf("got  %+v\nwant %+v", cfg.Servers, want)
	}
}

func TestParseConfigErrorsNameThePath(t *testing.T) {
	tests := []struct{ doc, want string }{
		{`[]`, "must be a JSON object"},
		{`{"mcpservers": {}}`, `mcpservers: did you mean "mcpServers"?`},
		{`{"mcpServers": []}`, "mcpServers: must be an object of server names"},
		{`{"mcpServers": {"a": {}}}`, "mcpServers.a.command: required"},
		{`{"mcpServers": {"a": {"command": ""}}}`, "mcpServers.a.command: must not be empty"},
		{`{"mcpServers": {"a": {"command": "x", "args": ["ok", 2]}}}`, "mcpServers.a.args[1]: must be a string"},
		{`{"mcpServers": {"a": {"command": "x", "env": {"K": true}}}}`, "mcpServers.a.env.K: must be a string"},
		{`{"mcpServers": {"a": {"command": "x", "url": "http://h"}}}`, `mcpServers.a.type: a server with a url needs "type": "http"`},
		{`{"mcpServers": {"a": {"type": "http", "url": "ftp://h"}}}`, "mcpServers.a.url: must be an http:// or https:// URL"},
		{`{"mcpServers": {"a": {"type": "http", "url": "https://h", "oauth": {}}}}`, "mcpServers.a.oauth: unknown key for a http server"},
		{`{"mcpServers": {"a": {"type": "ws", "url": "wss://h"}}}`, `mcpServers.a.type: unsupported transport "ws"`},
		{`{"mcpServers": {"a": {"command": "${NOPE}"}}}`, "mcpServers.a.command: environment variable NOPE is not set"},
		{`{"mcpServers": {"a": {"command": "${1X}"}}}`, `"1X" is not a variable name`},
		{`{"mcpServers": {"a__b": {"command": "x"}}}`, `mcpServers.a__b: a server name may not contain "__"`},
		{`{"mcpServers": {"a.b": {"command": "x"}, "a_b": {"command": "y"}}}`, `servers "a.b" and "a_b" both become mcp__a_b__`},
	}
	for _, tc := range tests {
		_, err := ParseConfig([]byte(tc.doc), ".mcp.json", ScopeWorkspace, nil)
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), ".mcp.json: ") {
			t.Errorf("%s: err = %v, want %q", tc.doc, err, tc.want)
		}
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	if cfg, err := LoadWorkspace(dir, nil); err != nil || len(cfg.Servers) != 0 {
		t.Fatalf("a workspace without .mcp.json: %v %v", cfg, err)
	}
	if _, err := LoadFile(filepath.Join(dir, "settings.json"), ScopeOperator, nil, false); err == nil {
		t.Fatal("a missing operator file must be an error")
	}
	if err := os.Mkdir(filepath.Join(dir, WorkspaceFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadWorkspace(dir, nil); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a directory named .mcp.json: %v", err)
	}
}

func TestToolNamesAreNormalised(t *testing.T) {
	tests := []struct{ server, tool, want string }{
		{"github", "create_issue", "mcp__github__create_issue"},
		{"claude.ai Slack", "send message", "mcp__claude_ai_Slack__send_message"},
		{"db-1", "query:rows", "mcp__db-1__query_rows"},
	}
	for _, tc := range tests {
		if got := ToolName(tc.server, tc.tool); got != tc.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
}
