package agenttasks_test

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tools/agenttasks"
)

// The texts for background agents are Claude Code 2.1.332's, as recorded
// in test/conformance/recorded_bgagent.json: the task-notification of a
// finished and of a stopped agent (without the output-file and note lines,
// which toold leaves out), TaskStop of a running agent and of an ended one.
func TestRecordedTexts(t *testing.T) {
	raw, err := os.ReadFile("../../../test/conformance/recorded_bgagent.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Calls []struct {
			Case, Tool string
			Result     struct {
				Content json.RawMessage `json:"content"`
			} `json:"tool_result"`
		} `json:"calls"`
		Notifications []struct{ Case, Text string } `json:"notifications"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	drop := regexp.MustCompile(`(?m)^<(output-file|note)>.*\n`)
	idRe := regexp.MustCompile(`<task-id>(\w+)</task-id>\n<tool-use-id>(\w+)</tool-use-id>`)
	usage := regexp.MustCompile(`<usage><subagent_tokens>(\d+)</subagent_tokens><tool_uses>(\d+)</tool_uses><duration_ms>(\d+)</duration_ms></usage>`)
	for _, n := range rec.Notifications {
		want := drop.ReplaceAllString(n.Text, "")
		m := idRe.FindStringSubmatch(want)
		a := &store.AgentTask{ID: m[1], ToolUseID: m[2], Description: "Count files", State: store.AgentKilled}
		if strings.Contains(want, "<status>completed</status>") {
			a.State, a.Report = store.AgentCompleted, "The subagent report: 3 files."
			u := usage.FindStringSubmatch(want)
			a.Usage = &store.AgentTaskUsage{Tokens: atoi(u[1]), ToolUses: atoi(u[2]), DurationMS: atoi(u[3])}
		}
		if got := agenttasks.Output(a, false); got != want {
			t.Errorf("%s:\n%s\nrecorded:\n%s", n.Case, got, want)
		}
	}
	f := setup(t)
	ctx := context.Background()
	stops := 0
	for _, c := range rec.Calls {
		var text string
		if json.Unmarshal(c.Result.Content, &text) != nil || c.Tool != "TaskStop" {
			continue
		}
		stops++
		id := regexp.MustCompile(`a[0-9a-f]{16}`).FindString(text)
		f.launch(t, id)
		if strings.Contains(text, "status: completed") {
			agenttasks.Finish(ctx, f.st, f.env.SessionID, id, agenttasks.Report{Text: "x"}, time.Now())
		}
		if strings.Contains(text, "status: killed") {
			agenttasks.Stop(ctx, f.st, f.env.SessionID, id, time.Now())
		}
		got, err := run(t, f.killer, f.env, map[string]any{"task_id": id})
		if err != nil {
			got = "<tool_use_error>" + err.Error() + "</tool_use_error>"
		}
		if got != text {
			t.Errorf("TaskStop %s: %s\nrecorded: %s", id, got, text)
		}
	}
	if stops != 3 || len(rec.Notifications) != 2 {
		t.Fatalf("%d TaskStop calls and %d notifications in the recording", stops, len(rec.Notifications))
	}
}

func atoi(s string) int64 {
	var n int64
	for _, r := range s {
		n = n*10 + int64(r-'0')
	}
	return n
}
