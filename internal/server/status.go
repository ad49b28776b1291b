// Package server exposes the engine and the session manager over gRPC. It
// is the only package that knows gRPC: handlers translate messages, and
// ToStatus translates errors.
package server

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/strictjson"
)

// ToStatus maps a domain error to the gRPC status the client gets. It is
// the one place where that happens; errors that are already statuses pass
// through. Internal errors are not described to the client (the log has
// them).
func ToStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	var inv *session.InvalidError
	var chk *exec.CheckError
	var limit *strictjson.LimitError
	switch {
	case errors.As(err, &inv):
		return status.Error(codes.InvalidArgument, inv.Msg)
	case errors.As(err, &chk):
		return status.Error(codes.InvalidArgument, chk.Msg)
	case errors.As(err, &limit):
		return status.Error(codes.InvalidArgument, err.Error())
	case errors.Is(err, exec.ErrNoPendingRequest), errors.Is(err, exec.ErrNoSuchCall):
		return status.Error(codes.NotFound, err.Error())
	case errors.Is(err, store.ErrCallConflict):
		return status.Error(codes.InvalidArgument, err.Error())
	case errors.Is(err, store.ErrNotFound):
		return status.Error(codes.NotFound, err.Error())
	case errors.Is(err, store.ErrExists):
		return status.Error(codes.AlreadyExists, err.Error())
	case errors.Is(err, store.ErrUnavailable):
		return status.Error(codes.Unavailable, err.Error())
	case errors.Is(err, session.ErrTenantSettings):
		return status.Error(codes.FailedPrecondition, err.Error())
	case errors.Is(err, exec.ErrWorkspace):
		return status.Error(codes.FailedPrecondition, err.Error())
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, err.Error())
	default:
		return status.Error(codes.Internal, "internal error")
	}
}
