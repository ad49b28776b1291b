package server_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// gateTool runs until the test opens its gate, whatever its client does,
// and counts its runs.
type gateTool struct {
	started chan struct{}
	gate    chan struct{}
	runs    atomic.Int32
}

func (g *gateTool) Definition() tool.Definition {
	return tool.Definition{Name: "Gate", Description: "waits for the test", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}
}
func (g *gateTool) Parse(json.RawMessage) (tool.Invocation, error) { return g, nil }
func (g *gateTool) Traits() tool.Traits                            { return tool.Traits{} }
func (g *gateTool) Activity() tool.Activity                        { return tool.Activity{Summary: "gate"} }
func (g *gateTool) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	g.runs.Add(1)
	env.Progress.Stdout([]byte("before"))
	close(g.started)
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	env.Progress.Stdout([]byte("after"))
	return tool.Text("opened"), nil
}

func TestRetryReplaysStoredEvents(t *testing.T) {
	e := start(t, memstore.New())
	s := e.newSession(t)
	req := &tooldv1.ExecuteRequest{SessionId: s.GetId(), Calls: []*tooldv1.ToolCall{{ToolUseId: "toolu_1", Name: "Echo", Input: input(t, map[string]any{"text": "hi"})}}}
	run := func() []*tooldv1.ExecuteEvent {
		stream, err := e.tools.Execute(ctx(t), req)
		if err != nil {
			t.Fatal(err)
		}
		evs, err := collect(t, stream)
		if err != nil {
			t.Fatal(err)
		}
		return evs
	}
	first, again := run(), run()
	if len(first) != len(again) || len(first) < 4 {
		t.Fatalf("first run %d events, retry %d", len(first), len(again))
	}
	for i := range first {
		if first[i].GetSeq() != int64(i+1) || first[i].GetReplayed() || !again[i].GetReplayed() {
			t.Fatalf("event %d: first seq %d replayed %v; retry replayed %v", i, first[i].GetSeq(), first[i].GetReplayed(), again[i].GetReplayed())
		}
		a, b := proto.Clone(first[i]).(*tooldv1.ExecuteEvent), proto.Clone(again[i]).(*tooldv1.ExecuteEvent)
		a.Replayed, b.Replayed = false, false
		if !proto.Equal(a, b) {
			t.Fatalf("event %d differs on replay:\n%v\n%v", i, a, b)
		}
	}

	// The same id for something else is a request error, and runs nothing.
	req.Calls[0].Input = input(t, map[string]any{"text": "other"})
	stream, err := e.tools.Execute(ctx(t), req)
	if err == nil {
		_, err = collect(t, stream)
	}
	wantCode(t, err, codes.InvalidArgument, "toolu_1")
}

func TestDetachedCallOutlivesItsClientAndAttachFollowsIt(t *testing.T) {
	g := &gateTool{started: make(chan struct{}), gate: make(chan struct{})}
	e := startWith(t, memstore.New(), policy.WorkspaceOnly{}, exec.AskConfig{}, g)
	s := e.newSession(t)
	c, cancel := context.WithCancel(ctx(t))
	stream, err := e.tools.Execute(c, &tooldv1.ExecuteRequest{SessionId: s.GetId(), Detached: true,
		Calls: []*tooldv1.ToolCall{{ToolUseId: "toolu_d", Name: "Gate"}}})
	if err != nil {
		t.Fatal(err)
	}
	<-g.started
	var seen int64
	for seen < 2 { // decision, started
		ev, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		seen = ev.GetSeq()
	}
	cancel() // the client goes away

	att, err := e.tools.Attach(ctx(t), &tooldv1.AttachRequest{SessionId: s.GetId(), ToolUseId: "toolu_d", AfterSeq: seen})
	if err != nil {
		t.Fatal(err)
	}
	first, err := att.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if first.GetSeq() != seen+1 || string(first.GetProgress().GetStdout()) != "before" {
		t.Fatalf("first attached event %v, want seq %d stdout before", first, seen+1)
	}
	close(g.gate)
	rest, err := collect(t, att)
	if err != nil {
		t.Fatal(err)
	}
	last := rest[len(rest)-1]
	if last.GetResult() == nil || last.GetResult().GetIsError() || last.GetResult().GetContent()[0].GetText().GetText() != "opened" {
		t.Fatalf("last attached event %v, want the call's result", last)
	}
	if g.runs.Load() != 1 {
		t.Fatalf("runs = %d", g.runs.Load())
	}
}

func TestAttachErrors(t *testing.T) {
	e := start(t, memstore.New())
	s := e.newSession(t)
	for _, tc := range []struct {
		req  *tooldv1.AttachRequest
		code codes.Code
		msg  string
	}{
		{&tooldv1.AttachRequest{SessionId: s.GetId(), ToolUseId: "nope"}, codes.NotFound, "nope"},
		{&tooldv1.AttachRequest{SessionId: s.GetId()}, codes.InvalidArgument, "tool_use_id"},
		{&tooldv1.AttachRequest{SessionId: s.GetId(), ToolUseId: "x", AfterSeq: -1}, codes.InvalidArgument, "after_seq"},
		{&tooldv1.AttachRequest{SessionId: "abcdefghijklmnopqrstuvwxyz", ToolUseId: "x"}, codes.NotFound, "not found"},
	} {
		stream, err := e.tools.Attach(ctx(t), tc.req)
		if err == nil {
			_, err = collect(t, stream)
		}
		wantCode(t, err, tc.code, tc.msg)
	}
}
