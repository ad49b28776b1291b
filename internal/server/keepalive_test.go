package server_test

import (
	"context"
	"encoding/json"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/server"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// silentTool prints nothing until the test releases it, like a command
// that sleeps.
type silentTool struct {
	once    sync.Once
	started chan struct{}
	release chan struct{}
}

func newSilentTool() *silentTool {
	return &silentTool{started: make(chan struct{}), release: make(chan struct{})}
}

func (s *silentTool) Definition() tool.Definition {
	return tool.Definition{Name: "Silent", Description: "waits silently", InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{}}`)}
}
func (s *silentTool) Parse(json.RawMessage) (tool.Invocation, error) { return s, nil }
func (s *silentTool) Traits() tool.Traits                            { return tool.Traits{} }
func (s *silentTool) Activity() tool.Activity                        { return tool.Activity{Summary: "silent"} }
func (s *silentTool) Run(ctx context.Context, _ *tool.Env) (*tool.Result, error) {
	s.once.Do(func() { close(s.started) })
	select {
	case <-s.release:
		return tool.Text("done"), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// recvKeepalives reads the stream until it has seen n keepalives, and
// checks that they carry no call and no seq.
func recvKeepalives(t *testing.T, s interface {
	Recv() (*tooldv1.ExecuteEvent, error)
}, n int) {
	t.Helper()
	for seen := 0; seen < n; {
		ev, err := s.Recv()
		if err != nil {
			t.Fatalf("stream ended after %d keepalives: %v", seen, err)
		}
		if ev.GetKeepalive() == nil {
			continue
		}
		if ev.GetToolUseId() != "" || ev.GetSeq() != 0 || ev.GetReplayed() {
			t.Fatalf("keepalive carries call facts: %v", ev)
		}
		seen++
	}
}

// recvToEnd reads the stream's remaining events up to its end: the result
// must come, and no keepalive after it.
func recvToEnd(t *testing.T, s interface {
	Recv() (*tooldv1.ExecuteEvent, error)
}) {
	t.Helper()
	var result bool
	for {
		ev, err := s.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case ev.GetResult() != nil:
			if ev.GetResult().GetIsError() {
				t.Fatalf("result: %v", ev.GetResult())
			}
			result = true
		case ev.GetKeepalive() != nil && result:
			t.Fatal("a keepalive followed the result")
		}
	}
	if !result {
		t.Fatal("the stream ended without the result")
	}
}

// A call that sends nothing for a while gets keepalives on its Execute
// stream, and on an Attach stream that follows it; they stop with the
// result. Neither stream's journal has them: a replay holds none.
func TestSilentCallGetsKeepalives(t *testing.T) {
	silent := newSilentTool()
	e := startServer(t, server.Options{StreamKeepalive: 5 * time.Millisecond}, memstore.New(), policy.WorkspaceOnly{}, exec.AskConfig{}, silent)
	sid := e.newSession(t).GetId()
	ex, err := e.tools.Execute(ctx(t), &tooldv1.ExecuteRequest{SessionId: sid, Calls: []*tooldv1.ToolCall{{ToolUseId: "s1", Name: "Silent"}}})
	if err != nil {
		t.Fatal(err)
	}
	recvKeepalives(t, ex, 3)
	at, err := e.tools.Attach(ctx(t), &tooldv1.AttachRequest{SessionId: sid, ToolUseId: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	recvKeepalives(t, at, 3)
	close(silent.release)
	recvToEnd(t, ex)
	recvToEnd(t, at)

	// The stored events, replayed, hold no keepalive.
	re, err := e.tools.Attach(ctx(t), &tooldv1.AttachRequest{SessionId: sid, ToolUseId: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	for {
		ev, err := re.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.GetKeepalive() != nil {
			t.Fatal("a keepalive was journaled and replayed")
		}
	}
}
