package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/redistest"
)

// A request published through one store reaches the subscribers of every
// store on the same prefix (the replicas), and none on another prefix.
func TestCancelsReachEveryReplica(t *testing.T) {
	ctx := context.Background()
	addr := redistest.Start(t)
	p := prefix(t)
	pub := New(newClient(t, addr), Options{KeyPrefix: p}).Cancels()
	var got []chan store.CallRef
	for _, pf := range []string{p, p, p + "other:"} {
		ch := make(chan store.CallRef, 4)
		stop, err := New(newClient(t, addr), Options{KeyPrefix: pf}).Cancels().Subscribe(ctx, func(r store.CallRef) { ch <- r })
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
		got = append(got, ch)
	}
	want := store.CallRef{SessionID: "s1", ToolUseID: "toolu_1"}
	if err := pub.Publish(ctx, want); err != nil {
		t.Fatal(err)
	}
	for i, ch := range got[:2] {
		select {
		case r := <-ch:
			if r != want {
				t.Errorf("replica %d got %+v, want %+v", i, r, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("replica %d got nothing", i)
		}
	}
	// A second publish goes through the same channel: had the other
	// prefix's subscriber received the first, it would be in its buffer.
	if err := pub.Publish(ctx, want); err != nil {
		t.Fatal(err)
	}
	<-got[0]
	select {
	case r := <-got[2]:
		t.Fatalf("a replica on another prefix got %+v", r)
	default:
	}
	if err := pub.Publish(ctx, store.CallRef{SessionID: "bad id!", ToolUseID: "x"}); err == nil {
		t.Error("an invalid session id was published")
	}
}
