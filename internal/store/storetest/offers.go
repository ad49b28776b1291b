package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/toold/toold/internal/store"
)

// What a store offers (store.Offers) must work as offered: a store that
// offers nothing passes trivially, which is right for one replica.
var offersTests = []struct {
	name string
	fn   func(t *testing.T, s store.Store)
}{
	{"OffersPinger", testOffersPinger},
	{"OffersPendingAsks", testOffersPending},
	{"OffersCancels", testOffersCancels},
}

func testOffersPinger(t *testing.T, s store.Store) {
	p := s.Offers().Pinger
	if p == nil {
		return
	}
	if err := p.Ping(context.Background()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}

func testOffersPending(t *testing.T, s store.Store) {
	open := s.Offers().Pending
	if open == nil {
		return
	}
	ctx := context.Background()
	// Two registries on one store stand for two replicas.
	waiter, answerer := open(time.Minute), open(time.Minute)
	const rid = "perm_0123456789abcdef01234567"
	answers, closeFn, err := waiter.Open(ctx, "s1", rid)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer closeFn()
	want := store.Answer{Allow: true, ForSession: true, Message: "ok", Completion: []byte(`{"text":"done"}`)}
	if err := answerer.Resolve(ctx, "s1", rid, want); err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	select {
	case got := <-answers:
		if got.Allow != want.Allow || got.ForSession != want.ForSession || got.Message != want.Message || string(got.Completion) != string(want.Completion) {
			t.Fatalf("answer = %+v, want %+v", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the answer did not arrive")
	}
	if err := answerer.Resolve(ctx, "s1", rid, want); !errors.Is(err, store.ErrNoPending) {
		t.Fatalf("second Resolve = %v, want ErrNoPending", err)
	}
	if err := answerer.Resolve(ctx, "s2", "perm_ffffffffffffffffffffffff", want); !errors.Is(err, store.ErrNoPending) {
		t.Fatalf("Resolve of an unknown request = %v, want ErrNoPending", err)
	}
}

func testOffersCancels(t *testing.T, s store.Store) {
	ch := s.Offers().Cancels
	if ch == nil {
		return
	}
	ctx := context.Background()
	got := make(chan store.CallRef, 1)
	stop, err := ch.Subscribe(ctx, func(ref store.CallRef) {
		select {
		case got <- ref:
		default:
		}
	})
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	defer stop()
	want := store.CallRef{SessionID: "s1", ToolUseID: "toolu_1"}
	if err := ch.Publish(ctx, want); err != nil {
		t.Fatalf("Publish: %v", err)
	}
	select {
	case ref := <-got:
		if ref != want {
			t.Fatalf("cancel request = %+v, want %+v", ref, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancel request did not arrive")
	}
}
