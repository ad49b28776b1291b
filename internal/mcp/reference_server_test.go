package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/internal/tool/tooltest"
)

// TestReferenceFilesystemServer runs the reference filesystem server from
// the npm registry (@modelcontextprotocol/server-filesystem) when
// TOOLD_MCP_FS_SERVER names its executable, as the Makefile's
// installation leaves it: node_modules/.bin/mcp-server-filesystem.
func TestReferenceFilesystemServer(t *testing.T) {
	bin := os.Getenv("TOOLD_MCP_FS_SERVER")
	if bin == "" {
		t.Skip("TOOLD_MCP_FS_SERVER is not set")
	}
	sess := newSession(t, "s1")
	if err := os.WriteFile(filepath.Join(sess.Workspace, "hello.txt"), []byte("hello from the workspace\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig([]byte(`{"mcpServers":{"fs":{"command":"`+bin+`","args":["."]}}}`), "settings.json", ScopeOperator, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := newManager(t, Options{Operator: cfg})
	tools := m.Tools(context.Background(), sess)
	if st := stateOf(m, "s1", "fs"); st.State != StateConnected || st.Tools != len(tools) {
		t.Fatalf("state = %+v", st)
	}
	read := findTool(t, tools, "mcp__fs__read_text_file")
	inv, err := read.Parse([]byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if tr := inv.Traits(); !tr.ReadOnly || tr.Destructive {
		t.Errorf("read_text_file traits = %+v", tr)
	}
	if tr, _ := findTool(t, tools, "mcp__fs__write_file").Parse([]byte(`{}`)); tr.Traits().ReadOnly {
		t.Error("write_file must not be read-only")
	}
	res := mustCall(t, read, `{"path":"`+filepath.Join(sess.Workspace, "hello.txt")+`"}`)
	if res.IsError || tooltest.Text(res) != "hello from the workspace\n" {
		t.Fatalf("read = %+v", res)
	}
	// The server runs in the session's workspace and gets it as its root:
	// a path outside is refused by the server itself.
	res = mustCall(t, read, `{"path":"/etc/hostname"}`)
	if !res.IsError || !strings.Contains(tooltest.Text(res), "outside allowed directories") {
		t.Fatalf("outside the workspace = %+v", res)
	}
}
