package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// sharedPending adapts a store's shared registry of permission requests
// to exec.PendingRequests, so that any replica can answer a request.
type sharedPending struct{ p store.PendingAsks }

var _ exec.PendingRequests = sharedPending{}

func (r sharedPending) Open(ctx context.Context, sessionID, requestID string) (<-chan exec.Answer, func(), error) {
	in, closeFn, err := r.p.Open(ctx, sessionID, requestID)
	if err != nil {
		return nil, nil, err
	}
	out := make(chan exec.Answer, 1)
	go func() {
		// in carries at most one answer and is closed after closeFn.
		if a, ok := <-in; ok {
			ans := exec.Answer{Allow: a.Allow, ForSession: a.ForSession, Message: a.Message}
			if len(a.Completion) > 0 {
				var c tool.Completion
				if json.Unmarshal(a.Completion, &c) != nil {
					return // not a completion toold wrote: the call times out
				}
				ans.Completion = &c
			}
			out <- ans
		}
	}()
	return out, closeFn, nil
}

func (r sharedPending) Resolve(ctx context.Context, sessionID, requestID string, a exec.Answer) error {
	ra := store.Answer{Allow: a.Allow, ForSession: a.ForSession, Message: a.Message}
	if a.Completion != nil {
		b, err := json.Marshal(a.Completion)
		if err != nil {
			return err
		}
		ra.Completion = b
	}
	err := r.p.Resolve(ctx, sessionID, requestID, ra)
	if errors.Is(err, store.ErrNoPending) {
		return fmt.Errorf("request %s of session %s: %w", requestID, sessionID, exec.ErrNoPendingRequest)
	}
	return err
}

// exec.CancelBus is what a store's cancel channel offers.
var _ exec.CancelBus = store.CancelChannel(nil)
