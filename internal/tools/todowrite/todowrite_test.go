package todowrite

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
)

func TestRejectsWhatTheSchemaForbids(t *testing.T) {
	tests := []struct {
		name  string
		todos []Todo
		want  string
	}{
		{"empty content", []Todo{{"", Pending, "Doing"}}, "todos[0].content is empty"},
		{"empty activeForm", []Todo{{"Do", Pending, "Doing"}, {"Do", Completed, ""}}, "todos[1].activeForm is empty"},
		{"unknown status", []Todo{{"Do", "done", "Doing"}}, `todos[0].status is "done"`},
		{"too long", []Todo{{strings.Repeat("x", maxFieldChars+1), Pending, "Doing"}}, "too long"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw, _ := json.Marshal(input{Todos: tc.todos})
			_, err := New().Parse(raw)
			var te *tool.Error
			if !errors.As(err, &te) || te.Kind != tool.KindInvalidInput || !strings.Contains(te.Msg, tc.want) {
				t.Fatalf("err = %v, want invalid input with %q", err, tc.want)
			}
		})
	}
	many := make([]Todo, maxItems+1)
	for i := range many {
		many[i] = Todo{"Do", Pending, "Doing"}
	}
	if err := Validate(many); err == nil {
		t.Fatal("a list over the item limit was accepted")
	}
}

func TestSeveralInProgressAccepted(t *testing.T) {
	// Claude Code asks for one item in progress but does not refuse others.
	env, _, _ := tooltest.Env(t)
	if _, err := tooltest.Run(t, New(), env, input{Todos: []Todo{{"A", InProgress, "Doing A"}, {"B", InProgress, "Doing B"}}}); err != nil {
		t.Fatal(err)
	}
}

func TestRoundTripThroughSessionState(t *testing.T) {
	env, st, _ := tooltest.Env(t)
	first := []Todo{{"Write the parser", InProgress, "Writing the parser"}, {"Add tests", Pending, "Adding tests"}}
	res, err := tooltest.Run(t, New(), env, map[string]any{"todos": first})
	if err != nil {
		t.Fatal(err)
	}
	text := tooltest.Text(res)
	// Claude Code's sentence alone: the list is in the metadata.
	if text != successText {
		t.Fatalf("text = %q", text)
	}
	if nw := res.Meta["new_todos"].([]any); len(nw) != 2 {
		t.Fatalf("new_todos = %v", nw)
	}
	if old := res.Meta["old_todos"].([]any); len(old) != 0 {
		t.Fatalf("old_todos of the first call = %v", old)
	}
	stored, err := Load(context.Background(), st)
	if err != nil || len(stored) != 2 || stored[0] != first[0] || stored[1] != first[1] {
		t.Fatalf("stored = %v, %v", stored, err)
	}

	second := []Todo{{"Write the parser", Completed, "Writing the parser"}, {"Add tests", InProgress, "Adding tests"}}
	res, err = tooltest.Run(t, New(), env, map[string]any{"todos": second})
	if err != nil {
		t.Fatal(err)
	}
	old := res.Meta["old_todos"].([]any)
	if len(old) != 2 || old[0].(map[string]any)["status"] != InProgress {
		t.Fatalf("old_todos = %v", old)
	}
	if nw := res.Meta["new_todos"].([]any); len(nw) != 2 || nw[1].(map[string]any)["status"] != InProgress {
		t.Fatalf("new_todos = %v", nw)
	}

	// All done: the result's metadata shows the list, the session keeps none.
	done := []Todo{{"Write the parser", Completed, "Writing the parser"}, {"Add tests", Completed, "Adding tests"}}
	res, err = tooltest.Run(t, New(), env, map[string]any{"todos": done})
	if err != nil {
		t.Fatal(err)
	}
	if nw := res.Meta["new_todos"].([]any); len(nw) != 2 || nw[1].(map[string]any)["status"] != Completed {
		t.Fatalf("new_todos = %v", nw)
	}
	if stored, _ := Load(context.Background(), st); len(stored) != 0 {
		t.Fatalf("a finished list was kept: %v", stored)
	}
	if string(st.Blobs[BlobKey]) != "[]" {
		t.Fatalf("blob = %s", st.Blobs[BlobKey])
	}
}

func TestEmptyListClears(t *testing.T) {
	env, st, _ := tooltest.Env(t)
	tooltest.Run(t, New(), env, map[string]any{"todos": []Todo{{"A", Pending, "Doing A"}}})
	res, err := tooltest.Run(t, New(), env, map[string]any{"todos": []Todo{}})
	if err != nil || tooltest.Text(res) != successText {
		t.Fatalf("%v %v", res, err)
	}
	if stored, _ := Load(context.Background(), st); len(stored) != 0 {
		t.Fatalf("stored = %v", stored)
	}
}

func TestSchemaIsValidJSON(t *testing.T) {
	if !json.Valid([]byte(inputSchema)) {
		t.Fatal("schema is not JSON")
	}
}
