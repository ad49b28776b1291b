package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/toold/toold/internal/store"
)

var boardTests = []struct {
	name string
	fn   func(t *testing.T, s store.Store)
}{
	{"ListSessionsOfOneTenant", testListSessions},
	{"FeedAppendAndRead", testFeed},
	{"FeedWaitWakesOnAppend", testFeedWait},
	{"FeedIsBounded", testFeedBounded},
	{"AsksListedUntilDropped", testAsks},
	{"DeleteDropsBoard", testDeleteBoard},
}

func testListSessions(t *testing.T, s store.Store) {
	ctx := context.Background()
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i, tenant := range []string{"team-a", "team-b", "team-a", "team-a"} {
		sess := sample(fmt.Sprintf("s%d", i))
		sess.Tenant = tenant
		sess.CreatedAt = base.Add(time.Duration(i) * time.Minute)
		mustCreate(t, s, sess)
	}
	ids := func(list []*store.Session) []string {
		var out []string
		for _, x := range list {
			out = append(out, x.ID)
		}
		return out
	}
	got, err := s.ListSessions(ctx, "team-a", 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := "[s3 s2 s0]"; fmt.Sprint(ids(got)) != want {
		t.Fatalf("team-a sessions = %v, want %s (newest first)", ids(got), want)
	}
	if got[0].Tenant != "team-a" || got[0].Workspace != "/ws/s3" {
		t.Fatalf("listed session = %+v", got[0])
	}
	if got, _ := s.ListSessions(ctx, "team-a", 2); fmt.Sprint(ids(got)) != "[s3 s2]" {
		t.Fatalf("limit 2: %v", ids(got))
	}
	if got, _ := s.ListSessions(ctx, "team-c", 10); len(got) != 0 {
		t.Fatalf("unknown tenant: %v", ids(got))
	}
	if err := s.DeleteSession(ctx, "s2"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.ListSessions(ctx, "team-a", 10); fmt.Sprint(ids(got)) != "[s3 s0]" {
		t.Fatalf("after deleting s2: %v", ids(got))
	}
	if got, _ := s.ListSessions(ctx, "team-b", 10); fmt.Sprint(ids(got)) != "[s1]" {
		t.Fatalf("team-b: %v", ids(got))
	}
}

func feedData(evs []store.FeedEntry) string {
	var out []string
	for _, e := range evs {
		out = append(out, fmt.Sprintf("%d:%s", e.Seq, e.Data))
	}
	return fmt.Sprint(out)
}

func testFeed(t *testing.T, s store.Store) {
	ctx := context.Background()
	if err := s.AppendFeed(ctx, "nope", []byte("x")); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("AppendFeed on a missing session: %v, want ErrNotFound", err)
	}
	if evs, err := s.ReadFeed(ctx, "nope", 0, 0); err != nil || len(evs) != 0 {
		t.Fatalf("ReadFeed on a missing session = %v, %v; want empty", evs, err)
	}
	mustCreate(t, s, sample("s1"))
	if err := s.AppendFeed(ctx, "s1", []byte("a"), []byte("b")); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendFeed(ctx, "s1", []byte(`{"c":"\u0000"}`)); err != nil {
		t.Fatal(err)
	}
	evs, err := s.ReadFeed(ctx, "s1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := `[1:a 2:b 3:{"c":"\u0000"}]`; feedData(evs) != want {
		t.Fatalf("feed = %s, want %s", feedData(evs), want)
	}
	if evs, _ := s.ReadFeed(ctx, "s1", 2, 0); feedData(evs) != `[3:{"c":"\u0000"}]` {
		t.Fatalf("after 2: %s", feedData(evs))
	}
	if evs, err := s.ReadFeed(ctx, "s1", 3, 0); err != nil || len(evs) != 0 {
		t.Fatalf("after the last = %s, %v; want empty", feedData(evs), err)
	}
	// The feed is per session.
	mustCreate(t, s, sample("s2"))
	if evs, _ := s.ReadFeed(ctx, "s2", 0, 0); len(evs) != 0 {
		t.Fatalf("s2's feed has s1's entries: %s", feedData(evs))
	}
}

func testFeedWait(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	got := make(chan []store.FeedEntry, 1)
	errc := make(chan error, 1)
	go func() {
		evs, err := s.ReadFeed(ctx, "s1", 0, time.Minute)
		got <- evs
		errc <- err
	}()
	if err := s.AppendFeed(ctx, "s1", []byte("late")); err != nil {
		t.Fatal(err)
	}
	if evs := <-got; feedData(evs) != "[1:late]" {
		t.Fatalf("waiting reader got %s", feedData(evs))
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	// A reader whose context ends stops waiting.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.ReadFeed(cctx, "s1", 1, time.Minute); err == nil {
		t.Fatal("ReadFeed with a cancelled context waited and returned nil")
	}
}

func testFeedBounded(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	n := store.MaxFeedEntries + 5
	batch := make([][]byte, 0, 100)
	for i := 1; i <= n; i++ {
		batch = append(batch, []byte(fmt.Sprint(i)))
		if len(batch) == cap(batch) || i == n {
			if err := s.AppendFeed(ctx, "s1", batch...); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	evs, err := s.ReadFeed(ctx, "s1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != store.MaxFeedEntries || evs[0].Seq != 6 || evs[len(evs)-1].Seq != int64(n) || string(evs[len(evs)-1].Data) != fmt.Sprint(n) {
		t.Fatalf("kept %d entries, %d..%d; want the newest %d", len(evs), evs[0].Seq, evs[len(evs)-1].Seq, store.MaxFeedEntries)
	}
}

func askIDs(asks []store.PendingAsk) string {
	var out []string
	for _, a := range asks {
		out = append(out, a.RequestID+"="+string(a.Data))
	}
	return fmt.Sprint(out)
}

func testAsks(t *testing.T, s store.Store) {
	ctx := context.Background()
	if err := s.PutAsk(ctx, "nope", "r1", []byte("x"), time.Minute); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("PutAsk on a missing session: %v, want ErrNotFound", err)
	}
	mustCreate(t, s, sample("s1"))
	mustCreate(t, s, sample("s2"))
	for _, id := range []string{"r1", "r2"} {
		if err := s.PutAsk(ctx, "s1", id, []byte("d"+id), time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	// A request whose time is up is not listed.
	if err := s.PutAsk(ctx, "s1", "r0", []byte("old"), -time.Second); err != nil {
		t.Fatal(err)
	}
	asks, err := s.ListAsks(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if want := "[r1=dr1 r2=dr2]"; askIDs(asks) != want {
		t.Fatalf("asks = %s, want %s", askIDs(asks), want)
	}
	if asks, _ := s.ListAsks(ctx, "s2"); len(asks) != 0 {
		t.Fatalf("s2 lists s1's asks: %s", askIDs(asks))
	}
	if err := s.DropAsk(ctx, "s1", "r1"); err != nil {
		t.Fatal(err)
	}
	if err := s.DropAsk(ctx, "s1", "r1"); err != nil {
		t.Fatalf("dropping an absent request: %v", err)
	}
	if asks, _ := s.ListAsks(ctx, "s1"); askIDs(asks) != "[r2=dr2]" {
		t.Fatalf("after dropping r1: %s", askIDs(asks))
	}
	if asks, err := s.ListAsks(ctx, "nope"); err != nil || len(asks) != 0 {
		t.Fatalf("ListAsks of a missing session = %s, %v", askIDs(asks), err)
	}
}

func testDeleteBoard(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	if err := s.AppendFeed(ctx, "s1", []byte("a")); err != nil {
		t.Fatal(err)
	}
	if err := s.PutAsk(ctx, "s1", "r1", []byte("x"), time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if evs, err := s.ReadFeed(ctx, "s1", 0, 0); err != nil || len(evs) != 0 {
		t.Fatalf("feed after delete = %s, %v", feedData(evs), err)
	}
	if asks, err := s.ListAsks(ctx, "s1"); err != nil || len(asks) != 0 {
		t.Fatalf("asks after delete = %s, %v", askIDs(asks), err)
	}
	if err := s.AppendFeed(ctx, "s1", []byte("b")); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("AppendFeed after delete: %v", err)
	}
}
