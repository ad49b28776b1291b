package storetest

import (
	"context"
	"slices"
	"testing"

	"github.com/toold/toold/internal/store"
)

var childTests = []struct {
	name string
	fn   func(t *testing.T, s store.Store)
}{
	{"ChildSessionsRoundTrip", testChildren},
}

// A subagent's session keeps its parent and agent; the parent's list of
// children survives every write path (UpdateSession, SetCwd, a finished
// call's effects), which the Redis store takes through Lua scripts.
func testChildren(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("p1"))
	c := sample("c1")
	c.Parent, c.AgentType, c.AgentDescription = "p1", "Explore", "Look around"
	mustCreate(t, s, c)
	for _, id := range []string{"c1", "c2"} {
		if _, err := s.UpdateSession(ctx, "p1", func(x *store.Session) error {
			x.Children = append(x.Children, id)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetCwd(ctx, "p1", "/ws/p1/sub"); err != nil {
		t.Fatal(err)
	}
	p, err := s.GetSession(ctx, "p1")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Children, []string{"c1", "c2"}) || p.Parent != "" || p.Cwd != "/ws/p1/sub" {
		t.Fatalf("parent %+v", p)
	}
	got, err := s.GetSession(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Parent != "p1" || got.AgentType != "Explore" || got.AgentDescription != "Look around" || len(got.Children) != 0 {
		t.Fatalf("child %+v", got)
	}
	p.Children[0] = "changed"
	if again, _ := s.GetSession(ctx, "p1"); again.Children[0] != "c1" {
		t.Fatal("a returned session shares its children list with the store")
	}
}
