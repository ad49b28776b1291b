package server

import (
	"encoding/json"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

var modeToProto = map[string]tooldv1.PermissionMode{
	"default":           tooldv1.PermissionMode_PERMISSION_MODE_DEFAULT,
	"acceptEdits":       tooldv1.PermissionMode_PERMISSION_MODE_ACCEPT_EDITS,
	"plan":              tooldv1.PermissionMode_PERMISSION_MODE_PLAN,
	"bypassPermissions": tooldv1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS,
	"dontAsk":           tooldv1.PermissionMode_PERMISSION_MODE_DONT_ASK,
	"auto":              tooldv1.PermissionMode_PERMISSION_MODE_AUTO,
}

// modeFromProto maps a mode; unspecified is "", which lets the session
// manager apply the operator's default mode.
func modeFromProto(m tooldv1.PermissionMode) (string, bool) {
	if m == tooldv1.PermissionMode_PERMISSION_MODE_UNSPECIFIED {
		return "", true
	}
	for k, v := range modeToProto {
		if v == m {
			return k, true
		}
	}
	return "", false
}

func sessionToProto(s *store.Session) *tooldv1.Session {
	return &tooldv1.Session{
		Id:        s.ID,
		Workspace: s.Workspace,
		Mode:      modeToProto[s.Mode],
		Permissions: &tooldv1.Permissions{
			Allow:                 s.Allow,
			Deny:                  s.Deny,
			Ask:                   s.Ask,
			AdditionalDirectories: s.AdditionalDirs,
		},
		Cwd:                s.Cwd,
		CreateTime:         timestamppb.New(s.CreatedAt),
		SessionPermissions: rulesToProto(s.SessionRules),
		UserPermissions:    rulesToProto(s.User),
		Env:                s.Env,
	}
}

func rulesToProto(r store.RuleLists) *tooldv1.Permissions {
	return &tooldv1.Permissions{Allow: r.Allow, Deny: r.Deny, Ask: r.Ask}
}

var kindToProto = map[tool.ErrorKind]tooldv1.ErrorKind{
	tool.KindNone:             tooldv1.ErrorKind_ERROR_KIND_UNSPECIFIED,
	tool.KindInvalidInput:     tooldv1.ErrorKind_ERROR_KIND_INVALID_INPUT,
	tool.KindUnknownTool:      tooldv1.ErrorKind_ERROR_KIND_UNKNOWN_TOOL,
	tool.KindPermissionDenied: tooldv1.ErrorKind_ERROR_KIND_PERMISSION_DENIED,
	tool.KindTimeout:          tooldv1.ErrorKind_ERROR_KIND_TIMEOUT,
	tool.KindFailed:           tooldv1.ErrorKind_ERROR_KIND_FAILED,
	tool.KindCancelled:        tooldv1.ErrorKind_ERROR_KIND_CANCELLED,
	tool.KindInternal:         tooldv1.ErrorKind_ERROR_KIND_INTERNAL,
	tool.KindUnavailable:      tooldv1.ErrorKind_ERROR_KIND_UNAVAILABLE,
	tool.KindNotFound:         tooldv1.ErrorKind_ERROR_KIND_NOT_FOUND,
	tool.KindWrongType:        tooldv1.ErrorKind_ERROR_KIND_WRONG_TYPE,
	tool.KindNoMatch:          tooldv1.ErrorKind_ERROR_KIND_NO_MATCH,
	tool.KindNotUnique:        tooldv1.ErrorKind_ERROR_KIND_NOT_UNIQUE,
	tool.KindConflict:         tooldv1.ErrorKind_ERROR_KIND_CONFLICT,
}

func eventToProto(ev exec.Event) *tooldv1.ExecuteEvent {
	out := &tooldv1.ExecuteEvent{ToolUseId: ev.ToolUseID, Seq: ev.Seq, Replayed: ev.Replayed}
	switch {
	case ev.Decision != nil:
		out.Event = &tooldv1.ExecuteEvent_Decision{Decision: decisionToProto(ev.Decision)}
	case ev.PermissionRequest != nil:
		pr := ev.PermissionRequest
		in, _ := structpb.NewStruct(pr.Input)
		out.Event = &tooldv1.ExecuteEvent_PermissionRequest{PermissionRequest: &tooldv1.PermissionRequest{
			RequestId: pr.ID, ToolName: pr.Tool, Input: in,
			Decision: decisionToProto(&pr.Decision), SuggestedRules: pr.Decision.Suggestions,
		}}
	case ev.Started != nil:
		a := ev.Started.Activity
		out.Event = &tooldv1.ExecuteEvent_Started{Started: &tooldv1.ToolStarted{
			Name: ev.Started.Tool, Summary: a.Summary,
			IsSearch: a.Search, IsRead: a.Read, IsList: a.List, ReadOnly: ev.Started.ReadOnly,
		}}
	case ev.Progress != nil:
		p := &tooldv1.ToolProgress{}
		switch ev.Progress.Stream {
		case exec.StreamStdout:
			p.Chunk = &tooldv1.ToolProgress_Stdout{Stdout: ev.Progress.Data}
		case exec.StreamStderr:
			p.Chunk = &tooldv1.ToolProgress_Stderr{Stderr: ev.Progress.Data}
		default:
			p.Chunk = &tooldv1.ToolProgress_Message{Message: ev.Progress.Message}
		}
		out.Event = &tooldv1.ExecuteEvent_Progress{Progress: p}
	case ev.Result != nil:
		out.Event = &tooldv1.ExecuteEvent_Result{Result: resultToProto(ev.ToolUseID, ev.Result)}
	case ev.Delegation != nil:
		out.Event = &tooldv1.ExecuteEvent_DelegatedCall{DelegatedCall: delegationToProto(ev.Delegation)}
	case ev.Hook != nil:
		h := ev.Hook
		out.Event = &tooldv1.ExecuteEvent_HookRun{HookRun: &tooldv1.HookRun{
			Event: h.Event, Hook: h.Hook, Type: h.Type, Decision: h.Decision, Status: h.Status,
			Message: h.Message, ExitCode: int32(h.ExitCode), DurationMs: h.Duration.Milliseconds(),
		}}
	}
	return out
}

func resultToProto(toolUseID string, o *exec.Outcome) *tooldv1.ToolResult {
	r := o.Result
	blocks := make([]*tooldv1.ContentBlock, len(r.Content))
	for i, b := range r.Content {
		switch b.Type {
		case tool.BlockImage:
			blocks[i] = &tooldv1.ContentBlock{Block: &tooldv1.ContentBlock_Image{Image: &tooldv1.ImageBlock{MediaType: b.MediaType, Data: b.Data}}}
		case tool.BlockDocument:
			blocks[i] = &tooldv1.ContentBlock{Block: &tooldv1.ContentBlock_Document{Document: &tooldv1.DocumentBlock{MediaType: b.MediaType, Data: b.Data}}}
		default:
			blocks[i] = &tooldv1.ContentBlock{Block: &tooldv1.ContentBlock_Text{Text: &tooldv1.TextBlock{Text: b.Text}}}
		}
	}
	out := &tooldv1.ToolResult{
		IsError:      r.IsError,
		ErrorKind:    kindToProto[r.Kind],
		Content:      blocks,
		DurationMs:   o.Duration.Milliseconds(),
		ModelContext: r.ModelContext,
	}
	// tool_result, already encoded (tool_result_wire.go).
	out.ProtoReflect().SetUnknown(toolResultUnknown(toolUseID, r))
	if len(r.Meta) > 0 {
		out.Metadata = metaToStruct(r.Meta)
	}
	return out
}

// metaToStruct converts tool metadata; a value structpb cannot hold is
// passed through JSON rather than dropped.
func metaToStruct(m map[string]any) *structpb.Struct {
	if s, err := structpb.NewStruct(m); err == nil {
		return s
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	var generic map[string]any
	if json.Unmarshal(b, &generic) != nil {
		return nil
	}
	s, _ := structpb.NewStruct(generic)
	return s
}

var behaviorToProto = map[policy.Behavior]tooldv1.Behavior{
	policy.Allow: tooldv1.Behavior_BEHAVIOR_ALLOW,
	policy.Deny:  tooldv1.Behavior_BEHAVIOR_DENY,
	policy.Ask:   tooldv1.Behavior_BEHAVIOR_ASK,
}

func decisionToProto(d *policy.Decision) *tooldv1.Decision {
	out := &tooldv1.Decision{
		Behavior: behaviorToProto[d.Behavior], Reason: d.Reason, Rule: d.Rule, Source: d.Source, Warnings: d.Warnings,
	}
	for _, p := range d.Parts {
		out.Parts = append(out.Parts, &tooldv1.PartDecision{
			Command: p.Command, Behavior: behaviorToProto[p.Behavior], Reason: p.Reason, Rule: p.Rule, Source: p.Source,
		})
	}
	return out
}
