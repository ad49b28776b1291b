package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toold/toold/internal/store"
)

var notificationTests = []struct {
	name string
	fn   func(t *testing.T, s store.Store)
}{
	{"NotificationsRoundTrip", testNotesRoundTrip},
	{"NotificationsWait", testNotesWait},
	{"NotificationsBounded", testNotesBounded},
	{"NotificationsDeleted", testNotesDeleted},
	{"NotificationsTooLarge", testNotesTooLarge},
	{"NotificationsConcurrentAdds", testNotesConcurrent},
}

func note(i int) store.Notification {
	return store.Notification{
		Kind: store.NoteMonitorEvent, TaskID: "bash_0a1b2c3d4e5f", ToolUseID: "toolu_01",
		Text: fmt.Sprintf("<task-notification>\n<event>line %d: é \u0000 <&></event>\n</task-notification>", i),
		At:   time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC).Add(time.Duration(i) * time.Second),
	}
}

func noteSeqs(p store.NotificationPage) string {
	var out []string
	for _, n := range p.Notifications {
		out = append(out, fmt.Sprint(n.Seq))
	}
	return fmt.Sprintf("%v dropped %d", out, p.Dropped)
}

func mustAddNote(t *testing.T, s store.Store, id string, n store.Notification) int64 {
	t.Helper()
	seq, err := s.AddNotification(context.Background(), id, n)
	if err != nil {
		t.Fatalf("AddNotification(%s): %v", id, err)
	}
	return seq
}

func testNotesRoundTrip(t *testing.T, s store.Store) {
	ctx := context.Background()
	if _, err := s.AddNotification(ctx, "nope", note(1)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("AddNotification on a missing session: %v, want ErrNotFound", err)
	}
	if _, err := s.ReadNotifications(ctx, "nope", 0, 0, 0); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("ReadNotifications on a missing session: %v, want ErrNotFound", err)
	}
	mustCreate(t, s, sample("s1"))
	mustCreate(t, s, sample("s2"))
	for i := 1; i <= 3; i++ {
		if seq := mustAddNote(t, s, "s1", note(i)); seq != int64(i) {
			t.Fatalf("notification %d got seq %d", i, seq)
		}
	}
	end := note(4)
	end.Kind, end.Status = store.NoteShellEnded, "failed"
	mustAddNote(t, s, "s1", end)
	p, err := s.ReadNotifications(ctx, "s1", 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := noteSeqs(p); got != "[1 2 3 4] dropped 0" {
		t.Fatalf("read after 0: %s", got)
	}
	for i, n := range p.Notifications {
		want := note(i + 1)
		if i == 3 {
			want = end
		}
		want.Seq = int64(i + 1)
		if n.Kind != want.Kind || n.TaskID != want.TaskID || n.ToolUseID != want.ToolUseID || n.Status != want.Status || n.Text != want.Text || !n.At.Equal(want.At) || n.Seq != want.Seq {
			t.Fatalf("notification %d = %+v, want %+v", i+1, n, want)
		}
	}
	if p, _ := s.ReadNotifications(ctx, "s1", 2, 0, 0); noteSeqs(p) != "[3 4] dropped 0" {
		t.Fatalf("read after 2: %s", noteSeqs(p))
	}
	if p, _ := s.ReadNotifications(ctx, "s1", 0, 2, 0); noteSeqs(p) != "[1 2] dropped 0" {
		t.Fatalf("read of 2: %s", noteSeqs(p))
	}
	if p, err := s.ReadNotifications(ctx, "s1", 4, 0, 0); err != nil || len(p.Notifications) != 0 {
		t.Fatalf("read after the last = %s, %v; want none", noteSeqs(p), err)
	}
	if p, err := s.ReadNotifications(ctx, "s1", -3, 1, 0); err != nil || noteSeqs(p) != "[1] dropped 0" {
		t.Fatalf("read after -3 = %s, %v; want the first", noteSeqs(p), err)
	}
	// The queue is per session, numbered per session.
	if p, _ := s.ReadNotifications(ctx, "s2", 0, 0, 0); len(p.Notifications) != 0 {
		t.Fatalf("s2 has s1's notifications: %s", noteSeqs(p))
	}
	if seq := mustAddNote(t, s, "s2", note(9)); seq != 1 {
		t.Fatalf("s2's first notification got seq %d", seq)
	}
}

func testNotesWait(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	type read struct {
		p   store.NotificationPage
		err error
	}
	got := make(chan read, 1)
	go func() {
		p, err := s.ReadNotifications(ctx, "s1", 0, 0, time.Minute)
		got <- read{p, err}
	}()
	// Added once the reader waits (or before: either way it gets it).
	time.Sleep(50 * time.Millisecond)
	mustAddNote(t, s, "s1", note(1))
	if r := <-got; r.err != nil || noteSeqs(r.p) != "[1] dropped 0" {
		t.Fatalf("waiting reader got %s, %v", noteSeqs(r.p), r.err)
	}
	// A wait that ends with nothing new returns nothing, and no error.
	if p, err := s.ReadNotifications(ctx, "s1", 1, 0, 30*time.Millisecond); err != nil || len(p.Notifications) != 0 {
		t.Fatalf("a wait with nothing new = %s, %v", noteSeqs(p), err)
	}
	// A reader whose context ends stops waiting.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.ReadNotifications(cctx, "s1", 1, 0, time.Minute); err == nil {
		t.Fatal("ReadNotifications with a cancelled context waited and returned nil")
	}
}

func testNotesBounded(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	n := store.MaxNotifications + 5
	for i := 1; i <= n; i++ {
		mustAddNote(t, s, "s1", note(i))
	}
	p, err := s.ReadNotifications(ctx, "s1", 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Notifications) != store.MaxNotifications || p.Notifications[0].Seq != 6 || p.Notifications[len(p.Notifications)-1].Seq != int64(n) || p.Dropped != 5 {
		t.Fatalf("kept %d, first %d, last %d, dropped %d; want the newest %d and 5 dropped",
			len(p.Notifications), p.Notifications[0].Seq, p.Notifications[len(p.Notifications)-1].Seq, p.Dropped, store.MaxNotifications)
	}
	if p.Notifications[0].Text != note(6).Text {
		t.Fatalf("the oldest kept is %q", p.Notifications[0].Text)
	}
	if p, _ := s.ReadNotifications(ctx, "s1", 3, 1, 0); noteSeqs(p) != "[6] dropped 2" {
		t.Fatalf("read after 3: %s", noteSeqs(p))
	}
	if p, _ := s.ReadNotifications(ctx, "s1", 5, 1, 0); noteSeqs(p) != "[6] dropped 0" {
		t.Fatalf("read after 5: %s", noteSeqs(p))
	}
}

func testNotesDeleted(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	mustAddNote(t, s, "s1", note(1))
	errc := make(chan error, 1)
	go func() {
		_, err := s.ReadNotifications(ctx, "s1", 1, 0, time.Minute)
		errc <- err
	}()
	time.Sleep(50 * time.Millisecond)
	if err := s.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	// A reader waiting on a session that goes away is told so.
	select {
	case err := <-errc:
		if !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a reader waiting while its session was deleted got %v, want ErrNotFound", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a reader waiting while its session was deleted still waits")
	}
	if _, err := s.AddNotification(ctx, "s1", note(2)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("AddNotification after delete: %v", err)
	}
	// A new session under the id starts with an empty queue, from 1.
	mustCreate(t, s, sample("s1"))
	if p, err := s.ReadNotifications(ctx, "s1", 0, 0, 0); err != nil || len(p.Notifications) != 0 {
		t.Fatalf("the new session has %s, %v", noteSeqs(p), err)
	}
	if seq := mustAddNote(t, s, "s1", note(3)); seq != 1 {
		t.Fatalf("the new session's first notification got seq %d", seq)
	}
}

func testNotesTooLarge(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	big := note(1)
	big.Text = strings.Repeat("x", store.MaxNotificationBytes+1)
	if _, err := s.AddNotification(ctx, "s1", big); !errors.Is(err, store.ErrNotificationTooLarge) {
		t.Fatalf("a notification over the bound: %v, want ErrNotificationTooLarge", err)
	}
	big.Text = big.Text[1:]
	if seq := mustAddNote(t, s, "s1", big); seq != 1 {
		t.Fatalf("the refused notification used a seq: the next got %d", seq)
	}
}

func testNotesConcurrent(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	const n = 40
	var wg sync.WaitGroup
	seqs := make(chan int64, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seq, err := s.AddNotification(ctx, "s1", note(i))
			if err != nil {
				t.Error(err)
			}
			seqs <- seq
		}()
	}
	wg.Wait()
	close(seqs)
	seen := map[int64]bool{}
	for seq := range seqs {
		if seq < 1 || seq > n || seen[seq] {
			t.Fatalf("seq %d given out twice or out of 1..%d", seq, n)
		}
		seen[seq] = true
	}
	p, err := s.ReadNotifications(ctx, "s1", 0, 0, 0)
	if err != nil || len(p.Notifications) != n {
		t.Fatalf("read %d of %d, %v", len(p.Notifications), n, err)
	}
	for i, nt := range p.Notifications {
		if nt.Seq != int64(i+1) {
			t.Fatalf("notification %d has seq %d: not in order", i+1, nt.Seq)
		}
	}
}
