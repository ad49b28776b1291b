package server_test

import (
	"io"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/store/memstore"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

func echoCall(id, text string) *tooldv1.ToolCall {
	in, _ := structpb.NewStruct(map[string]any{"text": text})
	return &tooldv1.ToolCall{ToolUseId: id, Name: "Echo", Input: in}
}

// The unary Call answers with each call's events, in request order and
// without progress; a retry is answered from the journal.
func TestUnaryCall(t *testing.T) {
	e := start(t, memstore.New())
	sid := e.newSession(t).GetId()
	req := &tooldv1.CallRequest{SessionId: sid, Calls: []*tooldv1.ToolCall{echoCall("b", "two"), echoCall("a", "one")}}
	for round, replayed := range []bool{false, true} {
		resp, err := e.tools.Call(ctx(t), req)
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		results := map[string]string{}
		for _, ev := range resp.GetEvents() {
			if ev.GetProgress() != nil || ev.GetKeepalive() != nil {
				t.Fatalf("round %d: a %T event in a unary response", round, ev.GetEvent())
			}
			if ev.GetReplayed() != replayed {
				t.Fatalf("round %d: replayed = %v on %v", round, ev.GetReplayed(), ev)
			}
			if n := len(order); n == 0 || order[n-1] != ev.GetToolUseId() {
				order = append(order, ev.GetToolUseId())
			}
			if r := ev.GetResult(); r != nil {
				results[ev.GetToolUseId()] = r.GetContent()[0].GetText().GetText()
			}
		}
		if len(order) != 2 || order[0] != "b" || order[1] != "a" || results["b"] != "two" || results["a"] != "one" {
			t.Fatalf("round %d: calls in order %v, results %v", round, order, results)
		}
	}
	_, err := e.tools.Call(ctx(t), &tooldv1.CallRequest{SessionId: sid, Calls: []*tooldv1.ToolCall{echoCall("x", "1"), echoCall("x", "2")}})
	wantCode(t, err, codes.InvalidArgument, `calls[1].tool_use_id: "x" appears more than once`)
	_, err = e.tools.Call(ctx(t), &tooldv1.CallRequest{SessionId: "nosuch", Calls: []*tooldv1.ToolCall{echoCall("y", "1")}})
	wantCode(t, err, codes.InvalidArgument, "malformed")
}

// A call that would ask a person stops a unary Call with
// FAILED_PRECONDITION naming Execute; it and what follows did not run and
// were not journaled, so the same request on Execute replays the calls
// before it and runs the rest, in order.
func TestUnaryCallRefusesAsks(t *testing.T) {
	p := startPerm(t, exec.AskConfig{})
	calls := []*tooldv1.ToolCall{echoCall("e1", "first"), {ToolUseId: "t1", Name: "Touch"}, echoCall("e2", "after")}
	_, err := p.tools.Call(ctx(t), &tooldv1.CallRequest{SessionId: p.sid, Calls: calls})
	wantCode(t, err, codes.FailedPrecondition, "call t1 (Touch) would wait for a permission answer, which a unary Call cannot carry: send the request with Execute")
	if p.touch.runs.Load() != 0 {
		t.Fatal("the asking call ran")
	}
	stream, err := p.tools.Execute(ctx(t), &tooldv1.ExecuteRequest{SessionId: p.sid, Calls: calls})
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for {
		ev, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if pr := ev.GetPermissionRequest(); pr != nil {
			if err := p.resolve(t, pr.GetRequestId(), tooldv1.PermissionDecision_PERMISSION_DECISION_ALLOW, tooldv1.PermissionScope_PERMISSION_SCOPE_ONCE, ""); err != nil {
				t.Fatal(err)
			}
		}
		if ev.GetResult() != nil {
			if want := ev.GetToolUseId() == "e1"; ev.GetReplayed() != want {
				t.Fatalf("%s replayed = %v, want %v", ev.GetToolUseId(), ev.GetReplayed(), want)
			}
			seen = append(seen, ev.GetToolUseId())
		}
	}
	if len(seen) != 3 || seen[0] != "e1" || seen[1] != "t1" || seen[2] != "e2" || p.touch.runs.Load() != 1 {
		t.Fatalf("results %v, touch runs %d", seen, p.touch.runs.Load())
	}
}
