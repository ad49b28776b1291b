package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/toold/toold/internal/store"
)

// Cancels carries requests to cancel a call to every replica, the way
// Pending carries answers to permission requests: Redis Pub/Sub. One
// channel for the whole deployment, <prefix>cancel, since the requester
// does not know which replica runs the call; each replica subscribes once
// and cancels the call if it runs it. Cancel requests are rare, so the
// broadcast costs little. A request published while a replica's
// subscription is reconnecting is lost for that replica; the requester may
// send it again (cancelling is idempotent).
type Cancels struct{ s *Store }

// Cancels returns the cancel channel on the client and prefix of s.
func (s *Store) Cancels() *Cancels { return &Cancels{s: s} }

type cancelMsg struct {
	Session   string `json:"s"`
	ToolUseID string `json:"t"`
}

func (c *Cancels) channel() string { return c.s.opts.KeyPrefix + "cancel" }

// Publish asks every subscribed replica to cancel the call.
func (c *Cancels) Publish(ctx context.Context, ref store.CallRef) error {
	if !validID(ref.SessionID) {
		return fmt.Errorf("cancel: session %q: invalid id", ref.SessionID)
	}
	payload, err := json.Marshal(cancelMsg{Session: ref.SessionID, ToolUseID: ref.ToolUseID})
	if err != nil {
		return err
	}
	if err := c.s.c.Publish(ctx, c.channel(), payload).Err(); err != nil {
		return unavailable(err)
	}
	return nil
}

// Subscribe calls fn with every request published from then on, until
// the returned stop is called. It returns once the subscription is
// confirmed, so that no request published after it is missed (but for
// reconnections, see Cancels).
func (c *Cancels) Subscribe(ctx context.Context, fn func(store.CallRef)) (stop func(), err error) {
	sub := c.s.c.Subscribe(ctx, c.channel())
	if _, err := sub.Receive(ctx); err != nil {
		sub.Close()
		return nil, unavailable(err)
	}
	msgs := sub.Channel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for m := range msgs {
			var cm cancelMsg
			if json.Unmarshal([]byte(m.Payload), &cm) != nil || cm.Session == "" || cm.ToolUseID == "" {
				continue
			}
			fn(store.CallRef{SessionID: cm.Session, ToolUseID: cm.ToolUseID})
		}
	}()
	return func() {
		sub.Close()
		wg.Wait()
	}, nil
}
