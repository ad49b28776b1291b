package exec

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/toold/toold/internal/tool"
)

// streamlessSink is a recSink that cannot carry asks or delegations.
type streamlessSink struct{ recSink }

func (*streamlessSink) Streamless() {}

// A delegated call of a streamless batch is not handed over: no
// delegation event; it and the calls after it are released, and the same
// request on a stream runs them.
func TestStreamlessDelegatedCallNeedsStream(t *testing.T) {
	h := newDelegHarness(t, time.Minute, "default")
	ctx := context.Background()
	reqs := []Request{
		call("l1", "ListAgents", map[string]any{}),
		call("q1", "AskUserQuestion", map[string]any{"questions": []any{map[string]any{"question": "Which color?", "header": "H", "multiSelect": false,
			"options": []any{map[string]any{"label": "A", "description": "a"}, map[string]any{"label": "B", "description": "b"}}}}}),
		call("l2", "ListAgents", map[string]any{}),
	}
	sink := &streamlessSink{}
	err := h.engine.Execute(ctx, h.id, reqs, sink)
	var ns *NeedsStreamError
	if !errors.As(err, &ns) || ns.ToolUseID != "q1" || ns.Tool != "AskUserQuestion" || !ns.Delegated {
		t.Fatalf("Execute: %v, want a NeedsStreamError for q1", err)
	}
	if got := sink.results(); len(got) != 1 || got["l1"] == nil {
		t.Fatalf("results %v, want l1's only", got)
	}
	if len(sink.of("l2")) != 0 || sink.results()["q1"] != nil {
		t.Fatalf("events of calls that did not run: %v %v", sink.of("q1"), sink.of("l2"))
	}

	// On a stream: l1 is replayed, a1 is delegated, l2 runs after it.
	stream, wait := h.start(ctx, t, reqs...)
	d := <-stream.delegated
	if err := h.engine.CompleteCall(ctx, h.id, "q1", tool.Completion{Answers: map[string]string{"Which color?": "A"}}); err != nil {
		t.Fatal(err)
	}
	wait()
	for _, ev := range stream.of("l1") {
		if !ev.Replayed {
			t.Fatalf("l1 ran again: %+v", ev)
		}
	}
	if evs := stream.of("l2"); len(evs) == 0 || evs[0].Replayed || stream.results()["l2"] == nil {
		t.Fatalf("l2 on the stream: %+v", evs)
	}
	if d.Tool != "AskUserQuestion" || stream.results()["q1"] == nil {
		t.Fatalf("delegation %+v, result %v", d, stream.results()["q1"])
	}
}
