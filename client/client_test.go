package client_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toold/toold/client"
	"github.com/toold/toold/internal/tooldtest"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// bashSession is a session in which calls run without asking.
func bashSession(t *testing.T, c *client.Client) *tooldv1.Session {
	t.Helper()
	sess, err := c.CreateSession(ctx(t), &tooldv1.CreateSessionRequest{Mode: tooldv1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS})
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

func dial(t *testing.T, addr string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.Dial(addr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

type result struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id"`
	IsError   bool   `json:"is_error"`
	Content   []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

func parse(t *testing.T, raw json.RawMessage) []result {
	t.Helper()
	var rs []result
	if err := json.Unmarshal(raw, &rs); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	return rs
}

func (r result) text() string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// An assistant message's content goes in as the API gives it; the
// tool_result blocks come out in order, output streamed on the way.
func TestRunReturnsToolResultsInOrder(t *testing.T) {
	d := tooldtest.Start(t)
	c := dial(t, d.Addr)
	sess := bashSession(t, c)
	content := json.RawMessage(`[
		{"type":"text","text":"Let me look."},
		{"type":"tool_use","id":"toolu_a","name":"Bash","input":{"command":"echo alpha"}},
		{"type":"tool_use","id":"toolu_b","name":"Bash","input":{"command":"echo beta >&2; exit 3"}}]`)
	var out strings.Builder
	raw, err := c.Run(ctx(t), sess.GetId(), content, &client.Handlers{
		Progress: func(id string, p *tooldv1.ToolProgress) { out.Write(p.GetStdout()); out.Write(p.GetStderr()) },
	})
	if err != nil {
		t.Fatal(err)
	}
	rs := parse(t, raw)
	if len(rs) != 2 || rs[0].ToolUseID != "toolu_a" || rs[1].ToolUseID != "toolu_b" || rs[0].Type != "tool_result" {
		t.Fatalf("results: %s", raw)
	}
	if rs[0].IsError || !strings.Contains(rs[0].text(), "alpha") || !rs[1].IsError || !strings.Contains(rs[1].text(), "beta") {
		t.Fatalf("results: %s", raw)
	}
	if !strings.Contains(out.String(), "alpha") || !strings.Contains(out.String(), "beta") {
		t.Fatalf("progress: %q", out.String())
	}
	// No tool_use blocks: nothing to run, an empty array.
	raw, err = c.Run(ctx(t), sess.GetId(), json.RawMessage(`[{"type":"text","text":"done"}]`), nil)
	if err != nil || string(raw) != "[]" {
		t.Fatalf("%s %v", raw, err)
	}
	// A request error is an error, not a result.
	_, err = c.Run(ctx(t), "nosuchsession", content, nil)
	if status.Code(err) != codes.NotFound && status.Code(err) != codes.InvalidArgument {
		t.Fatalf("unknown session: %v", err)
	}
}

func TestToolsIsTheMessagesAPIArray(t *testing.T) {
	d := tooldtest.Start(t)
	c := dial(t, d.Addr)
	sess, err := c.CreateSession(ctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := c.Tools(ctx(t), sess.GetId())
	if err != nil {
		t.Fatal(err)
	}
	var tools []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &tools); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range tools {
		if len(tl) != 3 || tl["name"] == nil || tl["description"] == nil || tl["input_schema"] == nil {
			t.Fatalf("not a Messages API tool: %v", tl)
		}
		var n string
		json.Unmarshal(tl["name"], &n)
		names[n] = true
	}
	if !names["Bash"] || !names["Read"] {
		t.Fatalf("tools: %v", names)
	}
	// ToolDefinitions is the same array as Go values.
	defs, err := c.ToolDefinitions(ctx(t), sess.GetId())
	if err != nil {
		t.Fatal(err)
	}
	var want []client.Tool
	json.Unmarshal(raw, &want)
	if !reflect.DeepEqual(defs, want) || len(defs) != len(tools) {
		t.Fatalf("ToolDefinitions differs from Tools:\n%v\n%s", defs, raw)
	}
}

// A call that asks is answered by the handler; with no handler it is
// denied, and the model is told why.
func TestPermissionRequests(t *testing.T) {
	d := tooldtest.Start(t)
	c := dial(t, d.Addr)
	sess, err := c.CreateSession(ctx(t), &tooldv1.CreateSessionRequest{
		Mode:        tooldv1.PermissionMode_PERMISSION_MODE_DEFAULT,
		Permissions: &tooldv1.Permissions{Allow: []string{"Bash"}, Ask: []string{"Bash(touch *)"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	call := func(id, file string) json.RawMessage {
		return json.RawMessage(`[{"type":"tool_use","id":"` + id + `","name":"Bash","input":{"command":"touch ` + file + `"}}]`)
	}
	var asked []string
	raw, err := c.Run(ctx(t), sess.GetId(), call("toolu_ask1", "allowed"), &client.Handlers{
		Permission: func(_ context.Context, id string, req *tooldv1.PermissionRequest) client.Answer {
			asked = append(asked, id+" "+req.GetToolName()+" "+req.GetDecision().GetRule())
			return client.AllowOnce()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "toolu_ask1 Bash") || parse(t, raw)[0].IsError {
		t.Fatalf("asked %q, result %s", asked, raw)
	}
	if _, err := os.Stat(filepath.Join(sess.GetWorkspace(), "allowed")); err != nil {
		t.Fatal(err)
	}

	raw, err = c.Run(ctx(t), sess.GetId(), call("toolu_ask2", "denied"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := parse(t, raw)[0]; !r.IsError || !strings.Contains(r.text(), "no permission handler") {
		t.Fatalf("result without a handler: %s", raw)
	}
	if _, err := os.Stat(filepath.Join(sess.GetWorkspace(), "denied")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the denied call ran: %v", err)
	}

	raw, err = c.Run(ctx(t), sess.GetId(), call("toolu_ask3", "denied"), &client.Handlers{
		Permission: func(context.Context, string, *tooldv1.PermissionRequest) client.Answer {
			return client.Deny("not on Fridays")
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := parse(t, raw)[0]; !r.IsError || !strings.Contains(r.text(), "not on Fridays") {
		t.Fatalf("result of a denial: %s", raw)
	}
}

// The connection is cut in the middle of a long Bash call: the call runs
// once and the client gets its whole output, each chunk once.
func TestDroppedConnectionResumes(t *testing.T) {
	d := tooldtest.Start(t)
	p := tooldtest.NewProxy(t, d.Addr)
	c := dial(t, p.Addr, client.WithBackoff(client.Backoff{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond, Attempts: 50}))
	sess := bashSession(t, c)
	script := `echo ran >> count; for i in $(seq 1 30); do echo line$i; sleep 0.05; done`
	content, _ := json.Marshal([]map[string]any{{"type": "tool_use", "id": "toolu_long", "name": "Bash", "input": map[string]any{"command": script}}})
	var (
		mu   sync.Mutex
		out  strings.Builder
		cuts int
	)
	raw, err := c.Run(ctx(t), sess.GetId(), content, &client.Handlers{
		Progress: func(_ string, pr *tooldv1.ToolProgress) {
			mu.Lock()
			defer mu.Unlock()
			out.Write(pr.GetStdout())
			if cuts == 0 && strings.Contains(out.String(), "line3\n") {
				cuts = p.Cut()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if cuts == 0 {
		t.Fatalf("the connection was not cut; progress %q, result %s", out.String(), raw)
	}
	var want strings.Builder
	for i := 1; i <= 30; i++ {
		want.WriteString("line" + itoa(i) + "\n")
	}
	r := parse(t, raw)[0]
	if r.IsError || !strings.Contains(r.text(), strings.TrimSpace(want.String())) {
		t.Fatalf("result: %s", raw)
	}
	if out.String() != want.String() {
		t.Fatalf("progress, each chunk once:\n%q\nwant\n%q", out.String(), want.String())
	}
	b, err := os.ReadFile(filepath.Join(sess.GetWorkspace(), "count"))
	if err != nil || string(b) != "ran\n" {
		t.Fatalf("the call ran %q times (%v)", b, err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// Cancelling the context of an attached run stops it at once with the
// context's error.
func TestCancelStopsRun(t *testing.T) {
	d := tooldtest.Start(t)
	c := dial(t, d.Addr, client.WithAttachedCalls())
	sess := bashSession(t, c)
	cctx, cancel := context.WithCancel(ctx(t))
	_, err := c.Run(cctx, sess.GetId(), json.RawMessage(`[{"type":"tool_use","id":"toolu_sleep","name":"Bash","input":{"command":"echo started; sleep 600"}}]`), &client.Handlers{
		Progress: func(string, *tooldv1.ToolProgress) { cancel() },
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

// Cancelling the context of a detached run (the default) cancels its
// calls in toold: the sleep is killed, and the call's journaled result,
// which Attach returns, is the cancelled one.
func TestCancelKillsDetachedCall(t *testing.T) {
	d := tooldtest.Start(t)
	c := dial(t, d.Addr)
	sess := bashSession(t, c)
	marker := filepath.Join(t.TempDir(), "slept")
	cctx, cancel := context.WithCancel(ctx(t))
	_, err := c.Run(cctx, sess.GetId(), json.RawMessage(`[{"type":"tool_use","id":"toolu_sleep","name":"Bash","input":{"command":"echo started; sleep 600; touch `+marker+`"}}]`), &client.Handlers{
		Progress: func(string, *tooldv1.ToolProgress) { cancel() },
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	// The call was cancelled, not left running: following it ends.
	block, err := c.Attach(ctx(t), sess.GetId(), "toolu_sleep", nil)
	if err != nil {
		t.Fatal(err)
	}
	var r result
	if err := json.Unmarshal(block, &r); err != nil {
		t.Fatal(err)
	}
	if !r.IsError || r.text() != "The call was cancelled before it finished." {
		t.Fatalf("result %s, want the cancelled result", block)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran to its end")
	}
	// Cancelling again is harmless: the call has its result.
	calls, err := c.Cancel(ctx(t), sess.GetId(), "toolu_sleep")
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0].GetState() != tooldv1.CancelState_CANCEL_STATE_FINISHED {
		t.Fatalf("second Cancel: %v", calls)
	}
}

// The bearer token goes with every call.
func TestBearerToken(t *testing.T) {
	sum := sha256.Sum256([]byte("s3cret"))
	file := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(file, []byte("acme "+hex.EncodeToString(sum[:])+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := tooldtest.Start(t, "--auth", "token", "--auth-tokens", file)
	if _, err := dial(t, d.Addr).CreateSession(ctx(t), nil); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("without a token: %v", err)
	}
	c := dial(t, d.Addr, client.WithToken("s3cret"))
	sess, err := c.CreateSession(ctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetSession(ctx(t), sess.GetId()); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteSession(ctx(t), sess.GetId()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetSession(ctx(t), sess.GetId()); status.Code(err) != codes.NotFound {
		t.Fatalf("after delete: %v", err)
	}
}

// toold is out of reach when Run starts: Run retries until it answers, and
// the call runs once.
func TestUnavailableAtStartIsRetried(t *testing.T) {
	d := tooldtest.Start(t)
	p := tooldtest.NewProxy(t, d.Addr)
	c := dial(t, p.Addr, client.WithBackoff(client.Backoff{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond, Attempts: 50}))
	sess := bashSession(t, c)
	p.Cut()
	refused := p.Down()
	go func() { <-refused; p.Up() }()
	raw, err := c.Run(ctx(t), sess.GetId(), json.RawMessage(`[{"type":"tool_use","id":"toolu_late","name":"Bash","input":{"command":"echo x >> count; echo late"}}]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := parse(t, raw)[0]; r.IsError || !strings.Contains(r.text(), "late") {
		t.Fatalf("result: %s", raw)
	}
	if b, _ := os.ReadFile(filepath.Join(sess.GetWorkspace(), "count")); string(b) != "x\n" {
		t.Fatalf("ran %q", b)
	}
}

// The connection drops while the person decides: the answer still reaches
// toold, the request is not asked again on the resumed stream, and the
// call runs once.
func TestDropWhileAsking(t *testing.T) {
	d := tooldtest.Start(t)
	p := tooldtest.NewProxy(t, d.Addr)
	c := dial(t, p.Addr, client.WithBackoff(client.Backoff{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond, Attempts: 50}))
	sess, err := c.CreateSession(ctx(t), &tooldv1.CreateSessionRequest{
		Mode:        tooldv1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS,
		Permissions: &tooldv1.Permissions{Ask: []string{"Bash(touch *)"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	raw, err := c.Run(ctx(t), sess.GetId(), json.RawMessage(`[{"type":"tool_use","id":"toolu_q","name":"Bash","input":{"command":"touch a && echo y >> count && echo asked-and-ran"}}]`), &client.Handlers{
		Permission: func(context.Context, string, *tooldv1.PermissionRequest) client.Answer {
			asked++
			if p.Cut() == 0 {
				t.Error("nothing to cut")
			}
			return client.AllowOnce()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := parse(t, raw)[0]; asked != 1 || r.IsError || !strings.Contains(r.text(), "asked-and-ran") {
		t.Fatalf("asked %d times, result %s", asked, raw)
	}
	if b, _ := os.ReadFile(filepath.Join(sess.GetWorkspace(), "count")); string(b) != "y\n" {
		t.Fatalf("ran %q", b)
	}
}
