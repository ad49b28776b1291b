package client

import (
	"context"
	"errors"
	"io"
	"regexp"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// Notifications are what one read of a session's notifications brought.
type Notifications struct {
	// List holds the notifications, oldest first.
	List []*tooldv1.Notification
	// Dropped counts the notifications before List that the server no
	// longer kept (a session keeps its newest 1000).
	Dropped int64
	// Next is the cursor after them: give it to the next read.
	Next int64
}

// ListNotifications returns the session's notifications after the cursor
// after (0 for all that are kept), without waiting. Nothing is consumed:
// the same cursor gives the same again, so the read is retried like any
// idempotent call.
func (c *Client) ListNotifications(ctx context.Context, sessionID string, after int64) (Notifications, error) {
	var resp *tooldv1.ListNotificationsResponse
	err := c.retry(ctx, func(ctx context.Context) (err error) {
		resp, err = c.tools.ListNotifications(ctx, &tooldv1.ListNotificationsRequest{SessionId: sessionID, AfterSeq: after})
		return err
	})
	if err != nil {
		return Notifications{Next: after}, err
	}
	return Notifications{List: resp.GetNotifications(), Dropped: resp.GetDropped(), Next: resp.GetNextAfterSeq()}, nil
}

// WatchNotifications calls fn with the session's notifications after the
// cursor after, then with each later batch as it comes, until ctx ends,
// fn returns an error (which it returns), or the watch fails for good (the
// session is gone: NOT_FOUND). A watch that breaks, or a server that shuts
// down, is watched again on whatever replica the connection reaches, after
// the last batch fn took, so fn sees each notification once.
func (c *Client) WatchNotifications(ctx context.Context, sessionID string, after int64, fn func(Notifications) error) error {
	for failures := 0; ; {
		err := c.watchOnce(ctx, sessionID, &after, fn, &failures)
		var fnErr *handlerError
		if errors.As(err, &fnErr) {
			return fnErr.err
		}
		failures++
		// toold ends a watch with a status only: an end without one is a
		// break like any other.
		if errors.Is(err, io.EOF) && ctx.Err() == nil {
			err = status.Error(codes.Unavailable, "the watch ended")
		}
		if !retryable(ctx, err) || c.o.backoff.gaveUp(failures) {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		if err := sleep(ctx, c.o.backoff.wait(failures-1)); err != nil {
			return err
		}
	}
}

// handlerError is fn's error, which ends a watch as it is.
type handlerError struct{ err error }

func (e *handlerError) Error() string { return e.err.Error() }

func (c *Client) watchOnce(ctx context.Context, sessionID string, after *int64, fn func(Notifications) error, failures *int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.tools.WatchNotifications(ctx, &tooldv1.WatchNotificationsRequest{SessionId: sessionID, AfterSeq: *after})
	if err != nil {
		return err
	}
	for {
		m, err := stream.Recv()
		if err != nil {
			return err
		}
		*failures = 0 // the watch stands: the count starts again
		if len(m.GetNotifications()) == 0 && m.GetDropped() == 0 {
			continue // the first message of an empty queue, or a keepalive
		}
		if err := fn(Notifications{List: m.GetNotifications(), Dropped: m.GetDropped(), Next: m.GetNextAfterSeq()}); err != nil {
			return &handlerError{err}
		}
		*after = m.GetNextAfterSeq()
	}
}

// NotificationText is the text Claude Code puts into the conversation for
// notifications that arrive between tool calls: each one's text, a blank
// line between them. Claude Code sends it as a message of its own, role
// system, after the user message with the tool results; with the Messages
// API, append it to that user message as a text block.
func NotificationText(ns []*tooldv1.Notification) string {
	texts := make([]string, len(ns))
	for i, n := range ns {
		texts[i] = n.GetText()
	}
	return strings.Join(texts, "\n\n")
}

var reminderEnd = regexp.MustCompile(`(?i)<\s*/\s*system-reminder\s*>`)

// IdleTurnText is the user message Claude Code makes of a notification
// that arrives once the model's turn has ended (it waits for the user):
// the notification's text inside a <system-reminder>, any closing tag of
// that in the element escaped. Each notification is a text block of its
// own in that message.
func IdleTurnText(n *tooldv1.Notification) string {
	preamble := strings.TrimSuffix(n.GetText(), n.GetTaskNotification())
	element := reminderEnd.ReplaceAllString(n.GetTaskNotification(), "&lt;/system-reminder&gt;")
	return "<system-reminder>\n" + preamble + element + "\n</system-reminder>"
}
