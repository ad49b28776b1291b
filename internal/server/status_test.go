package server

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/strictjson"
)

func TestToStatus(t *testing.T) {
	tests := []struct {
		err  error
		code codes.Code
		msg  string
	}{
		{nil, codes.OK, ""},
		{&session.InvalidError{Msg: "mode: bad"}, codes.InvalidArgument, "mode: bad"},
		{fmt.Errorf("wrapped: %w", &session.InvalidError{Msg: "x"}), codes.InvalidArgument, "x"},
		{fmt.Errorf("session abc: %w", store.ErrNotFound), codes.NotFound, "session abc: not found"},
		{store.ErrExists, codes.AlreadyExists, "already exists"},
		{fmt.Errorf("tool_use_id t1: %w", store.ErrCallConflict), codes.InvalidArgument, "tool_use_id t1: tool_use_id already used for a different call"},
		{fmt.Errorf("call t1: %w", exec.ErrNoSuchCall), codes.NotFound, "call t1: no such call"},
		{fmt.Errorf("request r: %w", exec.ErrNoPendingRequest), codes.NotFound, "request r: no pending permission request"},
		{fmt.Errorf("redis: %w", store.ErrUnavailable), codes.Unavailable, "redis: state store unavailable"},
		{fmt.Errorf("%w: gone", exec.ErrWorkspace), codes.FailedPrecondition, "session workspace unavailable: gone"},
		{fmt.Errorf("%w: settings of tenant t: bad", session.ErrTenantSettings), codes.FailedPrecondition, "tenant settings unusable: settings of tenant t: bad"},
		{fmt.Errorf("calls[0].input_json: %w", &strictjson.LimitError{Max: 512, Offset: 9}), codes.InvalidArgument, "calls[0].input_json: arrays and objects nest more than 512 levels deep (at byte 9)"},
		{context.Canceled, codes.Canceled, "context canceled"},
		{context.DeadlineExceeded, codes.DeadlineExceeded, "context deadline exceeded"},
		{status.Error(codes.ResourceExhausted, "slow down"), codes.ResourceExhausted, "slow down"},
		{errors.New("secret internals"), codes.Internal, "internal error"},
	}
	for _, tc := range tests {
		st, _ := status.FromError(ToStatus(tc.err))
		if st.Code() != tc.code || st.Message() != tc.msg {
			t.Errorf("ToStatus(%v) = %v %q, want %v %q", tc.err, st.Code(), st.Message(), tc.code, tc.msg)
		}
	}
}
