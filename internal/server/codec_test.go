package server

import (
	"strings"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/toold/toold/internal/strictjson"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

func roundTrip(t *testing.T, c limitCodec, in proto.Message, out proto.Message) {
	t.Helper()
	b, err := proto.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, out); err != nil {
		t.Fatal(err)
	}
}

// Within the limits, the codec decodes what protobuf decodes.
func TestLimitCodecWithinLimits(t *testing.T) {
	input, _ := structpb.NewStruct(map[string]any{"command": "ls", "n": 1, "l": []any{1, map[string]any{"a": []any{}}}, "o": map[string]any{}})
	req := &tooldv1.ExecuteRequest{SessionId: "s", Detached: true, Calls: []*tooldv1.ToolCall{
		{ToolUseId: "a", Name: "Bash", Input: input},
		{ToolUseId: "b", Name: "Bash", InputJson: `{"command":"ls"}`},
	}}
	var got tooldv1.ExecuteRequest
	roundTrip(t, newLimitCodec(strictjson.Limits{MaxDepth: 4, MaxValues: 9}), req, &got)
	if !proto.Equal(req, &got) || limitNote(&got) != nil {
		t.Fatalf("got %v, note %v", &got, limitNote(&got))
	}
}

// Over them, the offending call is left out and the note names it; the
// other calls are decoded (and the request is refused as a whole).
func TestLimitCodecOverLimits(t *testing.T) {
	deep := structpb.NewNumberValue(1)
	for range 4 {
		deep = structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{deep}})
	}
	wide := make([]any, 9)
	for _, tc := range []struct {
		input *structpb.Struct
		note  string
	}{
		{&structpb.Struct{Fields: map[string]*structpb.Value{"x": deep}}, "calls[1].input: arrays and objects nest more than 4 levels deep"},
		{mustStruct(t, map[string]any{"x": wide}), "calls[1].input: the input holds more than 9 values"},
	} {
		req := &tooldv1.ExecuteRequest{SessionId: "s", Calls: []*tooldv1.ToolCall{
			{ToolUseId: "a", Name: "Bash", InputJson: "{}"},
			{ToolUseId: "b", Name: "Bash", Input: tc.input},
			{ToolUseId: "c", Name: "Bash", InputJson: "{}"},
		}}
		var got tooldv1.ExecuteRequest
		roundTrip(t, newLimitCodec(strictjson.Limits{MaxDepth: 4, MaxValues: 9}), req, &got)
		err := limitNote(&got)
		if err == nil || !strings.Contains(err.Error(), tc.note) || len(got.GetCalls()) != 2 || got.GetCalls()[1].GetToolUseId() != "c" {
			t.Fatalf("note %v, calls %v", err, got.GetCalls())
		}
	}
}

func mustStruct(t *testing.T, m map[string]any) *structpb.Struct {
	s, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
