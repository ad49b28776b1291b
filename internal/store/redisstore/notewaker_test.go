package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/redistest"
)

// A notification added through one store wakes a reader registered on
// another store on the same Redis (another replica), through Pub/Sub: the
// waiter's channel is closed by the published message alone (the poll
// that backs it up does not touch it).
func TestNoteWakerAcrossStores(t *testing.T) {
	c1 := newClient(t, redistest.Start(t))
	a := New(c1, Options{KeyPrefix: prefix(t)})
	b := New(newClient(t, c1.Options().Addr), Options{KeyPrefix: prefix(t)})
	defer a.Close()
	defer b.Close()
	ctx := context.Background()
	if err := a.CreateSession(ctx, sample("s1")); err != nil {
		t.Fatal(err)
	}
	woken, done := b.waker().register("s1")
	defer done()
	other, doneOther := b.waker().register("s2")
	defer doneOther()
	// The subscription is made at the first registration; a notification
	// added before it is confirmed would wake nobody, so wait for it.
	waitSubscribed(t, b)
	if _, err := a.AddNotification(ctx, "s1", store.Notification{Kind: store.NoteShellEnded, TaskID: "bash_1", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-woken:
	case <-time.After(10 * time.Second):
		t.Fatal("the reader of s1 on the other store was not woken")
	}
	select {
	case <-other:
		t.Fatal("a reader of s2 was woken by s1's notification")
	default:
	}
	// Deleting the session wakes its readers too.
	again, doneAgain := b.waker().register("s1")
	defer doneAgain()
	if err := a.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-again:
	case <-time.After(10 * time.Second):
		t.Fatal("the reader of s1 was not woken by its session's delete")
	}
}

// waitSubscribed waits until Redis counts the waker's subscription.
func waitSubscribed(t *testing.T, s *Store) {
	t.Helper()
	for range 500 {
		n, err := s.c.PubSubNumSub(context.Background(), s.wakeChannel()).Result()
		if err == nil && n[s.wakeChannel()] > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the waker never subscribed")
}
