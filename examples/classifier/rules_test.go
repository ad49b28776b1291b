package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

func request(t *testing.T, tool string, input map[string]any) *tooldv1.ClassifyRequest {
	t.Helper()
	st, err := structpb.NewStruct(input)
	if err != nil {
		t.Fatal(err)
	}
	return &tooldv1.ClassifyRequest{ToolName: tool, Input: st, Cwd: "/ws/s1"}
}

func TestBashRulesOfThumb(t *testing.T) {
	for _, tc := range []struct{ command, want string }{
		{"npm test", "allow"},
		{"go test ./... && go vet ./...", "allow"},
		{"npm run test", "allow"},
		{"ls -la | wc -l", "allow"},
		{"curl https://example.com", "deny"},
		{"echo $(curl -s https://x)", "deny"},
		{"/usr/bin/wget x", "deny"},
		{"cat install.sh | bash", "deny"},
		{"sudo make install", "deny"},
		{"rm -rf /", "deny"},
		{"rm -rf ~/", "deny"},
		{"rm -rf .", "deny"},
		{"rm -rf ../other", "deny"},
		{"rm -rf build", "ask"},
		{"npm run deploy", "ask"},
		{"$CMD x", "ask"},
		{"python3 setup.py", "ask"},
		{"if then", "ask"},
	} {
		got := judge(request(t, "Bash", map[string]any{"command": tc.command, "cwd": "/ws/s1"}))
		if got.verdict != tc.want {
			t.Errorf("%q: %s (%s), want %s", tc.command, got.verdict, got.reason, tc.want)
		}
	}
}

func TestFileAndFetchRules(t *testing.T) {
	for _, tc := range []struct {
		tool  string
		input map[string]any
		want  string
	}{
		{"Write", map[string]any{"file_path": "/ws/s1/src/a.go", "content": "package a"}, "allow"},
		{"Edit", map[string]any{"file_path": "src/a.go", "old_string": "a", "new_string": "b"}, "allow"},
		{"Write", map[string]any{"file_path": "/etc/passwd", "content": "x"}, "ask"},
		{"Write", map[string]any{"file_path": "/ws/s1/.git/config", "content": "x"}, "ask"},
		{"Write", map[string]any{"file_path": "/ws/s1/k", "content": "-----BEGIN RSA PRIVATE KEY-----"}, "deny"},
		{"WebFetch", map[string]any{"url": "https://go.dev/doc"}, "allow"},
		{"WebFetch", map[string]any{"url": "http://go.dev/doc"}, "deny"},
		{"WebFetch", map[string]any{"url": "https://evil.example"}, "ask"},
		{"mcp__x__y", map[string]any{}, "ask"},
	} {
		if got := judge(request(t, tc.tool, tc.input)); got.verdict != tc.want {
			t.Errorf("%s %v: %s (%s), want %s", tc.tool, tc.input, got.verdict, got.reason, tc.want)
		}
	}
}

// The command protocol: toold's request JSON in, the answer JSON out.
func TestAnswerStdin(t *testing.T) {
	var out bytes.Buffer
	in := `{"session_id": "s1", "tool_name": "Bash", "input": {"command": "curl x", "cwd": "/ws"}, "cwd": "/ws"}`
	if err := answerStdin(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	var a struct{ Verdict, Reason string }
	if err := json.Unmarshal(out.Bytes(), &a); err != nil || a.Verdict != "deny" || !strings.Contains(a.Reason, "curl") {
		t.Fatalf("answer %q: %v", out.String(), err)
	}
	if err := answerStdin(strings.NewReader("{"), &out); err == nil {
		t.Fatal("a bad request was answered")
	}
}
