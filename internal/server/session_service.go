package server

import (
	"context"
	"log/slog"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/session"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// SessionService implements toold.v1.SessionService.
type SessionService struct {
	tooldv1.UnimplementedSessionServiceServer
	sessions *session.Manager
	answers  Resolver
	log      *slog.Logger // set by New
}

// Resolver delivers answers to pending permission requests (the engine).
type Resolver interface {
	Resolve(ctx context.Context, sessionID, requestID string, a exec.Answer) error
}

// NewSessionService serves the manager's sessions; answers reach waiting
// calls through r.
func NewSessionService(m *session.Manager, r Resolver) *SessionService {
	return &SessionService{sessions: m, answers: r}
}

func (s *SessionService) CreateSession(ctx context.Context, req *tooldv1.CreateSessionRequest) (*tooldv1.CreateSessionResponse, error) {
	mode, ok := modeFromProto(req.GetMode())
	if !ok {
		return nil, status.Errorf(codes.InvalidArgument, "mode: unknown value %d", req.GetMode())
	}
	p := req.GetPermissions()
	sess, err := s.sessions.Create(ctx, session.Spec{
		Workspace:      req.GetWorkspace(),
		Mode:           mode,
		Allow:          p.GetAllow(),
		Deny:           p.GetDeny(),
		Ask:            p.GetAsk(),
		AdditionalDirs: p.GetAdditionalDirectories(),
		User:           rulesFromProto(req.GetUserPermissions()),
		Env:            req.GetEnv(),
	})
	if err != nil {
		return nil, ToStatus(ctx, s.log, err)
	}
	warnings := s.sessions.RuleWarnings(sess)
	for _, w := range warnings {
		if s.log != nil {
			s.log.Warn("permission rule ignored", "session_id", sess.ID, "warning", w)
		}
	}
	return &tooldv1.CreateSessionResponse{Session: sessionToProto(sess), Warnings: warnings}, nil
}

func (s *SessionService) GetSession(ctx context.Context, req *tooldv1.GetSessionRequest) (*tooldv1.GetSessionResponse, error) {
	sess, err := s.sessions.Get(ctx, req.GetSessionId())
	if err != nil {
		return nil, ToStatus(ctx, s.log, err)
	}
	return &tooldv1.GetSessionResponse{Session: sessionToProto(sess)}, nil
}

func (s *SessionService) DeleteSession(ctx context.Context, req *tooldv1.DeleteSessionRequest) (*tooldv1.DeleteSessionResponse, error) {
	if err := s.sessions.Delete(ctx, req.GetSessionId()); err != nil {
		return nil, ToStatus(ctx, s.log, err)
	}
	return &tooldv1.DeleteSessionResponse{}, nil
}
