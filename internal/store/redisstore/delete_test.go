package redisstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/redistest"
)

// fillCalls records n done calls in session id, from a few goroutines so
// that the store's pipeline batches them.
func fillCalls(t *testing.T, s *Store, id string, n int) {
	t.Helper()
	ctx := context.Background()
	sess, err := s.GetSession(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	times := store.CallTimes{Lease: time.Minute, Keep: time.Hour}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 16 {
				ref := store.CallRef{SessionID: id, ToolUseID: fmt.Sprintf("toolu_%05d", i)}
				evs := []store.CallEvent{{Seq: 1, Data: []byte("started")}, {Seq: 2, Data: []byte("a result of some length"), Final: true}}
				if res, err := s.CommitCall(ctx, ref, "f", sess.ETag, evs, store.Effects{}, times); err != nil || res != store.Committed {
					errs <- fmt.Errorf("commit %d: %v, %v", i, res, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// shortTimeout is a read timeout far below what deleting 20,000 call
// records in one script takes (about 80 ms here), and far above one bounded
// step (under 1 ms).
const shortTimeout = 20 * time.Millisecond

// TestDeleteLargeSession: a session with 20,000 call records is deleted
// through a client whose read timeout is far shorter than dropping them
// all at once would take. The delete succeeds (no step outlasts the
// timeout, and go-redis resending one is harmless), leaves none of the
// session's keys but the mark, and a repeated delete says "deleted".
func TestDeleteLargeSession(t *testing.T) {
	addr := redistest.Start(t)
	setup := New(newClient(t, addr), Options{KeyPrefix: "big:"})
	t.Cleanup(func() { setup.Close() })
	ctx := context.Background()
	if err := setup.CreateSession(ctx, sample("s1")); err != nil {
		t.Fatal(err)
	}
	fillCalls(t, setup, "s1", 20000)

	fast := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: time.Second,
		ReadTimeout: shortTimeout, WriteTimeout: time.Second, ContextTimeoutEnabled: true})
	t.Cleanup(func() { fast.Close() })
	s := New(fast, Options{KeyPrefix: "big:"})
	t.Cleanup(func() { s.Close() })
	if err := s.DeleteSession(ctx, "s1"); err != nil {
		t.Fatalf("DeleteSession: %v", err)
	}
	keys, err := setup.c.Keys(ctx, "big:{s:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0] != "big:{s:s1}:deleted" {
		t.Fatalf("%d keys left, want only the mark: %.5q", len(keys), keys)
	}
	if err := s.DeleteSession(ctx, "s1"); !errors.Is(err, store.ErrDeleted) {
		t.Fatalf("second DeleteSession = %v, want ErrDeleted", err)
	}
}

// TestDeleteStallsNoOtherSession: while a large session is being deleted,
// another session's calls are served between the steps.
func TestDeleteStallsNoOtherSession(t *testing.T) {
	addr := redistest.Start(t)
	s := New(newClient(t, addr), Options{KeyPrefix: "stall:"})
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	for _, id := range []string{"big", "other"} {
		if err := s.CreateSession(ctx, sample(id)); err != nil {
			t.Fatal(err)
		}
	}
	fillCalls(t, s, "big", 5000)
	other, err := s.GetSession(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	var served, during atomic.Int64
	s.afterPurgeStep = func(left int64) {
		if left == 0 {
			return
		}
		// The big session is half deleted: gone for readers, records
		// still there; the other session works as ever.
		if _, err := s.GetSession(ctx, "big"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("GetSession of the session being deleted = %v", err)
		}
		ref := store.CallRef{SessionID: "other", ToolUseID: fmt.Sprintf("toolu_during_%d", served.Load())}
		res, err := s.CommitCall(ctx, ref, "f", other.ETag,
			[]store.CallEvent{{Seq: 1, Data: []byte("r"), Final: true}}, store.Effects{}, store.CallTimes{Lease: time.Minute, Keep: time.Hour})
		if err != nil || res != store.Committed {
			t.Errorf("another session's call during the delete: %v, %v", res, err)
			return
		}
		served.Add(1)
		during.Store(left)
	}
	if err := s.DeleteSession(ctx, "big"); err != nil {
		t.Fatal(err)
	}
	if served.Load() < 2 {
		t.Fatalf("another session's calls ran in %d steps of the delete, want several", served.Load())
	}
	_, st, _, err := s.ReadEvents(ctx, store.CallRef{SessionID: "other", ToolUseID: "toolu_during_0"}, 0, 0)
	if err != nil || st != store.CallDone {
		t.Fatalf("the other session's call: %v, %v", st, err)
	}
}

// SessionExists must not keep a session alive: the sweep asks it of every
// session whose workspace it finds.
func TestSessionExistsRefreshesNothing(t *testing.T) {
	c := newClient(t, redistest.Start(t))
	s := New(c, Options{KeyPrefix: "ex:"})
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	if err := s.CreateSession(ctx, sample("s1")); err != nil {
		t.Fatal(err)
	}
	const short = 10 * time.Minute
	c.PExpire(ctx, "ex:{s:s1}:session", short)
	if ok, err := s.SessionExists(ctx, "s1"); err != nil || !ok {
		t.Fatalf("SessionExists = %v, %v", ok, err)
	}
	if ttl := c.PTTL(ctx, "ex:{s:s1}:session").Val(); ttl > short {
		t.Fatalf("SessionExists refreshed the TTL to %v", ttl)
	}
}

// A delete cut off after its first step (the mark) leaves records behind;
// the next delete of the id finishes the work and says "deleted".
func TestInterruptedDeleteIsFinished(t *testing.T) {
	c := newClient(t, redistest.Start(t))
	s := New(c, Options{KeyPrefix: "cut:", DeleteBatch: 50})
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	if err := s.CreateSession(ctx, sample("s1")); err != nil {
		t.Fatal(err)
	}
	fillCalls(t, s, "s1", 500)
	steps := 0
	cut, stop := context.WithCancel(ctx)
	s.afterPurgeStep = func(int64) {
		if steps++; steps == 2 {
			stop()
		}
	}
	if err := s.DeleteSession(cut, "s1"); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("cut-off delete = %v", err)
	}
	if n := c.ZCard(ctx, "cut:{s:s1}:calls").Val(); n == 0 {
		t.Fatal("the cut-off delete left no work: the test cuts too late")
	}
	if _, err := s.GetSession(ctx, "s1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("GetSession after the mark = %v", err)
	}
	s.afterPurgeStep = nil
	if err := s.DeleteSession(ctx, "s1"); !errors.Is(err, store.ErrDeleted) {
		t.Fatalf("second delete = %v, want ErrDeleted", err)
	}
	// The mark, and the tenant's index (pruned by ListSessions).
	keys := c.Keys(ctx, "cut:*").Val()
	if len(keys) != 2 {
		t.Fatalf("keys left: %d (%.3q)", len(keys), keys)
	}
}

// go-redis resends a script whose reply a read timeout lost: the resent
// first step of a delete must count as that delete (1), and only another
// delete's as "deleted already" (2).
func TestMarkDeletedResentIsTheSameDelete(t *testing.T) {
	c := newClient(t, redistest.Start(t))
	s := New(c, Options{KeyPrefix: "resend:"})
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	if err := s.CreateSession(ctx, sample("s1")); err != nil {
		t.Fatal(err)
	}
	k, _ := s.keys("s1")
	mark := func(token string) int64 {
		r, err := scriptMarkDeleted.Run(ctx, c, append(k.all(), k.deleted), s.ttlMs, 60000, token, s.wakeChannel(), "s1").Int64Slice()
		if err != nil {
			t.Fatal(err)
		}
		return r[0]
	}
	for i, c := range []struct {
		token string
		want  int64
	}{{"first", 1}, {"first", 1}, {"second", 2}} {
		if got := mark(c.token); got != c.want {
			t.Fatalf("run %d (%s) = %d, want %d", i, c.token, got, c.want)
		}
	}
}
