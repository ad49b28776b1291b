package taskupdate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/taskcreate"
	"github.com/toold/toold/internal/tools/taskget"
	"github.com/toold/toold/internal/tools/tasklist"
	"github.com/toold/toold/internal/tools/taskupdate"
)

type step struct {
	tool, input, want string
}

func newTools(t *testing.T) (map[string]tool.Tool, *tool.Env) {
	t.Helper()
	st := memstore.New()
	if err := st.CreateSession(context.Background(), &store.Session{ID: "s1"}); err != nil {
		t.Fatal(err)
	}
	tools := map[string]tool.Tool{}
	for _, tl := range []tool.Tool{taskcreate.New(st), taskget.New(st), tasklist.New(st), taskupdate.New(st)} {
		tools[tl.Definition().Name] = tl
	}
	return tools, &tool.Env{SessionID: "s1"}
}

func run(t *testing.T, tools map[string]tool.Tool, env *tool.Env, name, input string) (string, error) {
	t.Helper()
	inv, err := tools[name].Parse(json.RawMessage(input))
	if err != nil {
		return "", err
	}
	r, err := inv.Run(context.Background(), env)
	if err != nil {
		return "", err
	}
	return r.Content[0].Text, nil
}

// TestTranscript replays calls whose results Claude Code 2.1.332 gave
// when recorded with the oracle (test/conformance/cases_tasks.json holds
// the same calls against both).
func TestTranscript(t *testing.T) {
	steps := []step{
		{"TaskList", `{}`, "No tasks found"},
		{"TaskCreate", `{"subject": "Write parser", "description": "Parse the config"}`, "Task #1 created successfully: Write parser"},
		{"TaskCreate", `{"subject": "Write tests", "description": "Test the parser", "activeForm": "Writing tests", "metadata": {"k": 1}}`, "Task #2 created successfully: Write tests"},
		{"TaskCreate", `{"subject": "Ship", "description": "Release it"}`, "Task #3 created successfully: Ship"},
		{"TaskUpdate", `{"taskId": "2", "addBlockedBy": ["1"]}`, "Updated task #2 blockedBy"},
		{"TaskUpdate", `{"taskId": "1", "addBlocks": ["3"], "status": "in_progress", "owner": "alice"}`, "Updated task #1 owner, status, blocks"},
		{"TaskList", `{}`, "#1 [in_progress] Write parser (alice)\n#2 [pending] Write tests [blocked by #1]\n#3 [pending] Ship [blocked by #1]"},
		{"TaskGet", `{"taskId": "1"}`, "Task #1: Write parser\nStatus: in_progress\nDescription: Parse the config\nBlocks: #2, #3"},
		{"TaskGet", `{"taskId": "2"}`, "Task #2: Write tests\nStatus: pending\nDescription: Test the parser\nBlocked by: #1"},
		{"TaskGet", `{"taskId": "99"}`, "Task not found"},
		{"TaskUpdate", `{"taskId": "99", "status": "completed"}`, "Task not found"},
		{"TaskUpdate", `{"taskId": "1", "status": "completed"}`, "Updated task #1 status"},
		{"TaskList", `{}`, "#1 [completed] Write parser (alice)\n#2 [pending] Write tests\n#3 [pending] Ship"},
		{"TaskUpdate", `{"taskId": "3", "status": "deleted"}`, "Updated task #3 deleted"},
		{"TaskList", `{}`, "#1 [completed] Write parser (alice)\n#2 [pending] Write tests"},
		{"TaskUpdate", `{"taskId": "2"}`, "Updated task #2 "},
		{"TaskUpdate", `{"taskId": "2", "subject": "Write more tests", "description": "All of them", "metadata": {"k": null, "j": "x"}}`, "Updated task #2 subject, description, metadata"},
		{"TaskGet", `{"taskId": "2"}`, "Task #2: Write more tests\nStatus: pending\nDescription: All of them"},
		{"TaskGet", `{"taskId": "3"}`, "Task not found"},
		{"TaskCreate", `{"subject": "After delete", "description": "d"}`, "Task #4 created successfully: After delete"},
		{"TaskUpdate", `{"taskId": "2", "addBlockedBy": ["2"]}`, "Updated task #2 blockedBy"},
		{"TaskUpdate", `{"taskId": "2", "addBlockedBy": ["77"]}`, "Updated task #2 blockedBy"},
		{"TaskGet", `{"taskId": "2"}`, "Task #2: Write more tests\nStatus: pending\nDescription: All of them\nBlocked by: #2\nBlocks: #2"},
		{"TaskCreate", `{"subject": "", "description": ""}`, "Task #5 created successfully: "},
		{"TaskUpdate", `{"taskId": "2", "status": "in_progress"}`, "Updated task #2 status"},
		{"TaskUpdate", `{"taskId": "2", "status": "completed", "owner": "bob"}`, "Updated task #2 owner, status"},
		{"TaskList", `{}`, "#1 [completed] Write parser (alice)\n#2 [completed] Write more tests (bob)\n#4 [pending] After delete\n#5 [pending] "},
		{"TaskGet", `{"taskId": "abc"}`, "Task not found"},
	}
	replay(t, steps)
}

func TestTranscriptDependencies(t *testing.T) {
	replay(t, []step{
		{"TaskCreate", `{"subject": "A", "description": "a"}`, "Task #1 created successfully: A"},
		{"TaskCreate", `{"subject": "B", "description": "b"}`, "Task #2 created successfully: B"},
		{"TaskCreate", `{"subject": "C", "description": "c"}`, "Task #3 created successfully: C"},
		{"TaskUpdate", `{"taskId": "3", "addBlockedBy": ["1", "2", "88"]}`, "Updated task #3 blockedBy"},
		{"TaskList", `{}`, "#1 [pending] A\n#2 [pending] B\n#3 [pending] C [blocked by #1, #2]"},
		{"TaskUpdate", `{"taskId": "1", "status": "completed"}`, "Updated task #1 status"},
		{"TaskGet", `{"taskId": "3"}`, "Task #3: C\nStatus: pending\nDescription: c\nBlocked by: #2"},
		{"TaskUpdate", `{"taskId": "1", "status": "pending"}`, "Updated task #1 status"},
		{"TaskGet", `{"taskId": "3"}`, "Task #3: C\nStatus: pending\nDescription: c\nBlocked by: #1, #2"},
		{"TaskGet", `{"taskId": "1"}`, "Task #1: A\nStatus: pending\nDescription: a\nBlocks: #3"},
		{"TaskUpdate", `{"taskId": "2", "status": "deleted"}`, "Updated task #2 deleted"},
		{"TaskGet", `{"taskId": "3"}`, "Task #3: C\nStatus: pending\nDescription: c\nBlocked by: #1"},
		{"TaskList", `{}`, "#1 [pending] A\n#3 [pending] C [blocked by #1]"},
		{"TaskUpdate", `{"taskId": "3", "addBlockedBy": ["1"], "addBlocks": ["1"]}`, "Updated task #3 blocks"},
		{"TaskGet", `{"taskId": "1"}`, "Task #1: A\nStatus: pending\nDescription: a\nBlocked by: #3\nBlocks: #3"},
		{"TaskUpdate", `{"taskId": "1", "owner": ""}`, "Updated task #1 owner"},
		{"TaskUpdate", `{"taskId": "1", "status": "pending", "subject": "A"}`, "Updated task #1 "},
		{"TaskUpdate", `{"taskId": "3", "status": "deleted", "subject": "zzz"}`, "Updated task #3 deleted"},
		{"TaskUpdate", `{"taskId": "3", "status": "deleted"}`, "Task not found"},
		{"TaskGet", `{"taskId": "1"}`, "Task #1: A\nStatus: pending\nDescription: a"},
	})
}

func TestFieldOrder(t *testing.T) {
	replay(t, []step{
		{"TaskCreate", `{"subject": "A", "description": "a"}`, "Task #1 created successfully: A"},
		{"TaskCreate", `{"subject": "B", "description": "b"}`, "Task #2 created successfully: B"},
		{"TaskUpdate", `{"taskId": "1", "addBlockedBy": ["2"], "addBlocks": ["2"], "status": "in_progress", "metadata": {"a": 1}, "owner": "o", "activeForm": "Doing A", "description": "aa", "subject": "AA"}`,
			"Updated task #1 subject, description, activeForm, owner, metadata, status, blocks, blockedBy"},
		{"TaskList", `{}`, "#1 [in_progress] AA (o) [blocked by #2]\n#2 [pending] B [blocked by #1]"},
		{"TaskUpdate", `{"taskId": "1", "status": "deleted"}`, "Updated task #1 deleted"},
		{"TaskGet", `{"taskId": "2"}`, "Task #2: B\nStatus: pending\nDescription: b"},
	})
}

func replay(t *testing.T, steps []step) {
	t.Helper()
	tools, env := newTools(t)
	for i, s := range steps {
		got, err := run(t, tools, env, s.tool, s.input)
		if err != nil {
			t.Fatalf("step %d %s %s: %v", i, s.tool, s.input, err)
		}
		if got != s.want {
			t.Fatalf("step %d %s %s:\n got %q\nwant %q", i, s.tool, s.input, got, s.want)
		}
	}
}

func TestLimits(t *testing.T) {
	tools, env := newTools(t)
	long := fmt.Sprintf(`{"subject": %q, "description": "d"}`, string(make([]byte, taskcreate.MaxFieldChars+1)))
	if _, err := run(t, tools, env, "TaskCreate", long); err == nil {
		t.Fatal("a subject past the limit was accepted")
	}
	for i := range taskcreate.MaxTasks {
		if _, err := run(t, tools, env, "TaskCreate", `{"subject": "s", "description": "d"}`); err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
	}
	_, err := run(t, tools, env, "TaskCreate", `{"subject": "one too many", "description": "d"}`)
	var te *tool.Error
	if !asToolError(err, &te) || te.Kind != tool.KindFailed {
		t.Fatalf("create past the limit: %v", err)
	}
	if got, _ := run(t, tools, env, "TaskGet", fmt.Sprintf(`{"taskId": "%d"}`, taskcreate.MaxTasks+1)); got != "Task not found" {
		t.Fatalf("the refused task was kept: %q", got)
	}
}

// TestConcurrentCreates: creates racing in one session each get their own
// id and none is lost.
func TestConcurrentCreates(t *testing.T) {
	tools, env := newTools(t)
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := run(t, tools, env, "TaskCreate", `{"subject": "s", "description": "d"}`); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got, _ := run(t, tools, env, "TaskGet", `{"taskId": "20"}`); got != "Task #20: s\nStatus: pending\nDescription: d" {
		t.Fatalf("task 20: %q", got)
	}
}

// TestOtherSession: one session's tasks are not another's.
func TestOtherSession(t *testing.T) {
	tools, env := newTools(t)
	if _, err := run(t, tools, env, "TaskCreate", `{"subject": "s", "description": "d"}`); err != nil {
		t.Fatal(err)
	}
	other := &tool.Env{SessionID: "s2"}
	if _, err := run(t, tools, other, "TaskList", `{}`); err == nil {
		t.Fatal("a session the store does not have read a task list")
	}
}

func asToolError(err error, te **tool.Error) bool {
	e, ok := err.(*tool.Error)
	*te = e
	return ok
}
