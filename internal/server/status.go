// Package server exposes the engine and the session manager over gRPC. It
// is the only package that knows gRPC: handlers translate messages, and
// ToStatus translates errors.
package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/strictjson"
)

// ToStatus maps a domain error to the gRPC status the client gets. It is
// the one place where that happens; errors that are already statuses pass
// through. An internal error is not described to the client: it is logged
// here, once, under a short id that the status message carries, so that
// an operator finds the error a client reports. A nil log logs to
// slog.Default.
func ToStatus(ctx context.Context, log *slog.Logger, err error) error {
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
	case errors.As(err, new(*exec.NeedsStreamError)):
		return status.Error(codes.FailedPrecondition, err.Error())
	case errors.Is(err, exec.ErrCallCompleted):
		return status.Error(codes.FailedPrecondition, err.Error())
	case errors.Is(err, exec.ErrNoPendingRequest), errors.Is(err, exec.ErrNoSuchCall), errors.Is(err, exec.ErrNoDelegatedCall):
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
		return internal(ctx, log, err)
	}
}

// internal logs err under a new id and returns the INTERNAL status naming
// that id.
func internal(ctx context.Context, log *slog.Logger, err error) error {
	if log == nil {
		log = slog.Default()
	}
	id := errorID()
	log.ErrorContext(ctx, "internal error", "error_id", id, "error", err)
	return internalStatus(id)
}

// internalStatus is the INTERNAL status of the error logged under id.
func internalStatus(id string) error {
	return status.Errorf(codes.Internal, "internal error (error id %s; the server log has the details under this id)", id)
}

// errorID is 8 random hex digits: short enough to read out, enough to
// tell apart the errors of a day's log.
func errorID() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
