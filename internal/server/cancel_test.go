package server_test

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/toold/toold/internal/store/memstore"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// A detached call goes on when its stream is gone; Cancel stops it, its
// result is the cancelled one, and a second Cancel finds it finished.
func TestCancelStopsADetachedCall(t *testing.T) {
	e := start(t, memstore.New())
	s := e.newSession(t)
	stream, err := e.tools.Execute(ctx(t), &tooldv1.ExecuteRequest{SessionId: s.GetId(), Detached: true, Calls: []*tooldv1.ToolCall{{ToolUseId: "w", Name: "Wait"}}})
	if err != nil {
		t.Fatal(err)
	}
	for {
		ev, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if ev.GetStarted() != nil {
			break
		}
	}
	resp, err := e.tools.Cancel(ctx(t), &tooldv1.CancelRequest{SessionId: s.GetId(), ToolUseIds: []string{"w", "never"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.GetCalls(); len(got) != 2 || got[0].GetToolUseId() != "w" || got[0].GetState() != tooldv1.CancelState_CANCEL_STATE_CANCELLING ||
		got[1].GetState() != tooldv1.CancelState_CANCEL_STATE_NOT_STARTED {
		t.Fatalf("Cancel: %v", got)
	}
	var res *tooldv1.ToolResult
	for res == nil {
		ev, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		res = ev.GetResult()
	}
	if res.GetErrorKind() != tooldv1.ErrorKind_ERROR_KIND_CANCELLED {
		t.Fatalf("result %v, want CANCELLED", res)
	}
	resp, err = e.tools.Cancel(ctx(t), &tooldv1.CancelRequest{SessionId: s.GetId(), ToolUseIds: []string{"w"}})
	if err != nil || resp.GetCalls()[0].GetState() != tooldv1.CancelState_CANCEL_STATE_FINISHED {
		t.Fatalf("second Cancel: %v, %v", resp, err)
	}
}

func TestCancelRequestErrors(t *testing.T) {
	e := start(t, memstore.New())
	s := e.newSession(t)
	_, err := e.tools.Cancel(ctx(t), &tooldv1.CancelRequest{SessionId: s.GetId()})
	wantCode(t, err, codes.InvalidArgument, "tool_use_ids")
	_, err = e.tools.Cancel(ctx(t), &tooldv1.CancelRequest{SessionId: s.GetId(), ToolUseIds: []string{""}})
	wantCode(t, err, codes.InvalidArgument, "tool_use_ids")
	_, err = e.tools.Cancel(ctx(t), &tooldv1.CancelRequest{SessionId: s.GetId(), ToolUseIds: make([]string, 101)})
	wantCode(t, err, codes.InvalidArgument, "tool_use_ids")
	_, err = e.tools.Cancel(ctx(t), &tooldv1.CancelRequest{SessionId: strings.Repeat("b", 26), ToolUseIds: []string{"x"}})
	wantCode(t, err, codes.NotFound, "not found")
}
