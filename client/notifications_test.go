package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/client"
	"github.com/toold/toold/internal/tooldtest"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// A Monitor and a background command: their notifications come through
// WatchNotifications, each once and in order, although the connection is
// cut in the middle of the watch; ListNotifications then reads them again.
func TestWatchNotificationsResumes(t *testing.T) {
	d := tooldtest.Start(t)
	p := tooldtest.NewProxy(t, d.Addr)
	c := dial(t, p.Addr, client.WithBackoff(client.Backoff{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond, Attempts: 50}))
	sess := bashSession(t, c)
	raw, err := c.Run(ctx(t), sess.GetId(), json.RawMessage(`[
		{"type":"tool_use","id":"toolu_m","name":"Monitor","input":{"command":"echo one; sleep 1; echo two; sleep 1; echo three","description":"count","timeout_ms":60000}},
		{"type":"tool_use","id":"toolu_b","name":"Bash","input":{"command":"sleep 1; exit 2","description":"Fail later","run_in_background":true}}]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rs := parse(t, raw); !strings.HasPrefix(rs[0].text(), "Monitor started (task ") || !strings.Contains(rs[1].text(), "You will be notified when it completes.") {
		t.Fatalf("results %s", raw)
	}
	wctx, cancel := context.WithCancel(ctx(t))
	defer cancel()
	var got []*tooldv1.Notification
	cut := false
	err = c.WatchNotifications(wctx, sess.GetId(), 0, func(ns client.Notifications) error {
		got = append(got, ns.List...)
		if !cut {
			cut = true
			p.Cut()
		}
		if ended(got, "toolu_m") && ended(got, "toolu_b") {
			return errDone
		}
		return nil
	})
	if !errors.Is(err, errDone) {
		t.Fatalf("watch: %v", err)
	}
	var events []string
	for i, n := range got {
		if n.GetSeq() != int64(i+1) {
			t.Fatalf("notification %d has seq %d: one missed or seen twice", i+1, n.GetSeq())
		}
		if n.GetKind() == tooldv1.NotificationKind_NOTIFICATION_KIND_MONITOR_EVENT {
			events = append(events, n.GetTaskNotification())
		}
	}
	if len(events) != 2 || !strings.Contains(events[0], "<event>one</event>") || !strings.Contains(events[1], "<event>two</event>") {
		t.Fatalf("events %q", events)
	}
	again, err := c.ListNotifications(ctx(t), sess.GetId(), 0)
	if err != nil || len(again.List) != len(got) || again.Next != int64(len(got)) {
		t.Fatalf("list: %+v, %v", again, err)
	}
	text := client.NotificationText(again.List[:2])
	if !strings.HasPrefix(text, "[SYSTEM NOTIFICATION - NOT USER INPUT]\n") || strings.Count(text, "<task-notification>") != 2 || !strings.Contains(text, "</task-notification>\n\n[SYSTEM NOTIFICATION") {
		t.Fatalf("text %q", text)
	}
	idle := client.IdleTurnText(again.List[0])
	if !strings.HasPrefix(idle, "<system-reminder>\n[SYSTEM NOTIFICATION") || !strings.HasSuffix(idle, "</task-notification>\n</system-reminder>") {
		t.Fatalf("idle turn %q", idle)
	}
	// The session's end ends a watch for good.
	if err := c.DeleteSession(ctx(t), sess.GetId()); err != nil {
		t.Fatal(err)
	}
	err = c.WatchNotifications(ctx(t), sess.GetId(), 0, func(client.Notifications) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "NotFound") {
		t.Fatalf("watch of a deleted session: %v", err)
	}
}

var errDone = errors.New("done")

func ended(ns []*tooldv1.Notification, toolUseID string) bool {
	for _, n := range ns {
		if n.GetToolUseId() == toolUseID && n.GetStatus() != "" {
			return true
		}
	}
	return false
}
