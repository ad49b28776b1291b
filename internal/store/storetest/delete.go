package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/toold/toold/internal/store"
)

var deleteTests = []struct {
	name string
	fn   func(t *testing.T, s store.Store)
}{
	{"DeleteAgainIsDeletedNotMissing", testDeleteAgain},
	{"DeleteManyCalls", testDeleteManyCalls},
	{"DeleteLeavesOtherSessions", testDeleteLeavesOthers},
	{"SessionExists", testSessionExists},
}

func testSessionExists(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	for _, c := range []struct {
		id   string
		want bool
	}{{"s1", true}, {"s2", false}} {
		if got, err := s.SessionExists(ctx, c.id); err != nil || got != c.want {
			t.Errorf("SessionExists(%s) = %v, %v", c.id, got, err)
		}
	}
	if err := s.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.SessionExists(ctx, "s1"); err != nil || got {
		t.Errorf("SessionExists after delete = %v, %v", got, err)
	}
}

// commitCalls records n done calls in session id.
func commitCalls(t *testing.T, s store.Store, id string, n int) {
	t.Helper()
	ctx := context.Background()
	etag := etagOf(t, s, id)
	for i := range n {
		res, err := s.CommitCall(ctx, ref(id, fmt.Sprintf("toolu_%d", i)), "f", etag,
			[]store.CallEvent{ev(1, "started"), final(2, "result")}, store.Effects{}, times)
		if err != nil || res != store.Committed {
			t.Fatalf("CommitCall %d = %v, %v", i, res, err)
		}
	}
}

// A delete that is repeated (a client retrying after a lost answer) finds
// the session deleted, not missing; the mark keeps the owner; nothing else
// of the session answers.
func testDeleteAgain(t *testing.T, s store.Store) {
	ctx := context.Background()
	in := sample("s1")
	in.Tenant = "tenant-a"
	mustCreate(t, s, in)
	commitCalls(t, s, "s1", 3)
	if err := s.DeleteSession(ctx, "s1"); err != nil {
		t.Fatalf("first delete: %v", err)
	}
	err := s.DeleteSession(ctx, "s1")
	if !errors.Is(err, store.ErrDeleted) || errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second delete = %v, want ErrDeleted (and not ErrNotFound)", err)
	}
	gone, err := s.DeletedSession(ctx, "s1")
	if err != nil || gone.ID != "s1" || gone.Tenant != "tenant-a" || gone.Workspace != in.Workspace {
		t.Fatalf("DeletedSession = %+v, %v", gone, err)
	}
	if _, err := s.GetSession(ctx, "s1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetSession after delete = %v", err)
	}
	if _, _, err := s.BeginCalls(ctx, "s1", "o", nil, times); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("BeginCalls after delete = %v", err)
	}
	if _, _, _, err := s.ReadEvents(ctx, ref("s1", "toolu_0"), 0, 0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("ReadEvents after delete = %v", err)
	}
	if _, err := s.DeletedSession(ctx, "never"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("DeletedSession of a session never deleted = %v", err)
	}
	if err := s.DeleteSession(ctx, "never"); !errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrDeleted) {
		t.Errorf("DeleteSession of a session that never was = %v, want ErrNotFound", err)
	}
}

// A session with more calls than one bounded step drops is gone entirely:
// a new session under its id finds none of them.
func testDeleteManyCalls(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	commitCalls(t, s, "s1", 700)
	if err := s.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, sample("s1"))
	for _, i := range []int{0, 255, 256, 511, 699} {
		_, st := readAll(t, s, ref("s1", fmt.Sprintf("toolu_%d", i)), 0)
		if st != store.CallAbsent {
			t.Fatalf("call %d of the deleted session: %v", i, st)
		}
	}
}

func testDeleteLeavesOthers(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	mustCreate(t, s, sample("s2"))
	commitCalls(t, s, "s1", 300)
	commitCalls(t, s, "s2", 3)
	if err := s.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetSession(ctx, "s2"); err != nil {
		t.Fatal(err)
	}
	evs, st := readAll(t, s, ref("s2", "toolu_2"), 0)
	if st != store.CallDone || len(evs) != 2 {
		t.Fatalf("the other session's call: %d events, %v", len(evs), st)
	}
	if _, err := s.DeletedSession(ctx, "s2"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("DeletedSession of a live session = %v", err)
	}
}
