package server_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/notify"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/server"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

type notesEnv struct {
	st       *memstore.Store
	ts       *server.ToolService
	sessions tooldv1.SessionServiceClient
	tools    tooldv1.ToolServiceClient
}

func startNotes(t *testing.T, opts server.Options) *notesEnv {
	t.Helper()
	st := memstore.New()
	reg, err := tool.NewRegistry(echoTool{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := exec.NewEngine(exec.Config{Registry: reg, Store: st, Policy: policy.WorkspaceOnly{}})
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := session.NewManager(st, filepath.Join(t.TempDir(), "root"), eng, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := server.NewToolService(reg, eng, mgr, 8)
	if err != nil {
		t.Fatal(err)
	}
	ts.WithNotifications(st)
	srv, _ := server.New(opts, server.NewSessionService(mgr, eng), ts)
	conn := serveBufconn(t, srv)
	return &notesEnv{st: st, ts: ts, sessions: tooldv1.NewSessionServiceClient(conn), tools: tooldv1.NewToolServiceClient(conn)}
}

func (e *notesEnv) session(t *testing.T) string {
	t.Helper()
	resp, err := e.sessions.CreateSession(ctx(t), &tooldv1.CreateSessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return resp.GetSession().GetId()
}

func (e *notesEnv) add(t *testing.T, sid, kind, status string) {
	t.Helper()
	el := notify.Element{TaskID: "bash_0a1b2c3d4e5f", Summary: "Monitor event: \"x\"", Body: "\n<event>" + kind + "</event>"}
	if _, err := e.st.AddNotification(context.Background(), sid, store.Notification{
		Kind: kind, TaskID: "bash_0a1b2c3d4e5f", ToolUseID: "toolu_1", Status: status, Text: el.String(), At: time.Unix(1700000000, 0),
	}); err != nil {
		t.Fatal(err)
	}
}

func seqs(ns []*tooldv1.Notification) []int64 {
	var out []int64
	for _, n := range ns {
		out = append(out, n.GetSeq())
	}
	return out
}

func TestListNotifications(t *testing.T) {
	e := startNotes(t, server.Options{})
	sid := e.session(t)
	c := ctx(t)
	resp, err := e.tools.ListNotifications(c, &tooldv1.ListNotificationsRequest{SessionId: sid})
	if err != nil || len(resp.GetNotifications()) != 0 || resp.GetNextAfterSeq() != 0 {
		t.Fatalf("empty queue: %v, %v", resp, err)
	}
	e.add(t, sid, store.NoteMonitorEvent, "")
	e.add(t, sid, store.NoteShellEnded, "failed")
	e.add(t, sid, store.NoteAgentEnded, "completed")
	resp, err = e.tools.ListNotifications(c, &tooldv1.ListNotificationsRequest{SessionId: sid, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := seqs(resp.GetNotifications()); len(got) != 2 || got[0] != 1 || got[1] != 2 || resp.GetNextAfterSeq() != 2 || resp.GetDropped() != 0 {
		t.Fatalf("first two: %v, next %d", got, resp.GetNextAfterSeq())
	}
	n := resp.GetNotifications()[1]
	if n.GetKind() != tooldv1.NotificationKind_NOTIFICATION_KIND_SHELL_ENDED || n.GetStatus() != "failed" || n.GetTaskId() != "bash_0a1b2c3d4e5f" ||
		n.GetToolUseId() != "toolu_1" || n.GetCreateTime().AsTime().Unix() != 1700000000 ||
		n.GetText() != notify.Preamble+n.GetTaskNotification() || n.GetTaskNotification() == "" {
		t.Fatalf("notification %v", n)
	}
	// Nothing is consumed: the same cursor gives the same again.
	again, _ := e.tools.ListNotifications(c, &tooldv1.ListNotificationsRequest{SessionId: sid, Limit: 2})
	if len(again.GetNotifications()) != 2 || again.GetNotifications()[1].GetText() != n.GetText() {
		t.Fatalf("a second read: %v", again)
	}
	resp, _ = e.tools.ListNotifications(c, &tooldv1.ListNotificationsRequest{SessionId: sid, AfterSeq: 2})
	if got := seqs(resp.GetNotifications()); len(got) != 1 || got[0] != 3 || resp.GetNotifications()[0].GetKind() != tooldv1.NotificationKind_NOTIFICATION_KIND_AGENT_ENDED {
		t.Fatalf("after 2: %v", resp)
	}
	// A long poll returns with the one that comes.
	go func() {
		time.Sleep(50 * time.Millisecond)
		e.add(t, sid, store.NoteMonitorNotice, "")
	}()
	resp, err = e.tools.ListNotifications(c, &tooldv1.ListNotificationsRequest{SessionId: sid, AfterSeq: 3, WaitMs: 60000})
	if err != nil || len(resp.GetNotifications()) != 1 || resp.GetNextAfterSeq() != 4 {
		t.Fatalf("long poll: %v, %v", resp, err)
	}
	// Bad requests change nothing and say why.
	for _, bad := range []*tooldv1.ListNotificationsRequest{
		{SessionId: sid, AfterSeq: -1}, {SessionId: sid, Limit: 1001}, {SessionId: sid, WaitMs: 60001}, {},
	} {
		_, err := e.tools.ListNotifications(c, bad)
		wantCode(t, err, codes.InvalidArgument, "")
	}
	_, err = e.tools.ListNotifications(c, &tooldv1.ListNotificationsRequest{SessionId: "abcdefghijklmnopqrstuvwxyz"})
	wantCode(t, err, codes.NotFound, "abcdefghijklmnopqrstuvwxyz")
}

// More than a session keeps: the reader learns how many it missed.
func TestListNotificationsDropped(t *testing.T) {
	e := startNotes(t, server.Options{})
	sid := e.session(t)
	for range store.MaxNotifications + 3 {
		e.add(t, sid, store.NoteMonitorEvent, "")
	}
	resp, err := e.tools.ListNotifications(ctx(t), &tooldv1.ListNotificationsRequest{SessionId: sid, Limit: 1})
	if err != nil || resp.GetDropped() != 3 || seqs(resp.GetNotifications())[0] != 4 {
		t.Fatalf("%v, dropped %d, %v", seqs(resp.GetNotifications()), resp.GetDropped(), err)
	}
}

func TestWatchNotifications(t *testing.T) {
	e := startNotes(t, server.Options{StreamKeepalive: 100 * time.Millisecond})
	sid := e.session(t)
	e.add(t, sid, store.NoteMonitorEvent, "")
	c := ctx(t)
	w, err := e.tools.WatchNotifications(c, &tooldv1.WatchNotificationsRequest{SessionId: sid})
	if err != nil {
		t.Fatal(err)
	}
	// At once, what is kept.
	m, err := w.Recv()
	if err != nil || len(m.GetNotifications()) != 1 || m.GetNextAfterSeq() != 1 {
		t.Fatalf("first message %v, %v", m, err)
	}
	e.add(t, sid, store.NoteShellEnded, "completed")
	for {
		m, err = w.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if len(m.GetNotifications()) > 0 {
			break
		}
	}
	if got := seqs(m.GetNotifications()); len(got) != 1 || got[0] != 2 || m.GetNextAfterSeq() != 2 {
		t.Fatalf("second message %v", m)
	}
	// A quiet watch carries keepalives, with the cursor.
	m, err = w.Recv()
	if err != nil || len(m.GetNotifications()) != 0 || m.GetNextAfterSeq() != 2 {
		t.Fatalf("keepalive %v, %v", m, err)
	}
	// The session's end ends the watch.
	if _, err := e.sessions.DeleteSession(c, &tooldv1.DeleteSessionRequest{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	for {
		if _, err = w.Recv(); err != nil {
			break
		}
	}
	wantCode(t, err, codes.NotFound, sid)
	// A watch resumed after a cursor gets only what follows it.
	sid = e.session(t)
	e.add(t, sid, store.NoteMonitorEvent, "")
	e.add(t, sid, store.NoteMonitorEvent, "")
	w, err = e.tools.WatchNotifications(c, &tooldv1.WatchNotificationsRequest{SessionId: sid, AfterSeq: 1})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := w.Recv(); err != nil || len(m.GetNotifications()) != 1 || m.GetNotifications()[0].GetSeq() != 2 {
		t.Fatalf("resumed watch: %v, %v", m, err)
	}
}

// At shutdown the watches end with UNAVAILABLE, saying where to resume.
func TestStopWatches(t *testing.T) {
	e := startNotes(t, server.Options{})
	sid := e.session(t)
	e.add(t, sid, store.NoteMonitorEvent, "")
	w, err := e.tools.WatchNotifications(ctx(t), &tooldv1.WatchNotificationsRequest{SessionId: sid})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Recv(); err != nil {
		t.Fatal(err)
	}
	e.ts.StopWatches()
	e.ts.StopWatches()
	_, err = w.Recv()
	wantCode(t, err, codes.Unavailable, "after_seq 1")
	w, err = e.tools.WatchNotifications(ctx(t), &tooldv1.WatchNotificationsRequest{SessionId: sid})
	if err == nil {
		_, err = w.Recv()
		for err == nil {
			_, err = w.Recv()
		}
	}
	wantCode(t, err, codes.Unavailable, "shutting down")
}
