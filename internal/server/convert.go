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

// The events every call has (its decision, its start, its result) are
// each allocated as one object: the event, its oneof wrapper and its
// message (and a result's single text block), instead of one allocation
// per level.
type (
	decisionEvent struct {
		ev  tooldv1.ExecuteEvent
		one tooldv1.ExecuteEvent_Decision
		msg tooldv1.Decision
	}
	startedEvent struct {
		ev  tooldv1.ExecuteEvent
		one tooldv1.ExecuteEvent_Started
		msg tooldv1.ToolStarted
	}
	resultEvent struct {
		ev  tooldv1.ExecuteEvent
		one tooldv1.ExecuteEvent_Result
		msg tooldv1.ToolResult
		// text is the block of a result of one text block.
		blocks [1]*tooldv1.ContentBlock
		block  tooldv1.ContentBlock
		textOf tooldv1.ContentBlock_Text
		text   tooldv1.TextBlock
	}
)

func eventToProto(ev exec.Event) *tooldv1.ExecuteEvent {
	switch {
	case ev.Decision != nil:
		e := &decisionEvent{}
		fillDecision(&e.msg, ev.Decision)
		e.one.Decision = &e.msg
		e.ev.Event = &e.one
		return withHeader(&e.ev, ev)
	case ev.Started != nil:
		e := &startedEvent{}
		a := ev.Started.Activity
		e.msg.Name, e.msg.Summary = ev.Started.Tool, a.Summary
		e.msg.IsSearch, e.msg.IsRead, e.msg.IsList, e.msg.ReadOnly = a.Search, a.Read, a.List, ev.Started.ReadOnly
		e.one.Started = &e.msg
		e.ev.Event = &e.one
		return withHeader(&e.ev, ev)
	case ev.Result != nil:
		e := &resultEvent{}
		e.fill(ev.ToolUseID, ev.Result)
		e.one.Result = &e.msg
		e.ev.Event = &e.one
		return withHeader(&e.ev, ev)
	}
	out := withHeader(&tooldv1.ExecuteEvent{}, ev)
	switch {
	case ev.PermissionRequest != nil:
		pr := ev.PermissionRequest
		in, _ := structpb.NewStruct(pr.Input)
		out.Event = &tooldv1.ExecuteEvent_PermissionRequest{PermissionRequest: &tooldv1.PermissionRequest{
			RequestId: pr.ID, ToolName: pr.Tool, Input: in,
			Decision: decisionToProto(&pr.Decision), SuggestedRules: pr.Decision.Suggestions,
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
	e := &resultEvent{}
	e.fill(toolUseID, o)
	return &e.msg
}

// withHeader sets what every event carries: its call, its number, and
// whether it was replayed.
func withHeader(out *tooldv1.ExecuteEvent, ev exec.Event) *tooldv1.ExecuteEvent {
	out.ToolUseId, out.Seq, out.Replayed = ev.ToolUseID, ev.Seq, ev.Replayed
	return out
}

// fill sets e.msg to the result o of call toolUseID.
func (e *resultEvent) fill(toolUseID string, o *exec.Outcome) {
	r := o.Result
	var blocks []*tooldv1.ContentBlock
	if len(r.Content) == 1 && r.Content[0].Type != tool.BlockImage && r.Content[0].Type != tool.BlockDocument {
		e.text.Text = r.Content[0].Text
		e.textOf.Text = &e.text
		e.block.Block = &e.textOf
		e.blocks[0] = &e.block
		blocks = e.blocks[:]
	} else {
		blocks = make([]*tooldv1.ContentBlock, len(r.Content))
		for i, b := range r.Content {
			blocks[i] = contentBlock(b)
		}
	}
	m := &e.msg
	m.IsError, m.ErrorKind, m.Content = r.IsError, kindToProto[r.Kind], blocks
	m.DurationMs, m.ModelContext = o.Duration.Milliseconds(), r.ModelContext
	// tool_result, already encoded (tool_result_wire.go).
	m.ProtoReflect().SetUnknown(toolResultUnknown(toolUseID, r))
	if len(r.Meta) > 0 {
		m.Metadata = metaToStruct(r.Meta)
	}
}

func contentBlock(b tool.Block) *tooldv1.ContentBlock {
	switch b.Type {
	case tool.BlockImage:
		return &tooldv1.ContentBlock{Block: &tooldv1.ContentBlock_Image{Image: &tooldv1.ImageBlock{MediaType: b.MediaType, Data: b.Data}}}
	case tool.BlockDocument:
		return &tooldv1.ContentBlock{Block: &tooldv1.ContentBlock_Document{Document: &tooldv1.DocumentBlock{MediaType: b.MediaType, Data: b.Data}}}
	}
	return &tooldv1.ContentBlock{Block: &tooldv1.ContentBlock_Text{Text: &tooldv1.TextBlock{Text: b.Text}}}
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
	out := &tooldv1.Decision{}
	fillDecision(out, d)
	return out
}

func fillDecision(out *tooldv1.Decision, d *policy.Decision) {
	out.Behavior, out.Reason, out.Rule, out.Source, out.Warnings = behaviorToProto[d.Behavior], d.Reason, d.Rule, d.Source, d.Warnings
	for _, p := range d.Parts {
		out.Parts = append(out.Parts, &tooldv1.PartDecision{
			Command: p.Command, Behavior: behaviorToProto[p.Behavior], Reason: p.Reason, Rule: p.Rule, Source: p.Source,
		})
	}
}
