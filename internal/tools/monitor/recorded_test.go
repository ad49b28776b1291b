package monitor

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/toold/toold/internal/claudecode"
	"github.com/toold/toold/internal/notify/notifytest"
	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/tools/killshell"
)

// The recorded cases whose notifications do not depend on timing closer
// than a second: toold's Monitor gives the same, but for the random task
// ids and the output file, toold's handle (notifytest.Normal). The others
// (lines 100 ms apart, a flood of them) are held to the texts that make
// their notifications below.
var recordedCases = []string{
	"p-mon-one", "p-mon-expiry", "p-mon-expiry-events", "q-mon-batch", "q-mon-noevents-fail",
	"q-mon-many", "r-specialchars", "s-expiry-stderr", "r-durations", "s-durations2",
}

func TestRecordedNotifications(t *testing.T) {
	rec := notifytest.Load(t)
	if rec.ClaudeCodeVersion != claudecode.Version {
		t.Fatalf("recorded with Claude Code %s, the pin is %s", rec.ClaudeCodeVersion, claudecode.Version)
	}
	for _, name := range recordedCases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := rec.Case(t, name)
			f := setup(t)
			var ids []string
			recorded := map[string]bool{}
			for _, call := range c.CallsOf("Monitor") {
				recorded[startedTask.FindStringSubmatch(call.Result)[1]] = true
				f.env.ToolUseID = call.ToolUseID
				raw, _ := json.Marshal(call.Input)
				inv, err := f.m.Parse(raw)
				if err != nil {
					t.Fatal(err)
				}
				res, err := inv.Run(context.Background(), f.env)
				if err != nil {
					t.Fatal(err)
				}
				if got := notifytest.Normal(tooltest.Text(res)); got != notifytest.Normal(call.Result) {
					t.Errorf("%s: result\n%s\nrecorded\n%s", call.ToolUseID, got, notifytest.Normal(call.Result))
				}
				ids = append(ids, res.Meta["task_id"].(string))
			}
			var got []string
			for _, id := range ids {
				for _, n := range f.wait(t, id) {
					if n.TaskID == id {
						got = append(got, notifytest.Normal(n.Text))
					}
				}
			}
			// Each monitor's notifications in order; monitors that run
			// at once may interleave, on both sides.
			var want []string
			for _, e := range c.Elements() {
				if recorded[notifytest.TaskOf(e)] {
					want = append(want, notifytest.Normal(e))
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if strings.Join(got, "\n\n") != strings.Join(want, "\n\n") {
				t.Errorf("notifications\n%s\nrecorded\n%s", strings.Join(got, "\n\n"), strings.Join(want, "\n\n"))
			}
		})
	}
}

func normalAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = notifytest.Normal(s)
	}
	return out
}

// The texts the timing-bound cases hold toold to: the notice of
// suppressed events (a flood, r-chatty), and that batches are lines 200 ms
// apart at most (lines 100 ms apart, q-mon-spaced).
func TestRecordedTexts(t *testing.T) {
	rec := notifytest.Load(t)
	var notices []string
	for _, e := range rec.Case(t, "r-chatty").Elements() {
		if strings.Contains(e, "suppressed") {
			notices = append(notices, e)
		}
	}
	if len(notices) != 2 {
		t.Fatalf("%d notices of suppressed events recorded", len(notices))
	}
	for _, want := range notices {
		count, err := strconv.Atoi(suppressedCount.FindStringSubmatch(want)[1])
		if err != nil {
			t.Fatal(err)
		}
		got := event(notifytest.TaskOf(want), "chatty", suppressedNotice(count), true).Text
		if got != want {
			t.Errorf("notice\n%s\nrecorded\n%s", got, want)
		}
	}
	// The flood's last batches were suppressed and nobody was told: its
	// end says nothing of them.
	els := rec.Case(t, "r-chatty").Elements()
	if last := els[len(els)-1]; !strings.Contains(last, "<summary>Monitor \"chatty\" stream ended</summary>\n</task-notification>") {
		t.Errorf("the flood's end: %s", last)
	}
	for _, e := range rec.Case(t, "q-mon-spaced").Elements() {
		if strings.Count(e, "tick ") > 3 {
			t.Errorf("a batch of lines 100 ms apart holds more than 200 ms of them: %s", e)
		}
	}
}

var (
	startedTask     = regexp.MustCompile(`^Monitor started \(task (\w+),`)
	suppressedCount = regexp.MustCompile(`<event>\[(\d+) events suppressed`)
)

// TaskStop of a monitor: Claude Code's JSON, task_type local_bash, and no
// notification follows (r-mon-stop-events).
func TestRecordedStop(t *testing.T) {
	rec := notifytest.Load(t)
	c := rec.Case(t, "r-mon-stop-events")
	f := setup(t)
	mon := c.CallsOf("Monitor")[0]
	f.env.ToolUseID = mon.ToolUseID
	raw, _ := json.Marshal(mon.Input)
	inv, err := f.m.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	res, err := inv.Run(context.Background(), f.env)
	if err != nil {
		t.Fatal(err)
	}
	id := res.Meta["task_id"].(string)
	if _, err := f.st.ReadNotifications(context.Background(), f.env.SessionID, 0, 0, hangGuard); err != nil {
		t.Fatal(err)
	}
	stop := c.CallsOf("TaskStop")[0]
	got, err := tooltest.Run(t, killshell.New(f.reg), f.env, map[string]any{"task_id": id})
	if err != nil {
		t.Fatal(err)
	}
	if notifytest.Normal(tooltest.Text(got)) != notifytest.Normal(stop.Result) {
		t.Errorf("TaskStop %s\nrecorded %s", tooltest.Text(got), stop.Result)
	}
	ns := f.wait(t, id)
	if want := normalAll(c.Elements()); len(ns) != len(want) || notifytest.Normal(ns[0].Text) != want[0] {
		t.Errorf("notifications %+v\nrecorded %v", ns, want)
	}
}
