package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"

	"google.golang.org/protobuf/types/known/structpb"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// callSeq makes every tool_use_id new: a repeated one would be answered
// from the journal instead of running.
var callSeq atomic.Int64

func nextToolUseID() string { return "toolu_" + strconv.FormatInt(callSeq.Add(1), 36) }

type call struct {
	name  string
	input map[string]any
}

// execute sends one Execute of calls and reads its stream to the end. A
// result with is_error fails it, unless wantError.
func (s *server) execute(ctx context.Context, wantError bool, calls ...call) error {
	_, err := s.executeText(ctx, wantError, calls...)
	return err
}

// executeText is execute, returning the text of the first result.
func (s *server) executeText(ctx context.Context, wantError bool, calls ...call) (string, error) {
	req := &tooldv1.ExecuteRequest{SessionId: s.session}
	for _, c := range calls {
		in, err := structpb.NewStruct(c.input)
		if err != nil {
			return "", err
		}
		req.Calls = append(req.Calls, &tooldv1.ToolCall{ToolUseId: nextToolUseID(), Name: c.name, Input: in})
	}
	stream, err := s.tools.Execute(ctx, req)
	if err != nil {
		return "", err
	}
	results, first := 0, ""
	for {
		ev, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
		r := ev.GetResult()
		if r == nil {
			continue
		}
		results++
		text := ""
		if c := r.GetContent(); len(c) > 0 {
			text = c[0].GetText().GetText()
		}
		if results == 1 {
			first = text
		}
		if r.GetIsError() != wantError {
			return "", fmt.Errorf("%s: is_error %v: %.300s", ev.GetToolUseId(), r.GetIsError(), text)
		}
	}
	if results != len(calls) {
		return "", fmt.Errorf("%d results for %d calls", results, len(calls))
	}
	return first, nil
}

// callUnary sends calls with the unary Call: one request, one response.
// A result with is_error fails it, unless wantError.
func (s *server) callUnary(ctx context.Context, wantError bool, calls ...call) error {
	req := &tooldv1.CallRequest{SessionId: s.session}
	for _, c := range calls {
		in, err := structpb.NewStruct(c.input)
		if err != nil {
			return err
		}
		req.Calls = append(req.Calls, &tooldv1.ToolCall{ToolUseId: nextToolUseID(), Name: c.name, Input: in})
	}
	resp, err := s.tools.Call(ctx, req)
	if err != nil {
		return err
	}
	results := 0
	for _, ev := range resp.GetEvents() {
		r := ev.GetResult()
		if r == nil {
			continue
		}
		results++
		if r.GetIsError() != wantError {
			text := ""
			if c := r.GetContent(); len(c) > 0 {
				text = c[0].GetText().GetText()
			}
			return fmt.Errorf("%s: is_error %v: %.300s", ev.GetToolUseId(), r.GetIsError(), text)
		}
	}
	if results != len(calls) {
		return fmt.Errorf("%d results for %d calls", results, len(calls))
	}
	return nil
}

// sender is how a figure sends its calls: Execute or the unary Call.
type sender struct {
	name string // "Execute", "unary Call"
	send func(s *server, ctx context.Context, wantError bool, calls ...call) error
}

var (
	viaExecute = sender{"Execute", (*server).execute}
	viaUnary   = sender{"unary Call", (*server).callUnary}
)
