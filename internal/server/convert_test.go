package server

import (
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/tool"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// TestEventToProto: each kind of event converts to the message built
// field by field, once it has gone over the wire (the result's
// tool_result travels as bytes: TestToolResultWire).
func TestEventToProto(t *testing.T) {
	dec := policy.Decision{Behavior: policy.Ask, Reason: "r", Rule: "Bash(rm:*)", Source: "userSettings",
		Warnings: []string{"rm -rf"}, Parts: []policy.Part{{Command: "rm -rf x", Behavior: policy.Deny, Reason: "no", Rule: "Bash(rm:*)", Source: "s"}, {Command: "ls", Behavior: policy.Allow}}}
	text := &exec.Outcome{Result: tool.Text("1\tx\n"), Duration: 2 * time.Millisecond}
	multi := &exec.Outcome{Result: &tool.Result{IsError: true, Kind: tool.KindFailed, ModelContext: []string{"m"},
		Content: []tool.Block{{Type: tool.BlockText, Text: "a"}, {Type: tool.BlockImage, MediaType: "image/png", Data: []byte{1, 2}}}}}
	image := &exec.Outcome{Result: &tool.Result{Content: []tool.Block{{Type: tool.BlockImage, MediaType: "image/gif", Data: []byte("GIF89a")}}}}
	for name, tc := range map[string]struct {
		ev   exec.Event
		want *tooldv1.ExecuteEvent
	}{
		"decision": {exec.Event{ToolUseID: "t", Seq: 1, Decision: &dec}, &tooldv1.ExecuteEvent{ToolUseId: "t", Seq: 1,
			Event: &tooldv1.ExecuteEvent_Decision{Decision: &tooldv1.Decision{Behavior: tooldv1.Behavior_BEHAVIOR_ASK, Reason: "r",
				Rule: "Bash(rm:*)", Source: "userSettings", Warnings: []string{"rm -rf"}, Parts: []*tooldv1.PartDecision{
					{Command: "rm -rf x", Behavior: tooldv1.Behavior_BEHAVIOR_DENY, Reason: "no", Rule: "Bash(rm:*)", Source: "s"},
					{Command: "ls", Behavior: tooldv1.Behavior_BEHAVIOR_ALLOW}}}}}},
		"started": {exec.Event{ToolUseID: "t", Seq: 2, Replayed: true, Started: &exec.Started{Tool: "Grep", ReadOnly: true,
			Activity: tool.Activity{Summary: "Search", Search: true, Read: true, List: true}}}, &tooldv1.ExecuteEvent{ToolUseId: "t", Seq: 2, Replayed: true,
			Event: &tooldv1.ExecuteEvent_Started{Started: &tooldv1.ToolStarted{Name: "Grep", Summary: "Search", IsSearch: true, IsRead: true, IsList: true, ReadOnly: true}}}},
		"text result": {exec.Event{ToolUseID: "t", Seq: 3, Result: text}, &tooldv1.ExecuteEvent{ToolUseId: "t", Seq: 3,
			Event: &tooldv1.ExecuteEvent_Result{Result: &tooldv1.ToolResult{DurationMs: 2, ToolResult: structToolResult("t", text.Result),
				Content: []*tooldv1.ContentBlock{{Block: &tooldv1.ContentBlock_Text{Text: &tooldv1.TextBlock{Text: "1\tx\n"}}}}}}}},
		"two blocks": {exec.Event{ToolUseID: "t", Seq: 4, Result: multi}, &tooldv1.ExecuteEvent{ToolUseId: "t", Seq: 4,
			Event: &tooldv1.ExecuteEvent_Result{Result: &tooldv1.ToolResult{IsError: true, ErrorKind: tooldv1.ErrorKind_ERROR_KIND_FAILED,
				ModelContext: []string{"m"}, ToolResult: structToolResult("t", multi.Result), Content: []*tooldv1.ContentBlock{
					{Block: &tooldv1.ContentBlock_Text{Text: &tooldv1.TextBlock{Text: "a"}}},
					{Block: &tooldv1.ContentBlock_Image{Image: &tooldv1.ImageBlock{MediaType: "image/png", Data: []byte{1, 2}}}}}}}}},
		"image": {exec.Event{ToolUseID: "t", Seq: 5, Result: image}, &tooldv1.ExecuteEvent{ToolUseId: "t", Seq: 5,
			Event: &tooldv1.ExecuteEvent_Result{Result: &tooldv1.ToolResult{ToolResult: structToolResult("t", image.Result), Content: []*tooldv1.ContentBlock{
				{Block: &tooldv1.ContentBlock_Image{Image: &tooldv1.ImageBlock{MediaType: "image/gif", Data: []byte("GIF89a")}}}}}}}},
		"progress": {exec.Event{ToolUseID: "t", Seq: 6, Progress: &exec.Progress{Stream: exec.StreamStderr, Data: []byte("e")}}, &tooldv1.ExecuteEvent{ToolUseId: "t", Seq: 6,
			Event: &tooldv1.ExecuteEvent_Progress{Progress: &tooldv1.ToolProgress{Chunk: &tooldv1.ToolProgress_Stderr{Stderr: []byte("e")}}}}},
		"hook": {exec.Event{ToolUseID: "t", Seq: 7, Hook: &exec.HookRun{Event: "PreToolUse", Hook: "h", ExitCode: 2, Duration: time.Second}}, &tooldv1.ExecuteEvent{ToolUseId: "t", Seq: 7,
			Event: &tooldv1.ExecuteEvent_HookRun{HookRun: &tooldv1.HookRun{Event: "PreToolUse", Hook: "h", ExitCode: 2, DurationMs: 1000}}}},
	} {
		b, err := proto.Marshal(eventToProto(tc.ev))
		if err != nil {
			t.Fatal(err)
		}
		got := &tooldv1.ExecuteEvent{}
		if err := proto.Unmarshal(b, got); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(got, tc.want) {
			t.Errorf("%s:\n%v\nwant\n%v", name, got, tc.want)
		}
	}
}
