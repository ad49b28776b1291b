package memstore

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/toold/toold/internal/store"
)

func newSession(t testing.TB, m *Store) *entry {
	t.Helper()
	if err := m.CreateSession(context.Background(), &store.Session{ID: "s1", Workspace: "/w"}); err != nil {
		t.Fatal(err)
	}
	return m.sessions["s1"]
}

func begin(t testing.TB, m *Store, id string, ct store.CallTimes) {
	t.Helper()
	if _, res, err := m.BeginCalls(context.Background(), "s1", "o1", []store.Claim{{ToolUseID: id, Fingerprint: "f"}}, ct); err != nil || !res[0].Owned() {
		t.Fatalf("BeginCalls %s: %v %+v", id, err, res)
	}
}

func finish(t testing.TB, m *Store, id string, ct store.CallTimes) {
	t.Helper()
	if err := m.FinishCall(context.Background(), store.CallRef{SessionID: "s1", ToolUseID: id}, "o1", nil, store.Effects{}, ct); err != nil {
		t.Fatalf("FinishCall %s: %v", id, err)
	}
}

// Expired records leave the map on the next claim or commit, whichever
// comes, so that it stays bounded by the calls within the keep time.
func TestExpiredRecordsAreDropped(t *testing.T) {
	m := New()
	e := newSession(t, m)
	short := store.CallTimes{Lease: time.Minute, Keep: time.Millisecond}
	for i := range 10 {
		id := "toolu_" + strconv.Itoa(i)
		begin(t, m, id, short)
		finish(t, m, id, short)
	}
	time.Sleep(5 * time.Millisecond)
	begin(t, m, "toolu_next", store.CallTimes{Lease: time.Minute, Keep: time.Hour})
	if len(e.calls) != 1 || len(e.expiries) != 1 {
		t.Fatalf("after a claim: %d records, %d queued expiries; want the new one only", len(e.calls), len(e.expiries))
	}

	for i := range 10 {
		commit(t, m, e, "toolu_c"+strconv.Itoa(i), short)
	}
	time.Sleep(5 * time.Millisecond)
	commit(t, m, e, "toolu_last", short)
	if len(e.calls) != 2 {
		t.Fatalf("after a commit: %d records, want the two unexpired", len(e.calls))
	}
}

func commit(t testing.TB, m *Store, e *entry, id string, ct store.CallTimes) {
	t.Helper()
	r, err := m.CommitCall(context.Background(), store.CallRef{SessionID: "s1", ToolUseID: id}, "f", strconv.FormatUint(e.ver, 10), nil, store.Effects{}, ct)
	if err != nil || r != store.Committed {
		t.Fatalf("CommitCall %s: %v %v", id, r, err)
	}
}

// A record kept longer at its finish than at its claim outlives the
// claim's expiry; one released and claimed again is the new claim's.
func TestStaleExpiriesDropNothing(t *testing.T) {
	m := New()
	e := newSession(t, m)
	short := store.CallTimes{Lease: time.Minute, Keep: 2 * time.Millisecond}
	long := store.CallTimes{Lease: time.Minute, Keep: time.Hour}
	begin(t, m, "toolu_kept", short)
	finish(t, m, "toolu_kept", long)
	begin(t, m, "toolu_again", short)
	if err := m.ReleaseCall(context.Background(), store.CallRef{SessionID: "s1", ToolUseID: "toolu_again"}, "o1"); err != nil {
		t.Fatal(err)
	}
	begin(t, m, "toolu_again", long)
	time.Sleep(5 * time.Millisecond)
	begin(t, m, "toolu_other", long)
	for _, id := range []string{"toolu_kept", "toolu_again", "toolu_other"} {
		if e.calls[id] == nil {
			t.Errorf("%s was dropped by an expiry it no longer has", id)
		}
	}
	if len(e.expiries) != 3 {
		t.Errorf("%d queued expiries, want one per record", len(e.expiries))
	}
}

// BenchmarkClaimInFullSession is a claim and finish in a session that
// holds 100,000 unexpired records; compare with
// BenchmarkClaimInEmptySession: the ratio stays near 1.
func BenchmarkClaimInFullSession(b *testing.B) { benchClaim(b, 100_000) }

func BenchmarkClaimInEmptySession(b *testing.B) { benchClaim(b, 0) }

func benchClaim(b *testing.B, records int) {
	m := New()
	newSession(b, m)
	long := store.CallTimes{Lease: time.Minute, Keep: time.Hour}
	for i := range records {
		id := "toolu_old" + strconv.Itoa(i)
		begin(b, m, id, long)
		finish(b, m, id, long)
	}
	i := 0
	for b.Loop() {
		id := "toolu_" + strconv.Itoa(i)
		i++
		begin(b, m, id, long)
		finish(b, m, id, long)
		// Keep the session's size as it was.
		delete(m.sessions["s1"].calls, id)
	}
}
