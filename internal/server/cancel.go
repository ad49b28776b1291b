package server

import (
	"context"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/session"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// Cancel stops calls of a session by tool_use_id on whichever replica runs
// them (see exec.Engine.Cancel).
func (s *ToolService) Cancel(ctx context.Context, req *tooldv1.CancelRequest) (*tooldv1.CancelResponse, error) {
	if err := session.CheckID(req.GetSessionId()); err != nil {
		return nil, ToStatus(ctx, s.log, err)
	}
	states, err := s.engine.Cancel(ctx, req.GetSessionId(), req.GetToolUseIds())
	if err != nil {
		return nil, ToStatus(ctx, s.log, err)
	}
	out := &tooldv1.CancelResponse{Calls: make([]*tooldv1.CallCancellation, len(states))}
	for i, st := range states {
		out.Calls[i] = &tooldv1.CallCancellation{ToolUseId: req.GetToolUseIds()[i], State: cancelStateToProto(st)}
	}
	return out, nil
}

func cancelStateToProto(st exec.CancelState) tooldv1.CancelState {
	switch st {
	case exec.CancelRequested:
		return tooldv1.CancelState_CANCEL_STATE_CANCELLING
	case exec.CancelFinished:
		return tooldv1.CancelState_CANCEL_STATE_FINISHED
	case exec.CancelNotStarted:
		return tooldv1.CancelState_CANCEL_STATE_NOT_STARTED
	}
	return tooldv1.CancelState_CANCEL_STATE_UNSPECIFIED
}
