package server_test

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/toold/toold/internal/store/memstore"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// nestedStruct is {"text":"x","x":{"a":{"a":...1}}} with levels objects
// in all (the outer one included), or lists when list is set.
func nestedStruct(levels int, list bool) *structpb.Struct {
	v := structpb.NewNumberValue(1)
	for range levels - 1 {
		if list {
			v = structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{v}})
		} else {
			v = structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"a": v}})
		}
	}
	return &structpb.Struct{Fields: map[string]*structpb.Value{"text": structpb.NewStringValue("x"), "x": v}}
}

// wideStruct is {"text":"x","x":[[],[],...]} with n values in all.
func wideStruct(n int) *structpb.Struct {
	vals := make([]*structpb.Value, n-3)
	for i := range vals {
		vals[i] = structpb.NewListValue(&structpb.ListValue{})
	}
	return &structpb.Struct{Fields: map[string]*structpb.Value{"text": structpb.NewStringValue("x"), "x": structpb.NewListValue(&structpb.ListValue{Values: vals})}}
}

func nestedJSON(levels int, open, close string) string {
	return `{"text":"x","x":` + strings.Repeat(open, levels-1) + "1" + strings.Repeat(close, levels-1) + "}"
}

// An input nested past the bound is a request error that names the field,
// whichever way it comes (Struct or JSON text, objects or arrays, closed
// or not), and no call of the request runs.
func TestInputNestedTooDeepIsInvalidArgument(t *testing.T) {
	e := start(t, memstore.New())
	s := e.newSession(t)
	tests := []struct {
		name string
		call *tooldv1.ToolCall
		msg  string
	}{
		{"struct objects", &tooldv1.ToolCall{Name: "Echo", Input: nestedStruct(513, false)}, "calls[1].input: arrays and objects nest more than 512 levels"},
		{"struct lists", &tooldv1.ToolCall{Name: "Echo", Input: nestedStruct(513, true)}, "calls[1].input: arrays and objects nest more than 512 levels"},
		{"json objects", &tooldv1.ToolCall{Name: "Echo", InputJson: nestedJSON(513, `{"a":`, "}")}, "calls[1].input_json: arrays and objects nest more than 512 levels"},
		{"json arrays", &tooldv1.ToolCall{Name: "Echo", InputJson: nestedJSON(513, "[", "]")}, "calls[1].input_json: arrays and objects nest more than 512 levels"},
		{"struct wide", &tooldv1.ToolCall{Name: "Echo", Input: wideStruct(100_001)}, "calls[1].input: the input holds more than 100000 values"},
		{"struct wide in a nested list", &tooldv1.ToolCall{Name: "Echo", Input: &structpb.Struct{Fields: map[string]*structpb.Value{"x": structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewStructValue(wideStruct(100_000))}})}}}, "calls[1].input: the input holds more than 100000 values"},
		{"json wide", &tooldv1.ToolCall{Name: "Echo", InputJson: `{"text":"x","x":[` + strings.Repeat("[],", 100_000) + `[]]}`}, "calls[1].input_json: the input holds more than 100000 values"},
		// Past protobuf's recursion limit, where grpc-go alone fails to
		// decode the request, as Internal.
		{"struct past protobuf's limit", &tooldv1.ToolCall{Name: "Echo", Input: nestedStruct(5000, false)}, "calls[1].input: arrays and objects nest more than 512 levels"},
		{"json unclosed", &tooldv1.ToolCall{Name: "Echo", InputJson: `{"text":"x","x":` + strings.Repeat("[", 2_000_000)}, "calls[1].input_json: arrays and objects nest more than 512 levels"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.call.ToolUseId = "deep"
			// The first call is fine, and does not run either.
			ok := &tooldv1.ToolCall{ToolUseId: "ok", Name: "Echo", InputJson: `{"text":"x"}`}
			stream, err := e.tools.Execute(ctx(t), &tooldv1.ExecuteRequest{SessionId: s.GetId(), Calls: []*tooldv1.ToolCall{ok, tc.call}})
			var events []*tooldv1.ExecuteEvent
			if err == nil {
				events, err = collect(t, stream)
			}
			wantCode(t, err, codes.InvalidArgument, tc.msg)
			if len(events) != 0 {
				t.Fatalf("events = %v", events)
			}
		})
	}
	// A unary request is decoded before any interceptor runs: the same.
	t.Run("check permission", func(t *testing.T) {
		_, err := e.tools.CheckPermission(ctx(t), &tooldv1.CheckPermissionRequest{SessionId: s.GetId(), Call: &tooldv1.ToolCall{Name: "Echo", InputJson: nestedJSON(600, "[", "]")}})
		wantCode(t, err, codes.InvalidArgument, "call.input_json: arrays and objects nest more than 512 levels")
		_, err = e.tools.CheckPermission(ctx(t), &tooldv1.CheckPermissionRequest{SessionId: s.GetId(), Call: &tooldv1.ToolCall{Name: "Echo", Input: nestedStruct(5000, true)}})
		wantCode(t, err, codes.InvalidArgument, "call.input: arrays and objects nest more than 512 levels")
		_, err = e.tools.CheckPermission(ctx(t), &tooldv1.CheckPermissionRequest{SessionId: s.GetId(), Call: &tooldv1.ToolCall{Name: "Echo", Input: wideStruct(100_001)}})
		wantCode(t, err, codes.InvalidArgument, "call.input: the input holds more than 100000 values")
	})
}

// At the bounds, the input goes through, to the schema and the tool.
func TestInputNestedAtTheBoundRuns(t *testing.T) {
	e := start(t, memstore.New())
	s := e.newSession(t)
	for _, c := range []*tooldv1.ToolCall{
		{ToolUseId: "a", Name: "Echo", Input: nestedStruct(512, false)},
		{ToolUseId: "b", Name: "Echo", InputJson: nestedJSON(512, "[", "]")},
		{ToolUseId: "c", Name: "Echo", Input: wideStruct(100_000)},
	} {
		stream, err := e.tools.Execute(ctx(t), &tooldv1.ExecuteRequest{SessionId: s.GetId(), Calls: []*tooldv1.ToolCall{c}})
		if err != nil {
			t.Fatal(err)
		}
		events, err := collect(t, stream)
		if err != nil {
			t.Fatal(err)
		}
		// Echo's schema has no "x": the schema, not the depth, refuses it.
		res := events[len(events)-1].GetResult()
		if !res.GetIsError() || !strings.Contains(res.GetContent()[0].GetText().GetText(), "An unexpected parameter `x` was provided") {
			t.Fatalf("%s: result %v", c.GetToolUseId(), res)
		}
	}
}
