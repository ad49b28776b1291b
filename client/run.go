package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// ToolUse is a tool_use block of an assistant message.
type ToolUse struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// ParseToolUses picks the tool_use blocks out of content: an assistant
// message's content array as the Messages API returns it (text and
// thinking blocks are skipped), or a single block.
func ParseToolUses(content json.RawMessage) ([]ToolUse, error) {
	var blocks []ToolUse
	if err := json.Unmarshal(content, &blocks); err != nil {
		var one ToolUse
		if err1 := json.Unmarshal(content, &one); err1 != nil {
			return nil, fmt.Errorf("tool_use blocks: want a JSON array of content blocks: %w", err)
		}
		blocks = []ToolUse{one}
	}
	uses := blocks[:0]
	for _, b := range blocks {
		if b.Type == "tool_use" || (b.Type == "" && b.ID != "" && b.Name != "") {
			uses = append(uses, b)
		}
	}
	return uses, nil
}

// Run runs the tool_use blocks of one assistant message in the session and
// returns their tool_result blocks, in order, as a JSON array ready to be
// the content of the next user message. content is the assistant message's
// content (or just its tool_use blocks); other blocks are skipped.
func (c *Client) Run(ctx context.Context, sessionID string, content json.RawMessage, h *Handlers) (json.RawMessage, error) {
	uses, err := ParseToolUses(content)
	if err != nil {
		return nil, err
	}
	results, err := c.RunToolUses(ctx, sessionID, uses, h)
	if err != nil {
		return nil, err
	}
	return json.Marshal(results)
}

// RunToolUses is Run on parsed blocks; it returns one tool_result block per
// call, in order.
//
// Each call runs at most once: toold keys it by (session, tool_use_id), and
// when toold is unavailable or a stream breaks, Run resumes each unfinished
// call with Attach after the last event it got (or, for a call it got
// nothing of, sends it again under the same id, which toold answers from
// its journal or by following the run). Handlers see each event once.
// A failing call is a tool_result with is_error, not an error; the error
// is for the request (no such session, a reused id) or for toold staying
// out of reach past the backoff's attempts.
func (c *Client) RunToolUses(ctx context.Context, sessionID string, uses []ToolUse, h *Handlers) ([]json.RawMessage, error) {
	r, err := c.newRun(sessionID, uses, h)
	if err != nil || len(uses) == 0 {
		return r.results, err
	}
	results, err := r.loop(ctx)
	if err != nil && ctx.Err() != nil {
		r.cancelPending(ctx)
	}
	return results, err
}

// newRun checks the blocks and makes their calls.
func (c *Client) newRun(sessionID string, uses []ToolUse, h *Handlers) (*run, error) {
	if h == nil {
		h = &Handlers{}
	}
	r := &run{c: c, sid: sessionID, h: h, idx: map[string]int{}, answered: map[string]bool{}}
	for i, u := range uses {
		if u.ID == "" || u.Name == "" {
			return &run{}, fmt.Errorf("tool_use block %d: id and name are required", i)
		}
		if _, dup := r.idx[u.ID]; dup {
			return &run{}, fmt.Errorf("tool_use block %d: id %s is used twice", i, u.ID)
		}
		in := string(u.Input)
		if len(u.Input) == 0 || in == "null" {
			in = "{}"
		}
		r.idx[u.ID] = i
		r.calls = append(r.calls, &tooldv1.ToolCall{ToolUseId: u.ID, Name: u.Name, InputJson: in})
	}
	r.seq = make([]int64, len(uses))
	r.results = make([]json.RawMessage, len(uses))
	return r, nil
}

// cancelTimeout bounds the Cancel sent when the caller's context ends.
const cancelTimeout = 10 * time.Second

// cancelPending cancels the calls that have no result yet, the caller's
// context having ended: detached calls would otherwise run to their end.
// Failing to reach toold is logged nowhere: the calls then finish on their
// own, or with their session.
func (r *run) cancelPending(ctx context.Context) {
	var ids []string
	for i, res := range r.results {
		if res == nil {
			ids = append(ids, r.calls[i].GetToolUseId())
		}
	}
	if len(ids) == 0 {
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
	defer cancel()
	r.c.Cancel(cctx, r.sid, ids...)
}

// Cancel cancels calls of the session by tool_use_id, on whichever toold
// replica runs them: a running call's processes are killed and it ends
// with its CANCELLED result (which Attach returns); a call that has not
// started ends so without running; one that has its result is left alone.
// It is idempotent and returns without waiting for the calls to stop.
// Run and RunToolUses call it for their unfinished calls when their
// context ends.
func (c *Client) Cancel(ctx context.Context, sessionID string, toolUseIDs ...string) ([]*tooldv1.CallCancellation, error) {
	var resp *tooldv1.CancelResponse
	err := c.retry(ctx, func(ctx context.Context) (err error) {
		resp, err = c.tools.Cancel(ctx, &tooldv1.CancelRequest{SessionId: sessionID, ToolUseIds: toolUseIDs})
		return err
	})
	if err != nil {
		return nil, err
	}
	return resp.GetCalls(), nil
}

// Attach follows a call sent before (by this process or another one, e.g.
// a detached call) from its first event to its result, answering its
// permission request if it waits on one, and returns its tool_result block.
// NOT_FOUND when toold has no record of the call.
func (c *Client) Attach(ctx context.Context, sessionID, toolUseID string, h *Handlers) (json.RawMessage, error) {
	if h == nil {
		h = &Handlers{}
	}
	r := &run{c: c, sid: sessionID, h: h, attachOnly: true,
		idx:      map[string]int{toolUseID: 0},
		answered: map[string]bool{},
		calls:    []*tooldv1.ToolCall{{ToolUseId: toolUseID}},
		seq:      []int64{0},
		results:  []json.RawMessage{nil},
	}
	results, err := r.loop(ctx)
	if err != nil {
		return nil, err
	}
	return results[0], nil
}

// loop makes attempts until every call has its result.
func (r *run) loop(ctx context.Context) ([]json.RawMessage, error) {
	c := r.c
	for failures := 0; ; {
		err := r.attempt(ctx)
		if err == nil && r.pending() == 0 {
			return r.results, nil
		}
		if err == nil {
			err = status.Error(codes.Unavailable, "the stream ended before every call had its result")
		}
		if !retryable(ctx, err) {
			if ctx.Err() != nil {
				return nil, errors.Join(ctx.Err(), err)
			}
			return nil, err
		}
		if r.progressed {
			failures = 0
			r.progressed = false
		}
		failures++
		if c.o.backoff.gaveUp(failures) {
			return nil, err
		}
		if err := sleep(ctx, c.o.backoff.wait(failures-1)); err != nil {
			return nil, err
		}
	}
}

// run is the state of one RunToolUses across its retries.
type run struct {
	c     *Client
	sid   string
	h     *Handlers
	calls []*tooldv1.ToolCall
	idx   map[string]int
	// seq is the last event number handled per call: resumes start after.
	seq      []int64
	results  []json.RawMessage
	answered map[string]bool // permission request ids already answered
	// progressed: an event arrived since the last failure.
	progressed bool
	// attachOnly: the calls were sent by someone else; never send them.
	attachOnly bool
}

func (r *run) pending() int {
	n := 0
	for _, res := range r.results {
		if res == nil {
			n++
		}
	}
	return n
}

// item is what a stream goroutine hands to the event loop.
type item struct {
	ev   *tooldv1.ExecuteEvent
	err  error
	done bool
	// call is the index of the call an Attach follows, -1 for Execute.
	call int
}

// errForgotten marks an Attach that toold has no record for: that call is
// sent again under its id on the next attempt.
var errForgotten = status.Error(codes.Unavailable, "toold has no record of the call; sending it again under the same id")

// attempt opens one Execute for the calls nothing was received of and one
// Attach per call that has events, and handles their events until every
// stream ends. It returns the first error of a stream.
func (r *run) attempt(parent context.Context) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	items := make(chan item)
	streams := 0
	var fresh []*tooldv1.ToolCall
	for i, call := range r.calls {
		switch {
		case r.results[i] != nil:
		case r.seq[i] == 0 && !r.attachOnly:
			fresh = append(fresh, call)
		default:
			streams++
			req := &tooldv1.AttachRequest{SessionId: r.sid, ToolUseId: call.GetToolUseId(), AfterSeq: r.seq[i]}
			go r.pump(ctx, i, items, func(ctx context.Context) (grpc.ServerStreamingClient[tooldv1.ExecuteEvent], error) {
				return r.c.tools.Attach(ctx, req)
			})
		}
	}
	if len(fresh) > 0 {
		streams++
		go r.pump(ctx, -1, items, func(ctx context.Context) (grpc.ServerStreamingClient[tooldv1.ExecuteEvent], error) {
			return r.c.tools.Execute(ctx, &tooldv1.ExecuteRequest{SessionId: r.sid, Calls: fresh, Detached: !r.c.o.attached})
		})
	}
	var first error
	for streams > 0 {
		it := <-items
		switch {
		case it.done:
			streams--
			if it.err == nil {
				continue
			}
			if st, _ := status.FromError(it.err); it.call >= 0 && st.Code() == codes.NotFound && r.results[it.call] == nil && parent.Err() == nil && !r.attachOnly {
				r.seq[it.call] = 0
				it.err = errForgotten
			}
			if first == nil {
				first = it.err
			}
			if !retryable(parent, it.err) {
				cancel() // an answer, not a hiccup: stop the other streams
			}
		default:
			if err := r.handle(ctx, it.ev); err != nil && first == nil {
				first = err
				cancel()
			}
		}
	}
	return first
}

// pump reads one stream into items until it ends.
func (r *run) pump(ctx context.Context, call int, items chan<- item, open func(context.Context) (grpc.ServerStreamingClient[tooldv1.ExecuteEvent], error)) {
	s, err := open(ctx)
	for err == nil {
		var ev *tooldv1.ExecuteEvent
		if ev, err = s.Recv(); err == nil {
			select {
			case items <- item{ev: ev, call: call}:
			case <-ctx.Done():
				err = status.FromContextError(ctx.Err()).Err()
			}
		}
	}
	if err == io.EOF {
		err = nil
	}
	items <- item{done: true, err: err, call: call}
}

// handle passes one event to the handlers unless it was handled before.
func (r *run) handle(ctx context.Context, ev *tooldv1.ExecuteEvent) error {
	i, ok := r.idx[ev.GetToolUseId()]
	if !ok || ev.GetKeepalive() != nil || r.results[i] != nil {
		return nil
	}
	if ev.GetSeq() != 0 {
		if ev.GetSeq() <= r.seq[i] {
			return nil // replayed on a resumed stream: already handled
		}
		r.seq[i] = ev.GetSeq()
	}
	r.progressed = true
	id, h := ev.GetToolUseId(), r.h
	switch e := ev.GetEvent().(type) {
	case *tooldv1.ExecuteEvent_Started:
		if h.Started != nil {
			h.Started(id, e.Started)
		}
	case *tooldv1.ExecuteEvent_Progress:
		if h.Progress != nil {
			h.Progress(id, e.Progress)
		}
	case *tooldv1.ExecuteEvent_HookRun:
		if h.HookRun != nil {
			h.HookRun(id, e.HookRun)
		}
	case *tooldv1.ExecuteEvent_Decision:
		if h.Decision != nil {
			h.Decision(id, e.Decision)
		}
	case *tooldv1.ExecuteEvent_PermissionRequest:
		return r.answer(ctx, id, e.PermissionRequest)
	case *tooldv1.ExecuteEvent_DelegatedCall:
		return r.complete(ctx, id, e.DelegatedCall)
	case *tooldv1.ExecuteEvent_Result:
		block, err := toolResult(id, e.Result)
		if err != nil {
			return err
		}
		r.results[i] = block
		if h.Result != nil {
			h.Result(id, e.Result)
		}
	}
	return nil
}

// answer asks the handler and sends its answer, once per request.
func (r *run) answer(ctx context.Context, toolUseID string, req *tooldv1.PermissionRequest) error {
	if r.answered[req.GetRequestId()] {
		return nil
	}
	a := Deny(noHandlerDenial)
	if r.h.Permission != nil {
		a = r.h.Permission(ctx, toolUseID, req)
	}
	err := r.c.retry(ctx, func(ctx context.Context) error {
		_, err := r.c.sessions.ResolvePermission(ctx, a.request(r.sid, req.GetRequestId()))
		return err
	})
	if st, _ := status.FromError(err); st.Code() == codes.NotFound {
		// Answered already (by us before a reconnect, or by someone else)
		// or timed out: the call's stream says what became of it.
		err = nil
	}
	if err != nil {
		return fmt.Errorf("answering permission request %s of %s: %w", req.GetRequestId(), toolUseID, err)
	}
	r.answered[req.GetRequestId()] = true
	return nil
}

// toolResult is the ready tool_result block toold sends with a result.
func toolResult(id string, res *tooldv1.ToolResult) (json.RawMessage, error) {
	if res.GetToolResult() == nil {
		return nil, fmt.Errorf("the result of %s has no tool_result block", id)
	}
	return res.GetToolResult().MarshalJSON()
}
