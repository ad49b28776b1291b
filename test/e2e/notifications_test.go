package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	tooldclient "github.com/toold/toold/client"
	"github.com/toold/toold/internal/store/redistest"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// Two replicas on one Redis, as root and as a non-root toold (uid 10001):
// a Monitor and a background Bash command run through replica A; their
// notifications (the Monitor's events, its end, the command's end) are
// read through replica B, live with WatchNotifications (the Go client,
// woken across replicas) and again with grpcurl (ListNotifications and
// WatchNotifications, as docs/notifications.md shows them).
func TestNotificationsAcrossReplicas(t *testing.T) {
	t.Run("root", func(t *testing.T) { testNotificationsAcrossReplicas(t, -1) })
	t.Run("uid10001", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Logf("the tests run as uid %d: the other subtest already drives a non-root toold", os.Geteuid())
			return
		}
		testNotificationsAcrossReplicas(t, 10001)
	})
}

var startedRe = regexp.MustCompile(`^Monitor started \(task (bash_[0-9a-f]{12}), expires in 1m unless the source ends first; `)

func testNotificationsAcrossReplicas(t *testing.T, uid int) {
	url := "redis://" + redistest.Start(t) + "/0?max_retries=0"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := startTooldAs(t, uid, "--redis-url", url)
	b := startTooldAs(t, uid, "--redis-url", url)
	sid := createSession(t, ctx, a.addr)
	if err := setMode(ctx, t, a.addr, sid, "PERMISSION_MODE_DEFAULT"); err != nil {
		t.Fatal(err)
	}
	// The watch on B stands before anything happens on A.
	cb, err := tooldclient.Dial(b.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close()
	type watched struct {
		ns  []*tooldv1.Notification
		err error
	}
	live := make(chan watched, 1)
	first, err := cb.ListNotifications(ctx, sid, 0)
	if err != nil || len(first.List) != 0 {
		t.Fatalf("a new session's notifications: %+v, %v", first, err)
	}
	go func() {
		var got []*tooldv1.Notification
		err := cb.WatchNotifications(ctx, sid, 0, func(ns tooldclient.Notifications) error {
			got = append(got, ns.List...)
			if endOf(got, "m1") != nil && endOf(got, "b1") != nil {
				return errWatched
			}
			return nil
		})
		live <- watched{got, err}
	}()

	mon := execute(t, ctx, a.addr, sid, "m1", "Monitor", map[string]any{
		"command": "echo tick 1; sleep 1; echo tick 2; sleep 1", "description": "ticks", "timeout_ms": 60000,
	})
	m := startedRe.FindStringSubmatch(mon.Text)
	if mon.IsError || m == nil || mon.Meta["task_id"] != m[1] {
		t.Fatalf("Monitor: %+v", mon)
	}
	monitorID := m[1]
	bg := execute(t, ctx, a.addr, sid, "b1", "Bash", map[string]any{
		"command": "sleep 1; echo done; ls no-such-file", "description": "Fail later", "run_in_background": true,
	})
	bashID, _ := bg.Meta["task_id"].(string)
	if bg.IsError || bashID == "" || !strings.Contains(bg.Text, "You will be notified when it completes.") {
		t.Fatalf("background Bash: %+v", bg)
	}

	w := <-live
	if !errors.Is(w.err, errWatched) {
		t.Fatalf("watch on B: %v (%d notifications)", w.err, len(w.ns))
	}
	var events []string
	for i, n := range w.ns {
		if n.GetSeq() != int64(i+1) {
			t.Fatalf("notification %d has seq %d", i+1, n.GetSeq())
		}
		if n.GetKind() == tooldv1.NotificationKind_NOTIFICATION_KIND_MONITOR_EVENT {
			events = append(events, n.GetTaskNotification())
		}
	}
	wantEvent := func(line string) string {
		return "<task-notification>\n<task-id>" + monitorID + "</task-id>\n<summary>Monitor event: \"ticks\"</summary>\n<event>" + line + "</event>\n</task-notification>"
	}
	if len(events) != 2 || events[0] != wantEvent("tick 1") || events[1] != wantEvent("tick 2") {
		t.Fatalf("events %q", events)
	}
	if end := endOf(w.ns, "m1"); end.GetTaskNotification() != "<task-notification>\n<task-id>"+monitorID+"</task-id>\n<tool-use-id>m1</tool-use-id>\n<output-file>toold-task://"+monitorID+".output</output-file>\n<status>completed</status>\n<summary>Monitor \"ticks\" stream ended</summary>\n</task-notification>" {
		t.Fatalf("the monitor's end: %q", end.GetTaskNotification())
	}
	end := endOf(w.ns, "b1")
	if end.GetKind() != tooldv1.NotificationKind_NOTIFICATION_KIND_SHELL_ENDED || end.GetStatus() != "failed" ||
		end.GetTaskNotification() != "<task-notification>\n<task-id>"+bashID+"</task-id>\n<tool-use-id>b1</tool-use-id>\n<output-file>toold-task://"+bashID+".output</output-file>\n<status>failed</status>\n<summary>Background command \"Fail later\" failed with exit code 2</summary>\n</task-notification>" ||
		!strings.HasPrefix(end.GetText(), "[SYSTEM NOTIFICATION - NOT USER INPUT]\n") || !strings.HasSuffix(end.GetText(), end.GetTaskNotification()) {
		t.Fatalf("the command's end: %+v", end)
	}

	// The same through grpcurl on B: the docs' commands.
	out, err := sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "after_seq": 1, "wait_ms": 30000}' `+b.addr+` toold.v1.ToolService/ListNotifications`)
	if err != nil {
		t.Fatalf("ListNotifications: %v\n%s", err, out)
	}
	var list struct {
		Notifications []struct {
			Seq, Kind, TaskID, Text string
		}
		NextAfterSeq string
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(list.Notifications) != len(w.ns)-1 || list.Notifications[0].Seq != "2" || list.NextAfterSeq != jsonInt(len(w.ns)) {
		t.Fatalf("ListNotifications after 1: %s", out)
	}
	out, _ = sh(t, ctx, `grpcurl -plaintext -max-time 2 -d '{"session_id": "`+sid+`", "after_seq": 3}' `+b.addr+` toold.v1.ToolService/WatchNotifications || true`)
	mustContain(t, out, `"seq": "4"`, `"nextAfterSeq": "`+jsonInt(len(w.ns))+`"`, "DeadlineExceeded")
	if strings.Contains(out, `"seq": "3"`) {
		t.Fatalf("the watch after 3 sent 3:\n%s", out)
	}
}

var errWatched = errors.New("watched")

// endOf is the notification that ended the task the call started.
func endOf(ns []*tooldv1.Notification, toolUseID string) *tooldv1.Notification {
	for _, n := range ns {
		if n.GetToolUseId() == toolUseID && n.GetStatus() != "" {
			return n
		}
	}
	return nil
}

func jsonInt(n int) string { b, _ := json.Marshal(n); return string(b) }
