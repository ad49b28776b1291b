package server

import (
	"fmt"
	"strings"
	"testing"

	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// TestRequestValidatorAsGlobal: skipping the inputs changes no verdict:
// the requests protovalidate refuses, and how, are the same.
func TestRequestValidatorAsGlobal(t *testing.T) {
	in, err := structpb.NewStruct(map[string]any{
		"file_path": "/w/a.go", "nested": map[string]any{"list": []any{1, "two", nil, true, map[string]any{"deep": strings.Repeat("x", 300)}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	call := func(id, name string, input *structpb.Struct, inputJSON string) *tooldv1.ToolCall {
		return &tooldv1.ToolCall{ToolUseId: id, Name: name, Input: input, InputJson: inputJSON}
	}
	long := strings.Repeat("i", 257)
	reqs := []proto.Message{
		&tooldv1.ExecuteRequest{SessionId: "s", Calls: []*tooldv1.ToolCall{call("toolu_1", "Read", in, "")}},
		&tooldv1.ExecuteRequest{SessionId: "s", Calls: []*tooldv1.ToolCall{call("toolu_1", "Read", nil, `{"file_path":"/w/a"}`)}},
		&tooldv1.ExecuteRequest{SessionId: "", Calls: []*tooldv1.ToolCall{call("toolu_1", "Read", in, "")}},
		&tooldv1.ExecuteRequest{SessionId: "s"},
		&tooldv1.ExecuteRequest{SessionId: "s", Calls: []*tooldv1.ToolCall{call("toolu_1", "Read", in, `{"file_path":"/w/a"}`)}},
		&tooldv1.ExecuteRequest{SessionId: "s", Calls: []*tooldv1.ToolCall{call(long, "Read", in, "")}},
		&tooldv1.ExecuteRequest{SessionId: "s", Calls: []*tooldv1.ToolCall{call("toolu_1", "", in, "")}},
		&tooldv1.ExecuteRequest{SessionId: "s", Calls: []*tooldv1.ToolCall{call("toolu_1", "Read", in, ""), call(long, "", in, "x")}},
		&tooldv1.CallRequest{SessionId: "s", Calls: []*tooldv1.ToolCall{call("toolu_1", "Read", in, "")}},
		&tooldv1.CallRequest{SessionId: "s", Calls: []*tooldv1.ToolCall{call("toolu_1", "", &structpb.Struct{}, "{}")}},
		&tooldv1.CallRequest{},
		&tooldv1.AttachRequest{SessionId: "s", ToolUseId: "toolu_1", AfterSeq: -1},
		&tooldv1.CreateSessionRequest{},
	}
	refused := 0
	for i, req := range reqs {
		want := protovalidate.GlobalValidator.Validate(req)
		got := requestValidator{}.Validate(req)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("request %d (%T): %v, protovalidate says %v", i, req, got, want)
		}
		if want != nil {
			refused++
		}
	}
	if refused < 8 {
		t.Fatalf("only %d of the requests are refused: the cases test too little", refused)
	}
}

// BenchmarkValidateExecute: protovalidate of an Execute of one small Read,
// by the global validator and by requestValidator.
func BenchmarkValidateExecute(b *testing.B) {
	in, _ := structpb.NewStruct(map[string]any{"file_path": "/workspace/src/small.go", "offset": 10, "limit": 20})
	req := &tooldv1.ExecuteRequest{SessionId: "s", Calls: []*tooldv1.ToolCall{{ToolUseId: "toolu_1", Name: "Read", Input: in}}}
	for _, v := range []struct {
		name string
		v    protovalidate.Validator
	}{{"global", protovalidate.GlobalValidator}, {"request", requestValidator{}}} {
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := v.v.Validate(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
