package console

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool"
)

func storedEvents(t *testing.T, from int64, evs ...exec.Event) []store.CallEvent {
	t.Helper()
	out := make([]store.CallEvent, len(evs))
	for i, ev := range evs {
		ev.Seq = from + int64(i)
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = store.CallEvent{Seq: ev.Seq, Data: b, Final: ev.Result != nil}
	}
	return out
}

func feedKinds(t *testing.T, st store.Board, id string) string {
	t.Helper()
	entries, err := st.ReadFeed(context.Background(), id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range entries {
		it, ok := decodeItem(e)
		if !ok {
			t.Fatalf("feed entry %s is not an Item", e.Data)
		}
		kinds = append(kinds, it.Kind+":"+it.Tool)
	}
	return strings.Join(kinds, " ")
}

// The journal's events of a call that asks, is allowed and runs become the
// feed, and the request is listed exactly while it waits.
func TestRecorderListsAsksWhileTheyWait(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	const sid = "aaaaaaaaaaaaaaaaaaaaaaaaa2"
	if err := st.CreateSession(ctx, &store.Session{ID: sid, Tenant: "team-a"}); err != nil {
		t.Fatal(err)
	}
	r := NewRecorder(st, time.Hour, nil)
	defer r.Close()
	j := r.Tap(st)
	ref := store.CallRef{SessionID: sid, ToolUseID: "toolu_1"}
	times := store.CallTimes{Lease: time.Minute, Keep: time.Hour}
	if _, _, err := j.BeginCalls(ctx, sid, "o", []store.Claim{{ToolUseID: ref.ToolUseID, Fingerprint: "f"}}, times); err != nil {
		t.Fatal(err)
	}
	r.OnDecision(ctx, &exec.Call{Request: exec.Request{ToolUseID: ref.ToolUseID, Name: "Bash"}, Session: &store.Session{ID: sid}}, policy.Decision{Behavior: policy.Ask})
	dec := policy.Decision{Behavior: policy.Ask, Rule: "Bash(rm *)", Source: "localSettings", Reason: "asks", Parts: []policy.Part{{Command: "rm x", Behavior: policy.Ask}}}
	big := strings.Repeat("é", maxInputText)
	err := j.AppendEvents(ctx, ref, "o", storedEvents(t, 1,
		exec.Event{ToolUseID: ref.ToolUseID, Decision: &dec},
		exec.Event{ToolUseID: ref.ToolUseID, PermissionRequest: &exec.PermissionRequest{ID: "perm_1", Tool: "Bash", Input: map[string]any{"command": "rm x", "big": big}, Decision: dec}},
	))
	if err != nil {
		t.Fatal(err)
	}
	r.sync()
	asks, err := st.ListAsks(ctx, sid)
	if err != nil || len(asks) != 1 || asks[0].RequestID != "perm_1" {
		t.Fatalf("asks while waiting = %+v, %v", asks, err)
	}
	var a Ask
	if err := json.Unmarshal(asks[0].Data, &a); err != nil {
		t.Fatal(err)
	}
	if a.Tool != "Bash" || a.ToolUseID != "toolu_1" || a.Decision.Rule != "Bash(rm *)" || a.Decision.Source != "localSettings" ||
		len(a.Decision.Parts) != 1 || a.Decision.Parts[0].Behavior != "ask" || a.Input["command"] != "rm x" {
		t.Fatalf("listed ask = %+v", a)
	}
	if s, _ := a.Input["big"].(string); !a.Truncated || len(s) > maxInputText || !strings.HasPrefix(big, s) {
		t.Fatalf("a long input string was not cut on a rune boundary: %d bytes, truncated=%v", len(s), a.Truncated)
	}
	if got := feedKinds(t, st, sid); got != "decision:Bash ask:Bash" {
		t.Fatalf("feed while waiting = %s", got)
	}

	// Allowed: the call starts, the request is no longer listed.
	if err := j.AppendEvents(ctx, ref, "o", storedEvents(t, 3, exec.Event{ToolUseID: ref.ToolUseID, Started: &exec.Started{Tool: "Bash", Activity: tool.Activity{Summary: "Run: rm x"}}})); err != nil {
		t.Fatal(err)
	}
	r.sync()
	if asks, _ := st.ListAsks(ctx, sid); len(asks) != 0 {
		t.Fatalf("asks after the call started = %+v", asks)
	}
	res := exec.Event{ToolUseID: ref.ToolUseID, Result: &exec.Outcome{Result: &tool.Result{Content: []tool.Block{{Type: tool.BlockText, Text: strings.Repeat("out ", 1000)}}}}}
	if err := j.FinishCall(ctx, ref, "o", storedEvents(t, 4, res), store.Effects{}, times); err != nil {
		t.Fatal(err)
	}
	r.sync()
	if got := feedKinds(t, st, sid); got != "decision:Bash ask:Bash started:Bash result:Bash" {
		t.Fatalf("feed = %s", got)
	}
	entries, _ := st.ReadFeed(ctx, sid, 3, 0)
	last, _ := decodeItem(entries[len(entries)-1])
	if last.Summary != "Run: rm x" || len(last.Text) > maxItemText || last.IsError {
		t.Fatalf("result entry = %+v", last)
	}
	r.mu.Lock()
	left := len(r.calls)
	r.mu.Unlock()
	if left != 0 {
		t.Fatalf("the recorder still remembers %d finished calls", left)
	}
}

// A call that ends while its request is listed (denied, cancelled, its
// replica's FinishCall failing) leaves nothing listed; events the journal
// refused are not recorded.
func TestRecorderUnlistsWhenTheCallEnds(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	const sid = "aaaaaaaaaaaaaaaaaaaaaaaaa2"
	if err := st.CreateSession(ctx, &store.Session{ID: sid}); err != nil {
		t.Fatal(err)
	}
	r := NewRecorder(st, time.Hour, nil)
	defer r.Close()
	j := r.Tap(st)
	ref := store.CallRef{SessionID: sid, ToolUseID: "toolu_1"}
	times := store.CallTimes{Lease: time.Minute, Keep: time.Hour}
	if _, _, err := j.BeginCalls(ctx, sid, "o", []store.Claim{{ToolUseID: ref.ToolUseID, Fingerprint: "f"}}, times); err != nil {
		t.Fatal(err)
	}
	pr := exec.Event{ToolUseID: ref.ToolUseID, PermissionRequest: &exec.PermissionRequest{ID: "perm_1", Tool: "Write"}}
	// Another owner's events are refused by the journal: nothing recorded.
	if err := j.AppendEvents(ctx, ref, "intruder", storedEvents(t, 1, pr)); err == nil {
		t.Fatal("the journal took another owner's events")
	}
	r.sync()
	if asks, _ := st.ListAsks(ctx, sid); len(asks) != 0 {
		t.Fatalf("refused events were recorded: %+v", asks)
	}
	if err := j.AppendEvents(ctx, ref, "o", storedEvents(t, 1, pr)); err != nil {
		t.Fatal(err)
	}
	r.sync()
	if asks, _ := st.ListAsks(ctx, sid); len(asks) != 1 {
		t.Fatalf("asks = %+v", asks)
	}
	// FinishCall fails (not the owner): the call has ended anyway here.
	if err := j.FinishCall(ctx, ref, "intruder", nil, store.Effects{}, times); err == nil {
		t.Fatal("FinishCall by another owner succeeded")
	}
	r.sync()
	if asks, _ := st.ListAsks(ctx, sid); len(asks) != 0 {
		t.Fatalf("asks after the call ended = %+v", asks)
	}
}

func TestLineDiff(t *testing.T) {
	render := func(d []diffLine) string {
		var b strings.Builder
		for _, l := range d {
			b.WriteString(l.Op + l.Text + "|")
		}
		return b.String()
	}
	for _, tc := range []struct{ old, new, want string }{
		{"a\nb\nc", "a\nB\nc", " a|-b|+B| c|"},
		{"", "x\ny\n", "+x|+y|"},
		{"x\n", "", "-x|"},
		{"a\nb", "b\na", "-a| b|+a|"},
		{"same", "same", " same|"},
	} {
		if got := render(lineDiff(tc.old, tc.new)); got != tc.want {
			t.Errorf("lineDiff(%q, %q) = %s, want %s", tc.old, tc.new, got, tc.want)
		}
	}
	// Beyond the bound, all old lines go and all new come.
	long := strings.Repeat("l\n", maxDiffLines+1)
	d := lineDiff(long, "l\n")
	if len(d) != maxDiffLines+2 || d[0].Op != "-" || d[len(d)-1].Op != "+" {
		t.Fatalf("a long diff: %d lines", len(d))
	}
}

// A progress event is never recorded, and the key the recorder skips it by
// is the one exec's encoding gives it.
func TestRecorderSkipsProgress(t *testing.T) {
	ev := storedEvents(t, 1,
		exec.Event{ToolUseID: "t", Progress: &exec.Progress{Stream: exec.StreamStdout, Data: []byte(`"Progress":{`)}},
		exec.Event{ToolUseID: "t", Result: &exec.Outcome{Result: &tool.Result{Content: []tool.Block{{Type: tool.BlockText, Text: `"Progress":{`}}}}},
	)
	if !strings.Contains(string(ev[0].Data), string(progressKey)) || strings.Contains(string(ev[1].Data), string(progressKey)) {
		t.Fatalf("exec's encoding changed: %s / %s", ev[0].Data, ev[1].Data)
	}
}

// BenchmarkJournalTap measures what the tap adds to storing a call's
// events (a decision, 50 output chunks, the result) in the memory store;
// compare with -bench 'JournalTap/(direct|tapped)'.
func BenchmarkJournalTap(b *testing.B) {
	t := &testing.T{}
	dec := policy.Decision{Behavior: policy.Allow, Source: "rules", Rule: "Bash(go test *)"}
	evs := []exec.Event{{ToolUseID: "t", Decision: &dec}, {ToolUseID: "t", Started: &exec.Started{Tool: "Bash"}}}
	for range 50 {
		evs = append(evs, exec.Event{ToolUseID: "t", Progress: &exec.Progress{Stream: exec.StreamStdout, Data: []byte(strings.Repeat("ok  \tpackage\t0.1s\n", 8))}})
	}
	final := exec.Event{ToolUseID: "t", Result: &exec.Outcome{Result: &tool.Result{Content: []tool.Block{{Type: tool.BlockText, Text: strings.Repeat("ok\n", 100)}}}}}
	stored, last := storedEvents(t, 1, evs...), storedEvents(t, int64(len(evs)+1), final)
	for _, mode := range []string{"direct", "tapped"} {
		b.Run(mode, func(b *testing.B) {
			ctx := context.Background()
			st := memstore.New()
			const sid = "aaaaaaaaaaaaaaaaaaaaaaaaa2"
			st.CreateSession(ctx, &store.Session{ID: sid})
			var j store.Store = st
			if mode == "tapped" {
				r := NewRecorder(st, time.Hour, nil)
				defer r.Close()
				j = r.Tap(st)
			}
			times := store.CallTimes{Lease: time.Minute, Keep: time.Hour}
			b.ResetTimer()
			for i := range b.N {
				ref := store.CallRef{SessionID: sid, ToolUseID: fmt.Sprint("toolu_", i)}
				j.BeginCalls(ctx, sid, "o", []store.Claim{{ToolUseID: ref.ToolUseID, Fingerprint: "f"}}, times)
				if err := j.AppendEvents(ctx, ref, "o", stored); err != nil {
					b.Fatal(err)
				}
				if err := j.FinishCall(ctx, ref, "o", last, store.Effects{}, times); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
