package server

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/tool"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// structToolResult is the tool_result block built as a Struct, as toold
// built it before it wrote the block's bytes itself.
func structToolResult(toolUseID string, r *tool.Result) *structpb.Struct {
	object := func(fields map[string]*structpb.Value) *structpb.Value {
		return structpb.NewStructValue(&structpb.Struct{Fields: fields})
	}
	api := make([]*structpb.Value, len(r.Content))
	for i, b := range r.Content {
		switch b.Type {
		case tool.BlockImage, tool.BlockDocument:
			typ := "image"
			if b.Type == tool.BlockDocument {
				typ = "document"
			}
			api[i] = object(map[string]*structpb.Value{
				"type": structpb.NewStringValue(typ),
				"source": object(map[string]*structpb.Value{
					"type":       structpb.NewStringValue("base64"),
					"media_type": structpb.NewStringValue(b.MediaType),
					"data":       structpb.NewStringValue(base64.StdEncoding.EncodeToString(b.Data)),
				}),
			})
		default:
			api[i] = object(map[string]*structpb.Value{
				"type": structpb.NewStringValue("text"),
				"text": structpb.NewStringValue(b.Text),
			})
		}
	}
	return &structpb.Struct{Fields: map[string]*structpb.Value{
		"type":        structpb.NewStringValue("tool_result"),
		"tool_use_id": structpb.NewStringValue(toolUseID),
		"content":     structpb.NewListValue(&structpb.ListValue{Values: api}),
		"is_error":    structpb.NewBoolValue(r.IsError),
	}}
}

// TestToolResultWire: the block written as bytes decodes to the Struct
// toold built before, for every kind of block, in every position of the
// event (a Result alone, an ExecuteEvent, a CallResponse).
func TestToolResultWire(t *testing.T) {
	long := strings.Repeat("line of text with ünïcödé and a tab\t\n", 4000) // lengths past one varint byte
	cases := map[string]*tool.Result{
		"text":        tool.Text("1\thello\n"),
		"empty text":  tool.Text(""),
		"long text":   tool.Text(long),
		"no content":  {},
		"error":       {IsError: true, Kind: tool.KindFailed, Content: []tool.Block{{Type: tool.BlockText, Text: "<tool_use_error>File does not exist.</tool_use_error>"}}},
		"image":       {Content: []tool.Block{{Type: tool.BlockImage, MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n...")}}},
		"document":    {Content: []tool.Block{{Type: tool.BlockDocument, MediaType: "application/pdf", Data: []byte("%PDF-1.7 " + long)}}},
		"mixed":       {Content: []tool.Block{{Type: tool.BlockText, Text: "a"}, {Type: tool.BlockImage, MediaType: "image/jpeg", Data: []byte{0xff, 0xd8}}, {Type: tool.BlockText, Text: "b"}}},
		"with meta":   {Content: []tool.Block{{Type: tool.BlockText, Text: "x"}}, Meta: map[string]any{"exit_code": 0, "truncated": true}},
		"with model":  {Content: []tool.Block{{Type: tool.BlockText, Text: "x"}}, ModelContext: []string{"hook says"}},
		"cancelled":   {IsError: true, Kind: tool.KindCancelled},
		"invalid in":  {IsError: true, Kind: tool.KindInvalidInput, Content: []tool.Block{{Type: tool.BlockText, Text: "InputValidationError"}}},
		"empty image": {Content: []tool.Block{{Type: tool.BlockImage}}},
	}
	for name, r := range cases {
		t.Run(name, func(t *testing.T) {
			id := "toolu_01ABC" + name
			o := &exec.Outcome{Result: r, Duration: 1500 * time.Millisecond}
			got := resultToProto(id, o)
			if got.GetToolResult() != nil {
				t.Fatal("tool_result is set as a field; it travels as bytes")
			}
			want := proto.Clone(got).(*tooldv1.ToolResult)
			want.ProtoReflect().SetUnknown(nil)
			want.ToolResult = structToolResult(id, r)

			ev := &tooldv1.ExecuteEvent{ToolUseId: id, Seq: 3, Event: &tooldv1.ExecuteEvent_Result{Result: got}}
			for what, m := range map[string]proto.Message{
				"result":   got,
				"event":    ev,
				"response": &tooldv1.CallResponse{Events: []*tooldv1.ExecuteEvent{ev, ev}},
			} {
				b, err := proto.Marshal(m)
				if err != nil {
					t.Fatal(err)
				}
				if n := proto.Size(m); n != len(b) {
					t.Errorf("%s: Size %d, marshalled %d bytes", what, n, len(b))
				}
				back := m.ProtoReflect().New().Interface()
				if err := proto.Unmarshal(b, back); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				var res *tooldv1.ToolResult
				switch x := back.(type) {
				case *tooldv1.ToolResult:
					res = x
				case *tooldv1.ExecuteEvent:
					res = x.GetResult()
				case *tooldv1.CallResponse:
					res = x.GetEvents()[1].GetResult()
				}
				if len(res.ProtoReflect().GetUnknown()) != 0 {
					t.Errorf("%s: unknown bytes left after decoding", what)
				}
				if !proto.Equal(res, want) {
					t.Errorf("%s: decoded\n%v\nwant\n%v", what, res, want)
				}
			}
		})
	}
}
