package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/toold/toold/internal/store"
)

var taskTests = []struct {
	name string
	fn   func(t *testing.T, s store.Store)
}{
	{"TasksEmptyAtFirst", testTasksEmpty},
	{"TasksRoundTrip", testTasksRoundTrip},
	{"TasksUpdateErrorChangesNothing", testTasksUpdateError},
	{"TasksMissingSession", testTasksMissing},
	{"TasksArePerSession", testTasksPerSession},
	{"TasksDroppedWithSession", testTasksDeleted},
	{"ConcurrentTaskUpdatesAreNotLost", testTasksConcurrent},
	{"TasksReturnedCopiesAreIndependent", testTasksCopies},
}

// addTask appends a task with the next id, as TaskCreate does.
func addTask(subject string) func(*store.TaskList) error {
	return func(l *store.TaskList) error {
		l.LastID++
		l.Tasks = append(l.Tasks, store.Task{ID: strconv.FormatInt(l.LastID, 10), Subject: subject, Status: store.TaskPending})
		return nil
	}
}

func testTasksEmpty(t *testing.T, s store.Store) {
	mustCreate(t, s, sample("s1"))
	l, err := s.GetTasks(context.Background(), "s1")
	if err != nil || l.LastID != 0 || len(l.Tasks) != 0 {
		t.Fatalf("GetTasks of a new session = %+v, %v; want an empty list", l, err)
	}
}

func testTasksRoundTrip(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	want := store.Task{ID: "1", Subject: "Write parser", Description: "d", ActiveForm: "Writing", Status: store.TaskInProgress,
		Owner: "", HasOwner: true, Blocks: []string{"2"}, BlockedBy: []string{"3"},
		Metadata: map[string]json.RawMessage{"k": json.RawMessage(`{"a":[1,2]}`)}}
	out, err := s.UpdateTasks(ctx, "s1", func(l *store.TaskList) error {
		l.LastID = 3
		l.Tasks = append(l.Tasks, want)
		return nil
	})
	if err != nil || out.LastID != 3 || len(out.Tasks) != 1 {
		t.Fatalf("UpdateTasks = %+v, %v", out, err)
	}
	got, err := s.GetTasks(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if got.LastID != 3 || len(got.Tasks) != 1 || fmt.Sprint(got.Tasks[0]) != fmt.Sprint(want) {
		t.Fatalf("GetTasks = %+v, want %+v", got, want)
	}
	// Removing a task keeps the last id: ids are not reused.
	if _, err := s.UpdateTasks(ctx, "s1", func(l *store.TaskList) error { l.Tasks = nil; return nil }); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetTasks(ctx, "s1"); got.LastID != 3 || len(got.Tasks) != 0 {
		t.Fatalf("after removing the task: %+v", got)
	}
}

func testTasksUpdateError(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	if _, err := s.UpdateTasks(ctx, "s1", addTask("a")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	_, err := s.UpdateTasks(ctx, "s1", func(l *store.TaskList) error {
		l.Tasks = nil
		l.LastID = 99
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error = %v, want fn's", err)
	}
	if got, _ := s.GetTasks(ctx, "s1"); got.LastID != 1 || len(got.Tasks) != 1 {
		t.Fatalf("a failed update changed the list: %+v", got)
	}
}

func testTasksMissing(t *testing.T, s store.Store) {
	ctx := context.Background()
	if _, err := s.GetTasks(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetTasks of no session: %v, want ErrNotFound", err)
	}
	called := false
	_, err := s.UpdateTasks(ctx, "nope", func(*store.TaskList) error { called = true; return nil })
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UpdateTasks of no session: %v, want ErrNotFound", err)
	}
	if _, err := s.GetTasks(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UpdateTasks created a session (called fn: %v): %v", called, err)
	}
}

func testTasksPerSession(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	mustCreate(t, s, sample("s2"))
	if _, err := s.UpdateTasks(ctx, "s1", addTask("a")); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetTasks(ctx, "s2"); len(got.Tasks) != 0 || got.LastID != 0 {
		t.Fatalf("s2 sees s1's tasks: %+v", got)
	}
}

func testTasksDeleted(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	if _, err := s.UpdateTasks(ctx, "s1", addTask("a")); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetTasks(ctx, "s1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("GetTasks of a deleted session: %v", err)
	}
	mustCreate(t, s, sample("s1"))
	if got, _ := s.GetTasks(ctx, "s1"); len(got.Tasks) != 0 || got.LastID != 0 {
		t.Fatalf("a new session of the same id has the old tasks: %+v", got)
	}
}

// testTasksConcurrent: every one of many concurrent creates gets its own
// id and is kept.
func testTasksConcurrent(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.UpdateTasks(ctx, "s1", addTask(fmt.Sprint("t", i))); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, err := s.GetTasks(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if got.LastID != n || len(got.Tasks) != n {
		t.Fatalf("after %d concurrent creates: last id %d, %d tasks", n, got.LastID, len(got.Tasks))
	}
	seen := map[string]bool{}
	subjects := map[string]bool{}
	for _, tk := range got.Tasks {
		seen[tk.ID], subjects[tk.Subject] = true, true
	}
	if len(seen) != n || len(subjects) != n {
		t.Fatalf("ids or subjects repeat or are lost: %d ids, %d subjects", len(seen), len(subjects))
	}
}

func testTasksCopies(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, sample("s1"))
	out, err := s.UpdateTasks(ctx, "s1", func(l *store.TaskList) error {
		l.LastID = 1
		l.Tasks = []store.Task{{ID: "1", Status: store.TaskPending, Blocks: []string{"2"}}}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out.Tasks[0].Blocks[0] = "changed"
	got, _ := s.GetTasks(ctx, "s1")
	got.Tasks[0].Status = "changed"
	again, _ := s.GetTasks(ctx, "s1")
	if again.Tasks[0].Blocks[0] != "2" || again.Tasks[0].Status != store.TaskPending {
		t.Fatalf("a returned list shares memory with the store: %+v", again.Tasks[0])
	}
}
