package tooldv1_test

import (
	"errors"
	"strings"
	"testing"

	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// validate runs what the server's interceptors run: the annotations, then
// the message's own Validate method.
func validate(m proto.Message) error {
	if err := protovalidate.Validate(m); err != nil {
		return err
	}
	if v, ok := m.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}

func TestRequestValidation(t *testing.T) {
	call := func(id, name string) *tooldv1.ToolCall { return &tooldv1.ToolCall{ToolUseId: id, Name: name} }
	tests := []struct {
		name string
		msg  proto.Message
		want string // "" for valid; else what the error must contain (the field)
	}{
		{"create: empty is fine", &tooldv1.CreateSessionRequest{}, ""},
		{"create: absolute workspace", &tooldv1.CreateSessionRequest{Workspace: "/w", Permissions: &tooldv1.Permissions{Allow: []string{"Read"}, AdditionalDirectories: []string{"/d"}}}, ""},
		{"create: relative workspace", &tooldv1.CreateSessionRequest{Workspace: "rel"}, "workspace: must be an absolute path"},
		{"create: NUL in workspace", &tooldv1.CreateSessionRequest{Workspace: "/a\x00b"}, "workspace: contains a NUL byte"},
		{"create: unknown mode", &tooldv1.CreateSessionRequest{Mode: 99}, "mode:"},
		{"create: relative directory", &tooldv1.CreateSessionRequest{Permissions: &tooldv1.Permissions{AdditionalDirectories: []string{"/a", "b"}}}, "permissions.additional_directories[1]: must be an absolute path"},
		{"create: blank rule", &tooldv1.CreateSessionRequest{Permissions: &tooldv1.Permissions{Deny: []string{"Read", " \t"}}}, "permissions.deny[1]: empty rule"},
		{"get: no id", &tooldv1.GetSessionRequest{}, "session_id: value is required"},
		{"delete: no id", &tooldv1.DeleteSessionRequest{}, "session_id"},
		{"update: directories", &tooldv1.UpdateSessionRequest{SessionId: "s", AddRules: &tooldv1.Permissions{AdditionalDirectories: []string{"/d"}}}, "add_rules: additional_directories cannot be changed"},
		{"update: unknown mode", &tooldv1.UpdateSessionRequest{SessionId: "s", Mode: 42}, "mode:"},
		{"resolve: ok", &tooldv1.ResolvePermissionRequest{SessionId: "s", RequestId: "r", Decision: tooldv1.PermissionDecision_PERMISSION_DECISION_DENY}, ""},
		{"resolve: no decision", &tooldv1.ResolvePermissionRequest{SessionId: "s", RequestId: "r"}, "decision: PERMISSION_DECISION_ALLOW or PERMISSION_DECISION_DENY required"},
		{"resolve: no request id", &tooldv1.ResolvePermissionRequest{SessionId: "s", Decision: 1}, "request_id"},
		{"resolve: unknown scope", &tooldv1.ResolvePermissionRequest{SessionId: "s", RequestId: "r", Decision: 1, Scope: 7}, "scope:"},
		{"execute: ok", &tooldv1.ExecuteRequest{SessionId: "s", Calls: []*tooldv1.ToolCall{call("a", "Read"), call("b", "Read")}}, ""},
		{"execute: no calls", &tooldv1.ExecuteRequest{SessionId: "s"}, "calls: at least one call is required"},
		{"execute: no name", &tooldv1.ExecuteRequest{SessionId: "s", Calls: []*tooldv1.ToolCall{call("a", "Read"), call("b", "")}}, "calls[1].name: value is required"},
		{"execute: long id", &tooldv1.ExecuteRequest{SessionId: "s", Calls: []*tooldv1.ToolCall{call(strings.Repeat("x", 257), "Read")}}, "calls[0].tool_use_id"},
		{"execute: both inputs", &tooldv1.ExecuteRequest{SessionId: "s", Calls: []*tooldv1.ToolCall{{ToolUseId: "a", Name: "Read", Input: &structpb.Struct{}, InputJson: "{}"}}}, "calls[0]: set input or input_json, not both"},
		{"execute: no id", &tooldv1.ExecuteRequest{SessionId: "s", Calls: []*tooldv1.ToolCall{call("", "Read")}}, "calls[0].tool_use_id: required"},
		{"execute: duplicate id", &tooldv1.ExecuteRequest{SessionId: "s", Calls: []*tooldv1.ToolCall{call("a", "Read"), call("a", "Read")}}, `calls[1].tool_use_id: "a" appears more than once`},
		{"call: ok", &tooldv1.CallRequest{SessionId: "s", Calls: []*tooldv1.ToolCall{call("a", "Read")}}, ""},
		{"call: no session", &tooldv1.CallRequest{Calls: []*tooldv1.ToolCall{call("a", "Read")}}, "session_id: value is required"},
		{"call: no calls", &tooldv1.CallRequest{SessionId: "s"}, "calls: at least one call is required"},
		{"call: no id", &tooldv1.CallRequest{SessionId: "s", Calls: []*tooldv1.ToolCall{call("", "Read")}}, "calls[0].tool_use_id: required"},
		{"call: duplicate id", &tooldv1.CallRequest{SessionId: "s", Calls: []*tooldv1.ToolCall{call("a", "Read"), call("a", "Grep")}}, `calls[1].tool_use_id: "a" appears more than once`},
		{"attach: negative seq", &tooldv1.AttachRequest{SessionId: "s", ToolUseId: "a", AfterSeq: -1}, "after_seq"},
		{"attach: no id", &tooldv1.AttachRequest{SessionId: "s"}, "tool_use_id: value is required"},
		{"check: call without id is fine", &tooldv1.CheckPermissionRequest{SessionId: "s", Call: call("", "Read")}, ""},
		{"check: no call", &tooldv1.CheckPermissionRequest{SessionId: "s"}, "call: value is required"},
		{"check: no name", &tooldv1.CheckPermissionRequest{SessionId: "s", Call: call("", "")}, "call.name: value is required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := validate(tc.msg)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("valid request refused: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("invalid request accepted, want an error naming %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
			var verr *protovalidate.ValidationError
			if err != nil && errors.As(err, &verr) && len(verr.Violations) == 0 {
				t.Fatal("validation error without violations")
			}
		})
	}
}
