package server

import (
	"context"
	"fmt"

	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/tool"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// CompleteCall completes a delegated call on whichever replica it waits
// (see exec.Engine.CompleteCall).
func (s *ToolService) CompleteCall(ctx context.Context, req *tooldv1.CompleteCallRequest) (*tooldv1.CompleteCallResponse, error) {
	if err := session.CheckID(req.GetSessionId()); err != nil {
		return nil, ToStatus(ctx, s.log, err)
	}
	comp, err := s.completionFromProto(req)
	if err != nil {
		return nil, ToStatus(ctx, s.log, err)
	}
	if err := s.engine.CompleteCall(ctx, req.GetSessionId(), req.GetToolUseId(), comp); err != nil {
		return nil, ToStatus(ctx, s.log, err)
	}
	return &tooldv1.CompleteCallResponse{}, nil
}

// completionFromProto checks the mode as UpdateSession would (a mode the
// operator disabled is refused here, before anything is delivered).
func (s *ToolService) completionFromProto(req *tooldv1.CompleteCallRequest) (tool.Completion, error) {
	c := tool.Completion{
		IsError:  req.GetIsError(),
		Answers:  req.GetAnswers(),
		Notes:    req.GetNotes(),
		Approved: req.GetApproved(),
		Launched: req.GetLaunched(),
		Final:    req.GetFinal(),
		AgentID:  req.GetAgentId(),
	}
	switch {
	case c.Final && c.Launched:
		return c, &session.InvalidError{Msg: "final and launched: a call is launched once and reports once; give one of them"}
	case c.Final && c.AgentID == "":
		return c, &session.InvalidError{Msg: "agent_id: a final report names the background agent (the DelegatedCall's child_session_id)"}
	case !c.Final && c.AgentID != "":
		return c, &session.InvalidError{Msg: "agent_id is for a final report only"}
	}
	if t := req.GetText(); t != "" {
		c.Content = []tool.Block{{Type: tool.BlockText, Text: t}}
	}
	if u := req.GetUsage(); u != nil {
		c.Usage = &tool.AgentUsage{Tokens: u.GetTokens(), ToolUses: u.GetToolUses(), DurationMS: u.GetDurationMs()}
	}
	if req.GetMode() != tooldv1.PermissionMode_PERMISSION_MODE_UNSPECIFIED {
		mode, ok := modeFromProto(req.GetMode())
		if !ok || mode == "plan" {
			return c, &session.InvalidError{Msg: fmt.Sprintf("mode: %s is not a mode to leave plan mode for", req.GetMode())}
		}
		if err := s.sessions.CheckMode(mode); err != nil {
			return c, err
		}
		c.Mode = mode
	}
	return c, nil
}
