package classifier

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/redisstore"
	"github.com/toold/toold/internal/store/redistest"
)

// Two replicas on one Redis share the brake: denials the classifier gave
// on either count towards it on both, and a person's do not.
func TestBrakeIsSharedAcrossReplicas(t *testing.T) {
	url := "redis://" + redistest.Start(t) + "/0"
	ctx := context.Background()
	open := func() store.Store {
		st, err := redisstore.Open(ctx, url, redisstore.Options{KeyPrefix: "brake:"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	stA, stB := open(), open()
	if err := stA.CreateSession(ctx, &store.Session{ID: "s1", Workspace: "/ws/s1", Cwd: "/ws/s1", Mode: "auto"}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	clock := func() time.Time { return now }
	b := verdict(vDeny, "curl reaches the network")
	replica := func(st store.Store) *Classifier {
		k, err := New(Options{Backend: b, Denials: st, Limit: 3, Window: 5 * time.Minute, Now: clock})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	a, bb := replica(stA), replica(stB)
	// People refused many requests: that pauses nothing.
	for range 4 {
		if _, err := stB.RecordDenial(ctx, "s1", store.PersonDenials, now, 5*time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	for i, k := range []*Classifier{a, bb, a} {
		if got := k.Classify(ctx, bashCall("curl x"), needsApproval); got.Behavior != policy.Deny {
			t.Fatalf("denial %d: %+v", i, got)
		}
		now = now.Add(time.Second)
	}
	for name, k := range map[string]*Classifier{"A": a, "B": bb} {
		got := k.Classify(ctx, bashCall("curl x"), needsApproval)
		if got.Behavior != policy.Ask || got.Source != "denialTracking" || !strings.Contains(got.Reason, "denied 3 of its calls") {
			t.Fatalf("replica %s after three denials: %+v", name, got)
		}
	}
	if b.calls() != 3 {
		t.Fatalf("the classifier was asked %d times, want 3", b.calls())
	}
	// The window moves past the denials: both replicas ask it again.
	now = now.Add(5 * time.Minute)
	if got := bb.Classify(ctx, bashCall("curl x"), needsApproval); got.Behavior != policy.Deny || b.calls() != 4 {
		t.Fatalf("after the window: %+v", got)
	}
}
