package client

import (
	"context"
	"encoding/json"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// CallToolUses is RunToolUses through the unary ToolService.Call: one
// request and one response, cheaper for calls that need no progress
// stream (reads, searches). Handlers see the events once the response is
// in; Progress is not called. When a call would wait for a permission
// answer or for the orchestrator, toold refuses the unary request with
// FAILED_PRECONDITION before that call starts, and CallToolUses sends the
// same calls with RunToolUses: the calls that finished are replayed from
// toold's journal, the rest run on the stream, with the handlers.
//
// A retry after toold was unavailable is safe: each call runs at most
// once per (session, tool_use_id).
func (c *Client) CallToolUses(ctx context.Context, sessionID string, uses []ToolUse, h *Handlers) ([]json.RawMessage, error) {
	r, err := c.newRun(sessionID, uses, h)
	if err != nil || len(uses) == 0 {
		return r.results, err
	}
	var resp *tooldv1.CallResponse
	err = c.retry(ctx, func(ctx context.Context) (err error) {
		resp, err = c.tools.Call(ctx, &tooldv1.CallRequest{SessionId: sessionID, Calls: r.calls})
		return err
	})
	if status.Code(err) == codes.FailedPrecondition {
		return c.RunToolUses(ctx, sessionID, uses, h)
	}
	if err != nil {
		return nil, err
	}
	for _, ev := range resp.GetEvents() {
		if err := r.handle(ctx, ev); err != nil {
			return nil, err
		}
	}
	for i, res := range r.results {
		if res == nil {
			return nil, fmt.Errorf("toold's response has no result for %s", r.calls[i].GetToolUseId())
		}
	}
	return r.results, nil
}
