package server

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/store"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

func rulesFromProto(p *tooldv1.Permissions) store.RuleLists {
	return store.RuleLists{Allow: p.GetAllow(), Deny: p.GetDeny(), Ask: p.GetAsk()}
}

func (s *SessionService) UpdateSession(ctx context.Context, req *tooldv1.UpdateSessionRequest) (*tooldv1.UpdateSessionResponse, error) {
	ch := session.Change{Add: rulesFromProto(req.GetAddRules()), Remove: rulesFromProto(req.GetRemoveRules())}
	if req.GetMode() != tooldv1.PermissionMode_PERMISSION_MODE_UNSPECIFIED {
		mode, ok := modeFromProto(req.GetMode())
		if !ok {
			return nil, status.Errorf(codes.InvalidArgument, "mode: unknown value %d", req.GetMode())
		}
		ch.Mode = mode
	}
	sess, err := s.sessions.Update(ctx, req.GetSessionId(), ch)
	if err != nil {
		return nil, ToStatus(ctx, s.log, err)
	}
	return &tooldv1.UpdateSessionResponse{Session: sessionToProto(sess)}, nil
}

func (s *SessionService) ResolvePermission(ctx context.Context, req *tooldv1.ResolvePermissionRequest) (*tooldv1.ResolvePermissionResponse, error) {
	if err := session.CheckID(req.GetSessionId()); err != nil {
		return nil, ToStatus(ctx, s.log, err)
	}
	a := exec.Answer{
		Allow:      req.GetDecision() == tooldv1.PermissionDecision_PERMISSION_DECISION_ALLOW,
		ForSession: req.GetScope() == tooldv1.PermissionScope_PERMISSION_SCOPE_SESSION,
		Message:    req.GetMessage(),
	}
	if err := s.answers.Resolve(ctx, req.GetSessionId(), req.GetRequestId(), a); err != nil {
		return nil, ToStatus(ctx, s.log, err)
	}
	return &tooldv1.ResolvePermissionResponse{}, nil
}

func (s *ToolService) CheckPermission(ctx context.Context, req *tooldv1.CheckPermissionRequest) (*tooldv1.CheckPermissionResponse, error) {
	if err := session.CheckID(req.GetSessionId()); err != nil {
		return nil, ToStatus(ctx, s.log, err)
	}
	if err := s.checkCallLimits(req.GetCall(), "call"); err != nil {
		return nil, ToStatus(ctx, s.log, err)
	}
	dec, err := s.engine.CheckPermission(ctx, req.GetSessionId(), callFromProto(req.GetCall()))
	if err != nil {
		return nil, ToStatus(ctx, s.log, err)
	}
	return &tooldv1.CheckPermissionResponse{Decision: decisionToProto(&dec)}, nil
}
