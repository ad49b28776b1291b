package client

import (
	"context"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// CompleteCall gives the result of a delegated call of the session (a
// DelegatedCall event), on whichever toold replica the call waits; the
// result then ends the call's streams. req's session_id and tool_use_id
// are set from the arguments. NOT_FOUND when no call waits under that id;
// FAILED_PRECONDITION when it has its result already.
func (c *Client) CompleteCall(ctx context.Context, sessionID, toolUseID string, req *tooldv1.CompleteCallRequest) error {
	if req == nil {
		req = &tooldv1.CompleteCallRequest{}
	}
	req.SessionId, req.ToolUseId = sessionID, toolUseID
	attempts := 0
	err := c.retry(ctx, func(ctx context.Context) error {
		attempts++
		_, err := c.tools.CompleteCall(ctx, req)
		return err
	})
	if st, _ := status.FromError(err); attempts > 1 && st.Code() == codes.FailedPrecondition {
		// An earlier attempt completed it and its reply was lost.
		return nil
	}
	return err
}

// complete asks the Delegated handler and sends its completion, once per
// call.
func (r *run) complete(ctx context.Context, toolUseID string, d *tooldv1.DelegatedCall) error {
	req := &tooldv1.CompleteCallRequest{Text: noDelegationHandler, IsError: true}
	if r.h.Delegated != nil {
		if req = r.h.Delegated(ctx, toolUseID, d); req == nil {
			return nil // the handler completes it itself
		}
	}
	err := r.c.CompleteCall(ctx, r.sid, toolUseID, req)
	if st, _ := status.FromError(err); st.Code() == codes.NotFound || st.Code() == codes.FailedPrecondition {
		// Timed out, or completed by someone else: the call's stream says
		// what became of it.
		err = nil
	}
	if err != nil {
		return fmt.Errorf("completing delegated call %s: %w", toolUseID, err)
	}
	return nil
}
