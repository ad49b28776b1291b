package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/toold/toold/client"
	"github.com/toold/toold/internal/tooldtest"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
	"github.com/toold/toold/test/fakemessages"
)

func turn(t *testing.T, blocks ...any) fakemessages.Turn {
	t.Helper()
	var tr fakemessages.Turn
	for _, b := range blocks {
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		tr.Content = append(tr.Content, raw)
	}
	return tr
}

func bash(id, command string) map[string]any {
	return map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": command}}
}

const longScript = `echo ran >> count; for i in $(seq 1 30); do echo line$i; sleep 0.05; done`

func script(t *testing.T) []fakemessages.Turn {
	return []fakemessages.Turn{
		turn(t, map[string]any{"type": "text", "text": "Looking around."}, bash("toolu_01", "echo hello")),
		turn(t, bash("toolu_02", "touch approved && echo touched")),
		turn(t, bash("toolu_03", longScript)),
		turn(t, map[string]any{"type": "text", "text": "All done."}),
	}
}

// lastResults is the tool_result blocks of the last user message of a
// recorded request.
func lastResults(t *testing.T, req json.RawMessage) map[string]string {
	t.Helper()
	var r struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type      string `json:"type"`
				ToolUseID string `json:"tool_use_id"`
				IsError   bool   `json:"is_error"`
				Content   []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(req, &r); err != nil {
		t.Fatalf("%v: %s", err, req)
	}
	out := map[string]string{}
	for _, b := range r.Messages[len(r.Messages)-1].Content {
		if b.Type == "tool_result" {
			var s strings.Builder
			for _, c := range b.Content {
				s.WriteString(c.Text)
			}
			if b.IsError {
				s.WriteString(" [is_error]")
			}
			out[b.ToolUseID] = s.String()
		}
	}
	return out
}

// The loop against a real toold: one turn asks and the handler allows it,
// one turn's stream is cut in the middle of a long Bash call and resumed.
func TestAgentLoop(t *testing.T) {
	d := tooldtest.Start(t)
	proxy := tooldtest.NewProxy(t, d.Addr)
	fake := fakemessages.New(script(t))
	api := httptest.NewServer(fake)
	t.Cleanup(api.Close)
	tc, err := client.Dial(proxy.Addr, client.WithBackoff(client.Backoff{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond, Attempts: 50}))
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()

	var (
		mu    sync.Mutex
		out   strings.Builder
		cuts  int
		asked []string
	)
	h := &client.Handlers{
		Progress: func(id string, p *tooldv1.ToolProgress) {
			mu.Lock()
			defer mu.Unlock()
			if id != "toolu_03" {
				return
			}
			out.Write(p.GetStdout())
			if cuts == 0 && strings.Contains(out.String(), "line3\n") {
				cuts = proxy.Cut()
			}
		},
		Permission: func(_ context.Context, id string, req *tooldv1.PermissionRequest) client.Answer {
			asked = append(asked, id)
			return client.AllowOnce()
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ai := anthropic.NewClient(option.WithBaseURL(api.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	// A workspace of our own, which outlives the session, to count runs in.
	ws := filepath.Join(d.Root, "loop")
	if err := os.MkdirAll(ws, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(ws, 0o777) // the sandbox user writes here
	sreq := &tooldv1.CreateSessionRequest{
		Workspace:   ws,
		Mode:        tooldv1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS,
		Permissions: &tooldv1.Permissions{Ask: []string{"Bash(touch *)"}},
	}
	msg, err := agentLoop(ctx, ai, tc, "claude-sonnet-4-5", "Look around.", sreq, h)
	if err != nil {
		t.Fatal(err)
	}
	if msg.StopReason != anthropic.StopReasonEndTurn || msg.Content[0].Text != "All done." || !fake.Done() {
		t.Fatalf("final message: %+v", msg)
	}
	if len(asked) != 1 || asked[0] != "toolu_02" {
		t.Fatalf("asked: %v", asked)
	}
	if cuts == 0 {
		t.Fatal("the stream was not cut")
	}

	reqs := fake.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	if r := lastResults(t, reqs[1]); len(r) != 1 || !strings.Contains(r["toolu_01"], "hello") || strings.Contains(r["toolu_01"], "is_error") {
		t.Fatalf("turn 2 results: %v", r)
	}
	if r := lastResults(t, reqs[2]); len(r) != 1 || !strings.Contains(r["toolu_02"], "touched") || strings.Contains(r["toolu_02"], "is_error") {
		t.Fatalf("turn 3 results: %v", r)
	}
	var want []string
	for i := 1; i <= 30; i++ {
		want = append(want, "line"+itoa(i))
	}
	if r := lastResults(t, reqs[3]); len(r) != 1 || !strings.Contains(r["toolu_03"], strings.Join(want, "\n")) || strings.Contains(r["toolu_03"], "is_error") {
		t.Fatalf("turn 4 results: %v", r)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "count")); err != nil || string(b) != "ran\n" {
		t.Fatalf("the long call ran %q (%v), want once", b, err)
	}
}

// The built command against the fake's own binary, as the README runs it.
func TestAgentLoopCommand(t *testing.T) {
	d := tooldtest.Start(t)
	// The script the docs run by hand.
	scriptFile := filepath.Join(tooldtest.Root(), "examples", "go", "agentloop", "script.json")
	fakeBin := tooldtest.Build(t, "./test/fakemessages/cmd/fakemessages")
	loopBin := tooldtest.Build(t, "./examples/go/agentloop")
	fake := exec.Command(fakeBin, "--script", scriptFile, "--stdin-lifeline")
	stdin, _ := fake.StdinPipe()
	stdout, _ := fake.StdoutPipe()
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); fake.Process.Kill(); fake.Wait() })
	line := make([]byte, 256)
	n, _ := stdout.Read(line)
	url := strings.TrimSpace(strings.TrimPrefix(string(line[:n]), "listening on "))
	// The default session asks for Bash: --approve answers.
	cmd := exec.Command(loopBin, "--toold", d.Addr, "--base-url", url, "--approve", "Say hello.")
	got, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(got), "from-the-loop") || !strings.Contains(string(got), "tick 5\nwritten by the agent loop") || !strings.Contains(string(got), "Finished.") {
		t.Fatalf("%v\n%s", err, got)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
