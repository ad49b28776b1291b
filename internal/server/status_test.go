package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
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
		{fmt.Errorf("call t1: %w", exec.ErrNoDelegatedCall), codes.NotFound, "call t1: no delegated call waits for a completion"},
		{fmt.Errorf("call t1: %w", exec.ErrCallCompleted), codes.FailedPrecondition, "call t1: the call has its result already"},
		{&exec.NeedsStreamError{ToolUseID: "t2", Tool: "Write"}, codes.FailedPrecondition, "call t2 (Write) would wait for a permission answer, which a unary Call cannot carry: send the request with Execute; the calls that finished are replayed, the rest run"},
		{&exec.NeedsStreamError{ToolUseID: "t3", Tool: "Agent", Delegated: true}, codes.FailedPrecondition, "call t3 (Agent) is completed by the orchestrator (CompleteCall), which a unary Call cannot carry: send the request with Execute; the calls that finished are replayed, the rest run"},
		{fmt.Errorf("request r: %w", exec.ErrNoPendingRequest), codes.NotFound, "request r: no pending permission request"},
		{fmt.Errorf("redis: %w", store.ErrUnavailable), codes.Unavailable, "redis: state store unavailable"},
		{fmt.Errorf("%w: gone", exec.ErrWorkspace), codes.FailedPrecondition, "session workspace unavailable: gone"},
		{fmt.Errorf("%w: settings of tenant t: bad", session.ErrTenantSettings), codes.FailedPrecondition, "tenant settings unusable: settings of tenant t: bad"},
		{fmt.Errorf("calls[0].input_json: %w", &strictjson.LimitError{Max: 512, Offset: 9}), codes.InvalidArgument, "calls[0].input_json: arrays and objects nest more than 512 levels deep (at byte 9)"},
		{context.Canceled, codes.Canceled, "context canceled"},
		{context.DeadlineExceeded, codes.DeadlineExceeded, "context deadline exceeded"},
		{status.Error(codes.ResourceExhausted, "slow down"), codes.ResourceExhausted, "slow down"},
		{errors.New("secret internals"), codes.Internal, "internal error (error id ID; the server log has the details under this id)"},
		{fmt.Errorf("decoding: %w", errors.New("bad frame")), codes.Internal, "internal error (error id ID; the server log has the details under this id)"},
	}
	for _, tc := range tests {
		var logs bytes.Buffer
		log := slog.New(slog.NewJSONHandler(&logs, nil))
		st, _ := status.FromError(ToStatus(context.Background(), log, tc.err))
		msg := st.Message()
		id := errorIDIn.FindStringSubmatch(msg)
		if id != nil {
			msg = strings.Replace(msg, id[1], "ID", 1)
		}
		if st.Code() != tc.code || msg != tc.msg {
			t.Errorf("ToStatus(%v) = %v %q, want %v %q", tc.err, st.Code(), st.Message(), tc.code, tc.msg)
		}
		records := strings.Split(strings.TrimSpace(logs.String()), "\n")
		if tc.code != codes.Internal {
			if logs.Len() != 0 {
				t.Errorf("ToStatus(%v) logged %s", tc.err, logs.String())
			}
			continue
		}
		// Logged once, with the id the client sees and the error itself,
		// which the client does not see.
		if id == nil || len(records) != 1 {
			t.Errorf("ToStatus(%v): message %q, %d log records: %s", tc.err, st.Message(), len(records), logs.String())
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(records[0]), &rec); err != nil {
			t.Fatal(err)
		}
		if rec["level"] != "ERROR" || rec["error_id"] != id[1] || rec["error"] != tc.err.Error() {
			t.Errorf("ToStatus(%v) logged %v, want error_id %s and the error", tc.err, rec, id[1])
		}
		if strings.Contains(st.Message(), tc.err.Error()) {
			t.Errorf("the client sees the internal error: %q", st.Message())
		}
	}
}

var errorIDIn = regexp.MustCompile(`error id ([0-9a-f]{8});`)

// Two internal errors get two ids, so that the log tells them apart.
func TestInternalErrorIDsDiffer(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	a := status.Convert(ToStatus(context.Background(), log, errors.New("x"))).Message()
	b := status.Convert(ToStatus(context.Background(), log, errors.New("x"))).Message()
	if a == b {
		t.Errorf("same message twice: %q", a)
	}
}
