package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/toold/toold/internal/store"
)

var agentTests = []struct {
	name string
	fn   func(t *testing.T, s store.Store)
}{
	{"AgentTaskRoundTrip", testAgentTaskRoundTrip},
	{"AgentTaskMissing", testAgentTaskMissing},
	{"AgentTaskErrorChangesNothing", testAgentTaskError},
	{"AgentTaskConcurrentUpdatesAreNotLost", testAgentTaskConcurrent},
	{"AgentTaskEndsOnce", testAgentTaskEndsOnce},
	{"AgentTaskDeletedWithSession", testAgentTaskDeleted},
}

func launch(t *testing.T, s store.Store, sid, aid string) {
	t.Helper()
	_, err := s.UpdateAgentTask(context.Background(), sid, aid, func(a *store.AgentTask) error {
		*a = store.AgentTask{ID: aid, ToolUseID: "toolu_" + aid, AgentType: "Explore", Description: "Look", State: store.AgentRunning,
			Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateAgentTask(%s): %v", aid, err)
	}
}

func testAgentTaskRoundTrip(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("p1"))
	launch(t, s, "p1", "a1")
	got, err := s.GetAgentTask(ctx, "p1", "a1")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "a1" || got.ToolUseID != "toolu_a1" || got.State != store.AgentRunning || !got.Ended.IsZero() || got.Usage != nil {
		t.Fatalf("got %+v", got)
	}
	ended := time.Date(2026, 1, 2, 3, 5, 0, 0, time.UTC)
	if _, err := s.UpdateAgentTask(ctx, "p1", "a1", func(a *store.AgentTask) error {
		a.State, a.Report, a.Ended = store.AgentCompleted, "line 1\nline 2 ünï", ended
		a.Usage = &store.AgentTaskUsage{Tokens: 12, ToolUses: 3, DurationMS: 45}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got, err = s.GetAgentTask(ctx, "p1", "a1")
	if err != nil {
		t.Fatal(err)
	}
	if got.State != store.AgentCompleted || got.Report != "line 1\nline 2 ünï" || !got.Ended.Equal(ended) || *got.Usage != (store.AgentTaskUsage{Tokens: 12, ToolUses: 3, DurationMS: 45}) {
		t.Fatalf("got %+v", got)
	}
	got.Usage.Tokens = 99
	again, _ := s.GetAgentTask(ctx, "p1", "a1")
	if again.Usage.Tokens != 12 {
		t.Fatal("the returned task shares memory with the store")
	}
}

func testAgentTaskMissing(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("p1"))
	mustCreate(t, s, sample("p2"))
	launch(t, s, "p2", "a1")
	if _, err := s.GetAgentTask(ctx, "p1", "a1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another session's task: %v, want ErrNotFound", err)
	}
	if _, err := s.GetAgentTask(ctx, "nope", "a1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("no session: %v, want ErrNotFound", err)
	}
	if _, err := s.UpdateAgentTask(ctx, "nope", "a1", func(*store.AgentTask) error { return nil }); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("update without a session: %v, want ErrNotFound", err)
	}
}

func testAgentTaskError(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("p1"))
	boom := errors.New("boom")
	if _, err := s.UpdateAgentTask(ctx, "p1", "a1", func(a *store.AgentTask) error {
		a.ID, a.State = "a1", store.AgentRunning
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if _, err := s.GetAgentTask(ctx, "p1", "a1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a refused creation left a task: %v", err)
	}
	launch(t, s, "p1", "a1")
	if _, err := s.UpdateAgentTask(ctx, "p1", "a1", func(a *store.AgentTask) error {
		a.State = store.AgentKilled
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if got, _ := s.GetAgentTask(ctx, "p1", "a1"); got.State != store.AgentRunning {
		t.Fatalf("a refused update changed the task: %+v", got)
	}
}

func testAgentTaskConcurrent(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("p1"))
	launch(t, s, "p1", "a1")
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			_, err := s.UpdateAgentTask(ctx, "p1", "a1", func(a *store.AgentTask) error {
				a.Read++
				return nil
			})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := s.GetAgentTask(ctx, "p1", "a1"); got.Read != n {
		t.Fatalf("Read = %d after %d concurrent updates", got.Read, n)
	}
}

// Of a report and a stop racing each other (the end of an agent, from two
// replicas), exactly one ends the task: an update that checks the state in
// fn sees the other's result.
func testAgentTaskEndsOnce(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("p1"))
	launch(t, s, "p1", "a1")
	errEnded := errors.New("ended already")
	var wg sync.WaitGroup
	results := make(chan error, 10)
	for i := range 10 {
		wg.Go(func() {
			_, err := s.UpdateAgentTask(ctx, "p1", "a1", func(a *store.AgentTask) error {
				if a.State != store.AgentRunning {
					return errEnded
				}
				a.State = store.AgentCompleted
				if i%2 == 1 {
					a.State = store.AgentKilled
				}
				return nil
			})
			results <- err
		})
	}
	wg.Wait()
	close(results)
	won := 0
	for err := range results {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, errEnded):
			t.Fatal(err)
		}
	}
	if won != 1 {
		t.Fatalf("%d updates ended the task, want 1", won)
	}
}

func testAgentTaskDeleted(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("p1"))
	launch(t, s, "p1", "a1")
	if err := s.DeleteSession(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, sample("p1"))
	if _, err := s.GetAgentTask(ctx, "p1", "a1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a task outlived its session: %v", err)
	}
}
