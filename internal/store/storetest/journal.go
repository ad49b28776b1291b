package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/toold/toold/internal/store"
)

var journalTests = []struct {
	name string
	fn   func(t *testing.T, s store.Store)
}{
	{"JournalClaimOnce", testClaimOnce},
	{"JournalConcurrentClaims", testConcurrentClaims},
	{"JournalConflictClaimsNothing", testClaimConflict},
	{"JournalSameOwnerReclaims", testSameOwnerReclaims},
	{"JournalFinishStoresEventsAndEffects", testFinish},
	{"JournalFinishNeedsOwner", testFinishNeedsOwner},
	{"JournalLapsedLeaseMayBeFinished", testLapsedLease},
	{"JournalRenewKeepsLease", testRenewLease},
	{"JournalRelease", testRelease},
	{"JournalReadWaitsForEvents", testReadWaits},
	{"JournalCapKeepsFinal", testEventCap},
	{"JournalRecordsExpire", testRecordsExpire},
	{"JournalMissingSession", testJournalMissingSession},
	{"JournalDeleteSessionDropsCalls", testJournalDelete},
	{"ETagFollowsChanges", testETag},
	{"CommitCall", testCommit},
	{"CommitCallStaleStoresNothing", testCommitStale},
	{"CommitCallExisting", testCommitExisting},
	{"Blobs", testBlobs},
	{"JournalEventValues", testEventValues},
}

var times = store.CallTimes{Lease: time.Minute, Keep: time.Hour}

func ref(sid, id string) store.CallRef { return store.CallRef{SessionID: sid, ToolUseID: id} }

func ev(seq int64, data string) store.CallEvent {
	return store.CallEvent{Seq: seq, Data: []byte(data)}
}

func final(seq int64, data string) store.CallEvent {
	return store.CallEvent{Seq: seq, Data: []byte(data), Final: true}
}

func begin(t *testing.T, s store.Store, sid, owner string, claims ...store.Claim) []store.ClaimResult {
	t.Helper()
	sess, res, err := s.BeginCalls(context.Background(), sid, owner, claims, times)
	if err != nil {
		t.Fatalf("BeginCalls(%s): %v", owner, err)
	}
	if sess.ID != sid || sess.Workspace != "/ws/"+sid {
		t.Fatalf("BeginCalls returned session %+v", sess)
	}
	if len(res) != len(claims) {
		t.Fatalf("BeginCalls returned %d results for %d claims", len(res), len(claims))
	}
	return res
}

func readAll(t *testing.T, s store.Store, r store.CallRef, after int64) ([]store.CallEvent, store.CallStatus) {
	t.Helper()
	evs, st, _, err := s.ReadEvents(context.Background(), r, after, 0)
	if err != nil {
		t.Fatalf("ReadEvents: %v", err)
	}
	return evs, st
}

func testClaimOnce(t *testing.T, s store.Store) {
	mustCreate(t, s, sample("s1"))
	a := store.Claim{ToolUseID: "toolu_a", Fingerprint: "fa"}
	b := store.Claim{ToolUseID: "toolu_b", Fingerprint: "fb"}
	res := begin(t, s, "s1", "owner1", a, b)
	if !res[0].Owned() || !res[1].Owned() {
		t.Fatalf("first claims not owned: %+v", res)
	}
	res = begin(t, s, "s1", "owner2", a)
	if res[0].Owned() || res[0].Status != store.CallRunning {
		t.Fatalf("second owner got %+v, want running and not owned", res[0])
	}
	if err := s.FinishCall(context.Background(), ref("s1", "toolu_a"), "owner1", []store.CallEvent{final(1, "r")}, store.Effects{}, times); err != nil {
		t.Fatal(err)
	}
	res = begin(t, s, "s1", "owner2", a, b)
	if res[0].Status != store.CallDone || res[1].Status != store.CallRunning {
		t.Fatalf("after finish: %+v, want done and running", res)
	}
}

func testConcurrentClaims(t *testing.T, s store.Store) {
	mustCreate(t, s, sample("s1"))
	const n = 16
	var wg sync.WaitGroup
	owned := make([]bool, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, res, err := s.BeginCalls(context.Background(), "s1", fmt.Sprintf("o%d", i),
				[]store.Claim{{ToolUseID: "toolu_x", Fingerprint: "f"}}, times)
			errs[i] = err
			if err == nil {
				owned[i] = res[0].Owned()
			}
		}()
	}
	wg.Wait()
	winners := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if owned[i] {
			winners++
		}
	}
	if winners != 1 {
		t.Fatalf("%d owners claimed the same call, want exactly 1", winners)
	}
}

func testClaimConflict(t *testing.T, s store.Store) {
	mustCreate(t, s, sample("s1"))
	begin(t, s, "s1", "o1", store.Claim{ToolUseID: "toolu_a", Fingerprint: "fa"})
	_, _, err := s.BeginCalls(context.Background(), "s1", "o2", []store.Claim{
		{ToolUseID: "toolu_new", Fingerprint: "fn"},
		{ToolUseID: "toolu_a", Fingerprint: "other"},
	}, times)
	if !errors.Is(err, store.ErrCallConflict) {
		t.Fatalf("reused id with other content: err = %v, want ErrCallConflict", err)
	}
	// Nothing was claimed: toolu_new is still free for anyone.
	res := begin(t, s, "s1", "o3", store.Claim{ToolUseID: "toolu_new", Fingerprint: "fn"})
	if !res[0].Owned() {
		t.Fatalf("a conflicting batch claimed its other calls: %+v", res[0])
	}
}

func testSameOwnerReclaims(t *testing.T, s store.Store) {
	mustCreate(t, s, sample("s1"))
	c := store.Claim{ToolUseID: "toolu_a", Fingerprint: "fa"}
	begin(t, s, "s1", "o1", c)
	// A request retried by the client library after a network error, with
	// the same owner, is the same claim.
	if res := begin(t, s, "s1", "o1", c); !res[0].Owned() {
		t.Fatalf("same owner: %+v, want owned", res[0])
	}
}

func testFinish(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	begin(t, s, "s1", "o1", store.Claim{ToolUseID: "toolu_a", Fingerprint: "fa"})
	r := ref("s1", "toolu_a")
	if err := s.AppendEvents(ctx, r, "o1", []store.CallEvent{ev(1, "decision"), ev(2, "started")}); err != nil {
		t.Fatal(err)
	}
	evs, st := readAll(t, s, r, 0)
	if len(evs) != 2 || st != store.CallRunning {
		t.Fatalf("while running: %d events, %v", len(evs), st)
	}
	stamp := store.FileStamp{ModTime: time.Date(2026, 5, 6, 7, 8, 9, 1000, time.UTC), Size: 42, Hash: sha("a.go")}
	fx := store.Effects{Reads: map[string]store.FileStamp{"/ws/s1/a.go": stamp}, Cwd: "/ws/s1/sub"}
	if err := s.FinishCall(ctx, r, "o1", []store.CallEvent{ev(3, "out"), final(4, "result")}, fx, times); err != nil {
		t.Fatal(err)
	}
	evs, st = readAll(t, s, r, 0)
	if st != store.CallDone || len(evs) != 4 {
		t.Fatalf("after finish: %d events, %v", len(evs), st)
	}
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
	}
	if string(evs[3].Data) != "result" || !evs[3].Final || evs[2].Final {
		t.Fatalf("last events: %+v %+v", evs[2], evs[3])
	}
	evs, _ = readAll(t, s, r, 2)
	if len(evs) != 2 || evs[0].Seq != 3 {
		t.Fatalf("after seq 2: %+v", evs)
	}
	got, ok, err := s.ReadStamp(ctx, "s1", "/ws/s1/a.go")
	if err != nil || !ok || !got.ModTime.Equal(stamp.ModTime) || got.Size != 42 || got.Hash != stamp.Hash {
		t.Fatalf("effect stamp: %+v %v %v", got, ok, err)
	}
	sess, err := s.GetSession(ctx, "s1")
	if err != nil || sess.Cwd != "/ws/s1/sub" {
		t.Fatalf("effect cwd: %+v %v", sess, err)
	}
	if err := s.AppendEvents(ctx, r, "o1", []store.CallEvent{ev(5, "late")}); !errors.Is(err, store.ErrNotOwner) {
		t.Fatalf("append after finish: %v, want ErrNotOwner", err)
	}
}

func testFinishNeedsOwner(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	begin(t, s, "s1", "o1", store.Claim{ToolUseID: "toolu_a", Fingerprint: "fa"})
	r := ref("s1", "toolu_a")
	err := s.FinishCall(ctx, r, "intruder", []store.CallEvent{final(1, "fake")}, store.Effects{Cwd: "/elsewhere"}, times)
	if !errors.Is(err, store.ErrNotOwner) {
		t.Fatalf("finish by another owner with a live lease: %v, want ErrNotOwner", err)
	}
	if evs, st := readAll(t, s, r, 0); len(evs) != 0 || st != store.CallRunning {
		t.Fatalf("refused finish changed the call: %d events, %v", len(evs), st)
	}
	if sess, _ := s.GetSession(ctx, "s1"); sess.Cwd == "/elsewhere" {
		t.Fatal("refused finish applied its effects")
	}
	if err := s.FinishCall(ctx, ref("s1", "toolu_never"), "o1", nil, store.Effects{}, times); !errors.Is(err, store.ErrNotOwner) {
		t.Fatalf("finish of an unclaimed call: %v, want ErrNotOwner", err)
	}
}

func testLapsedLease(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	short := store.CallTimes{Lease: 50 * time.Millisecond, Keep: time.Hour}
	if _, _, err := s.BeginCalls(ctx, "s1", "dead", []store.Claim{{ToolUseID: "toolu_a", Fingerprint: "fa"}}, short); err != nil {
		t.Fatal(err)
	}
	r := ref("s1", "toolu_a")
	waitFor(t, func() bool {
		_, st, expired, err := s.ReadEvents(ctx, r, 0, 0)
		return err == nil && st == store.CallRunning && expired
	})
	// The lapsed claim is not handed out again: the call may have run.
	if res := begin(t, s, "s1", "o2", store.Claim{ToolUseID: "toolu_a", Fingerprint: "fa"}); res[0].Owned() {
		t.Fatal("a lapsed claim was given to another owner")
	}
	if err := s.FinishCall(ctx, r, "o2", []store.CallEvent{final(1, "unknown")}, store.Effects{}, times); err != nil {
		t.Fatalf("finishing a lapsed call: %v", err)
	}
	if evs, st := readAll(t, s, r, 0); st != store.CallDone || len(evs) != 1 {
		t.Fatalf("after finishing a lapsed call: %d events, %v", len(evs), st)
	}
}

func testRenewLease(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	short := store.CallTimes{Lease: 300 * time.Millisecond, Keep: time.Hour}
	if _, _, err := s.BeginCalls(ctx, "s1", "o1", []store.Claim{{ToolUseID: "toolu_a", Fingerprint: "fa"}}, short); err != nil {
		t.Fatal(err)
	}
	r := ref("s1", "toolu_a")
	if err := s.RenewLeases(ctx, "o1", []store.CallRef{r}, time.Hour); err != nil {
		t.Fatal(err)
	}
	time.Sleep(400 * time.Millisecond)
	if _, _, expired, err := s.ReadEvents(ctx, r, 0, 0); err != nil || expired {
		t.Fatalf("renewed lease reads as expired (%v)", err)
	}
	if err := s.FinishCall(ctx, r, "o2", nil, store.Effects{}, times); !errors.Is(err, store.ErrNotOwner) {
		t.Fatalf("finish by another owner of a renewed call: %v", err)
	}
	// Renewing someone else's call does nothing.
	if err := s.RenewLeases(ctx, "o2", []store.CallRef{r, ref("nosuch", "x")}, time.Hour); err != nil {
		t.Fatal(err)
	}
}

func testRelease(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	c := store.Claim{ToolUseID: "toolu_a", Fingerprint: "fa"}
	begin(t, s, "s1", "o1", c)
	r := ref("s1", "toolu_a")
	if err := s.ReleaseCall(ctx, r, "o2"); err != nil {
		t.Fatal(err)
	}
	if _, st := readAll(t, s, r, 0); st != store.CallRunning {
		t.Fatalf("release by a non-owner changed the call: %v", st)
	}
	if err := s.AppendEvents(ctx, r, "o1", []store.CallEvent{ev(1, "decision")}); err != nil {
		t.Fatal(err)
	}
	if err := s.ReleaseCall(ctx, r, "o1"); err != nil {
		t.Fatal(err)
	}
	if evs, st := readAll(t, s, r, 0); st != store.CallAbsent || len(evs) != 0 {
		t.Fatalf("after release: %d events, %v", len(evs), st)
	}
	// The call, and any reuse of its id, is free again.
	if res := begin(t, s, "s1", "o2", store.Claim{ToolUseID: "toolu_a", Fingerprint: "other"}); !res[0].Owned() {
		t.Fatalf("released call not claimable: %+v", res[0])
	}
}

func testReadWaits(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	begin(t, s, "s1", "o1", store.Claim{ToolUseID: "toolu_a", Fingerprint: "fa"})
	r := ref("s1", "toolu_a")
	type read struct {
		evs []store.CallEvent
		st  store.CallStatus
		err error
	}
	got := make(chan read, 1)
	go func() {
		evs, st, _, err := s.ReadEvents(ctx, r, 0, 10*time.Second)
		got <- read{evs, st, err}
	}()
	time.Sleep(50 * time.Millisecond)
	if err := s.AppendEvents(ctx, r, "o1", []store.CallEvent{ev(1, "started")}); err != nil {
		t.Fatal(err)
	}
	select {
	case g := <-got:
		if g.err != nil || len(g.evs) != 1 || string(g.evs[0].Data) != "started" {
			t.Fatalf("waiting read: %+v", g)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a waiting read did not see the appended event")
	}
	// A bounded wait with nothing new returns nothing.
	evs, st, _, err := s.ReadEvents(ctx, r, 1, 50*time.Millisecond)
	if err != nil || len(evs) != 0 || st != store.CallRunning {
		t.Fatalf("empty wait: %v %v %v", evs, st, err)
	}
	// A finished call never waits.
	if err := s.FinishCall(ctx, r, "o1", []store.CallEvent{final(2, "r")}, store.Effects{}, times); err != nil {
		t.Fatal(err)
	}
	evs, st, _, err = s.ReadEvents(ctx, r, 2, time.Hour)
	if err != nil || len(evs) != 0 || st != store.CallDone {
		t.Fatalf("read past the end of a done call: %v %v %v", evs, st, err)
	}
}

func testEventCap(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	begin(t, s, "s1", "o1", store.Claim{ToolUseID: "toolu_a", Fingerprint: "fa"})
	r := ref("s1", "toolu_a")
	n := int64(store.MaxCallEvents + 500)
	var batch []store.CallEvent
	for i := int64(1); i <= n; i++ {
		batch = append(batch, ev(i, "p"))
		if len(batch) == 256 {
			if err := s.AppendEvents(ctx, r, "o1", batch); err != nil {
				t.Fatal(err)
			}
			batch = nil
		}
	}
	if err := s.FinishCall(ctx, r, "o1", append(batch, final(n+1, "result")), store.Effects{}, times); err != nil {
		t.Fatal(err)
	}
	evs, _ := readAll(t, s, r, 0)
	// Redis trims streams approximately; allow some slack above the cap,
	// but the oldest must be gone and the final kept.
	if len(evs) < store.MaxCallEvents || len(evs) > store.MaxCallEvents+200 {
		t.Fatalf("kept %d events, want about %d", len(evs), store.MaxCallEvents)
	}
	if evs[0].Seq == 1 {
		t.Fatal("the oldest event was kept past the cap")
	}
	if last := evs[len(evs)-1]; !last.Final || last.Seq != n+1 {
		t.Fatalf("last kept event %+v, want the final one", last)
	}
}

func testRecordsExpire(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	short := store.CallTimes{Lease: time.Minute, Keep: 100 * time.Millisecond}
	c := store.Claim{ToolUseID: "toolu_a", Fingerprint: "fa"}
	if _, _, err := s.BeginCalls(ctx, "s1", "o1", []store.Claim{c}, short); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishCall(ctx, ref("s1", "toolu_a"), "o1", []store.CallEvent{final(1, "r")}, store.Effects{}, short); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		_, st, _, err := s.ReadEvents(ctx, ref("s1", "toolu_a"), 0, 0)
		return err == nil && st == store.CallAbsent
	})
	if _, err := s.GetSession(ctx, "s1"); err != nil {
		t.Fatalf("an expired call record took its session along: %v", err)
	}
}

func testJournalMissingSession(t *testing.T, s store.Store) {
	ctx := context.Background()
	_, _, err := s.BeginCalls(ctx, "nosuch", "o1", []store.Claim{{ToolUseID: "a", Fingerprint: "f"}}, times)
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("BeginCalls on a missing session: %v", err)
	}
	if _, _, _, err := s.ReadEvents(ctx, ref("nosuch", "a"), 0, 0); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("ReadEvents on a missing session: %v", err)
	}
}

func testJournalDelete(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	begin(t, s, "s1", "o1", store.Claim{ToolUseID: "toolu_a", Fingerprint: "fa"})
	if err := s.FinishCall(ctx, ref("s1", "toolu_a"), "o1", []store.CallEvent{final(1, "r")}, store.Effects{}, times); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, sample("s1"))
	if res := begin(t, s, "s1", "o2", store.Claim{ToolUseID: "toolu_a", Fingerprint: "fa"}); !res[0].Owned() {
		t.Fatalf("a new session under the same id saw the old one's call: %+v", res[0])
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func etagOf(t *testing.T, s store.Store, id string) string {
	t.Helper()
	sess, err := s.GetSession(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if sess.ETag == "" {
		t.Fatal("GetSession returned no ETag")
	}
	return sess.ETag
}

func testETag(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	e0 := etagOf(t, s, "s1")
	if etagOf(t, s, "s1") != e0 {
		t.Fatal("the ETag changed without a change")
	}
	if sess, _, _ := s.BeginCalls(ctx, "s1", "o", nil, times); sess.ETag != e0 {
		t.Fatalf("BeginCalls ETag %q, GetSession %q", sess.ETag, e0)
	}
	if err := s.SetCwd(ctx, "s1", "/ws/s1/x"); err != nil {
		t.Fatal(err)
	}
	e1 := etagOf(t, s, "s1")
	if e1 == e0 {
		t.Fatal("SetCwd kept the ETag")
	}
	up, err := s.UpdateSession(ctx, "s1", func(x *store.Session) error { x.Mode = "plan"; return nil })
	if err != nil {
		t.Fatal(err)
	}
	e2 := etagOf(t, s, "s1")
	if e2 == e1 || up.ETag != e2 {
		t.Fatalf("UpdateSession: ETag %q -> %q, returned %q", e1, e2, up.ETag)
	}
	begin(t, s, "s1", "o", store.Claim{ToolUseID: "a", Fingerprint: "f"})
	if err := s.FinishCall(ctx, ref("s1", "a"), "o", []store.CallEvent{final(1, "r")}, store.Effects{Cwd: "/ws/s1/y"}, times); err != nil {
		t.Fatal(err)
	}
	if etagOf(t, s, "s1") == e2 {
		t.Fatal("a finish that moved the cwd kept the ETag")
	}
}

func testCommit(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	stamp := store.FileStamp{ModTime: time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC), Size: 3, Hash: sha("f")}
	res, err := s.CommitCall(ctx, ref("s1", "toolu_r"), "fr", etagOf(t, s, "s1"),
		[]store.CallEvent{ev(1, "decision"), ev(2, "started"), final(3, "result")},
		store.Effects{Reads: map[string]store.FileStamp{"/ws/s1/f": stamp}}, times)
	if err != nil || res != store.Committed {
		t.Fatalf("CommitCall = %v, %v", res, err)
	}
	evs, st := readAll(t, s, ref("s1", "toolu_r"), 0)
	if st != store.CallDone || len(evs) != 3 || !evs[2].Final {
		t.Fatalf("committed call: %d events, %v", len(evs), st)
	}
	if got, ok, _ := s.ReadStamp(ctx, "s1", "/ws/s1/f"); !ok || got.Size != 3 || got.Hash != stamp.Hash {
		t.Fatal("the committed call's stamp is missing")
	}
	// A retry of the committed call is answered from its record.
	if r := begin(t, s, "s1", "o2", store.Claim{ToolUseID: "toolu_r", Fingerprint: "fr"}); r[0].Status != store.CallDone {
		t.Fatalf("claim of a committed call: %+v", r[0])
	}
	if _, err := s.CommitCall(ctx, ref("nosuch", "x"), "f", "e", nil, store.Effects{}, times); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("commit on a missing session: %v", err)
	}
}

func testCommitStale(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	old := etagOf(t, s, "s1")
	if _, err := s.UpdateSession(ctx, "s1", func(x *store.Session) error {
		x.Deny = append(x.Deny, "Read")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	res, err := s.CommitCall(ctx, ref("s1", "toolu_r"), "fr", old, []store.CallEvent{final(1, "result")},
		store.Effects{Reads: map[string]store.FileStamp{"/ws/s1/f": {Size: 1}}}, times)
	if err != nil || res != store.CommitStale {
		t.Fatalf("commit with an old ETag = %v, %v; want CommitStale", res, err)
	}
	if _, st := readAll(t, s, ref("s1", "toolu_r"), 0); st != store.CallAbsent {
		t.Fatalf("a stale commit left a record: %v", st)
	}
	if _, ok, _ := s.ReadStamp(ctx, "s1", "/ws/s1/f"); ok {
		t.Fatal("a stale commit applied its effects")
	}
}

func testCommitExisting(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	begin(t, s, "s1", "o1", store.Claim{ToolUseID: "toolu_r", Fingerprint: "fr"})
	res, err := s.CommitCall(ctx, ref("s1", "toolu_r"), "fr", etagOf(t, s, "s1"), []store.CallEvent{final(1, "mine")}, store.Effects{}, times)
	if err != nil || res != store.CommitExists {
		t.Fatalf("commit of a claimed call = %v, %v; want CommitExists", res, err)
	}
	if evs, st := readAll(t, s, ref("s1", "toolu_r"), 0); st != store.CallRunning || len(evs) != 0 {
		t.Fatalf("the commit touched the claimed call: %d events, %v", len(evs), st)
	}
	_, err = s.CommitCall(ctx, ref("s1", "toolu_r"), "other", etagOf(t, s, "s1"), nil, store.Effects{}, times)
	if !errors.Is(err, store.ErrCallConflict) {
		t.Fatalf("commit with another fingerprint: %v", err)
	}
}

func testBlobs(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	mustCreate(t, s, sample("s2"))
	if _, ok, err := s.GetBlob(ctx, "s1", "todos"); err != nil || ok {
		t.Fatalf("blob before any: %v %v", ok, err)
	}
	big := make([]byte, 300_000)
	for i := range big {
		big[i] = byte(i)
	}
	begin(t, s, "s1", "o", store.Claim{ToolUseID: "a", Fingerprint: "f"})
	fx := store.Effects{Blobs: map[string][]byte{"todos": []byte(`[{"content":"x"}]`), "result:a": big, "empty": {}}}
	if err := s.FinishCall(ctx, ref("s1", "a"), "o", []store.CallEvent{final(1, "r")}, fx, times); err != nil {
		t.Fatal(err)
	}
	if b, ok, err := s.GetBlob(ctx, "s1", "result:a"); err != nil || !ok || string(b) != string(big) {
		t.Fatalf("large blob: %d bytes, %v, %v", len(b), ok, err)
	}
	if b, ok, err := s.GetBlob(ctx, "s1", "empty"); err != nil || !ok || len(b) != 0 {
		t.Fatalf("empty blob: %q %v %v", b, ok, err)
	}
	if _, ok, _ := s.GetBlob(ctx, "s2", "todos"); ok {
		t.Fatal("a blob leaked into another session")
	}
	// A blob is not a file stamp.
	if _, ok, _ := s.ReadStamp(ctx, "s1", "todos"); ok {
		t.Fatal("a blob reads as a stamp")
	}
	if _, err := s.CommitCall(ctx, ref("s1", "b"), "f", etagOf(t, s, "s1"), []store.CallEvent{final(1, "r")},
		store.Effects{Blobs: map[string][]byte{"todos": []byte("[]")}}, times); err != nil {
		t.Fatal(err)
	}
	if b, _, _ := s.GetBlob(ctx, "s1", "todos"); string(b) != "[]" {
		t.Fatalf("blob after a commit: %q", b)
	}
	if err := s.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.GetBlob(ctx, "s1", "todos"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("blob of a deleted session: %v", err)
	}
	mustCreate(t, s, sample("s1"))
	if _, ok, _ := s.GetBlob(ctx, "s1", "todos"); ok {
		t.Fatal("a new session under the same id has the old one's blobs")
	}
}

// textValue is an event that encodes itself (store.EventValue).
type textValue string

func (v textValue) EncodeEvent() []byte { return []byte(v) }

// testEventValues: events handed over as values read back as the same
// events, whether the store kept the value or its bytes.
func testEventValues(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	begin(t, s, "s1", "o1", store.Claim{ToolUseID: "toolu_a", Fingerprint: "fa"})
	r := ref("s1", "toolu_a")
	if err := s.AppendEvents(ctx, r, "o1", []store.CallEvent{{Seq: 1, Value: textValue("decision")}}); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishCall(ctx, r, "o1", []store.CallEvent{ev(2, "out"), {Seq: 3, Value: textValue("result"), Final: true}}, store.Effects{}, times); err != nil {
		t.Fatal(err)
	}
	evs, st := readAll(t, s, r, 0)
	if st != store.CallDone || len(evs) != 3 {
		t.Fatalf("after finish: %d events, %v", len(evs), st)
	}
	for i, want := range []string{"decision", "out", "result"} {
		if got := string(evs[i].Bytes()); got != want || evs[i].Seq != int64(i+1) {
			t.Errorf("event %d = seq %d %q, want %q", i, evs[i].Seq, got, want)
		}
	}
	if !evs[2].Final {
		t.Error("the result is not final")
	}
}
