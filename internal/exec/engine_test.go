package exec

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

func TestFailedCallsAreInBandAndOthersGoOn(t *testing.T) {
	h := newHarness(t, nil, &fakeTool{name: "Echo", safe: true})
	sink := h.exec(t,
		call("a", "Nope", map[string]any{}),
		call("b", "Echo", map[string]any{"text": "hi"}),
		call("c", "Echo", map[string]any{"txt": "typo"}),
		call("d", "Echo", map[string]any{"text": "reject"}),
	)
	res := sink.results()
	tests := []struct {
		id       string
		kind     tool.ErrorKind
		contains string
	}{
		{"a", tool.KindUnknownTool, "<tool_use_error>Error: No such tool available: Nope</tool_use_error>"},
		{"b", tool.KindNone, "hi"},
		{"c", tool.KindInvalidInput, "txt"},
		{"d", tool.KindInvalidInput, "text must not be reject"},
	}
	for _, tc := range tests {
		r := res[tc.id]
		if r == nil {
			t.Fatalf("%s: no result", tc.id)
		}
		text := r.Content[0].Text
		if r.Kind != tc.kind || r.IsError != (tc.kind != tool.KindNone) || !strings.Contains(text, tc.contains) {
			t.Errorf("%s: kind=%v is_error=%v text=%q; want kind %v containing %q", tc.id, r.Kind, r.IsError, text, tc.kind, tc.contains)
		}
	}
	// A call that failed before running has only a result event.
	if got := sink.kinds("a"); strings.Join(got, ",") != "result" {
		t.Errorf("unknown tool events = %v", got)
	}
}

func TestSchemaValidation(t *testing.T) {
	h := newHarness(t, nil, &fakeTool{name: "Echo", safe: true, run: func(_ context.Context, in fakeInput, _ *tool.Env) (*tool.Result, error) {
		return tool.Text(strings.Repeat(in.Text, in.N) + map[bool]string{true: "!"}[in.Flag]), nil
	}})
	tests := []struct {
		name    string
		req     Request
		want    string // result text on success
		wantErr string // substring of an invalid-input message
	}{
		{"coerces quoted numbers and booleans", call("1", "Echo", map[string]any{"text": "ab", "n": "2", "flag": "true"}), "abab!", ""},
		{"missing required", call("1", "Echo", map[string]any{}), "", "<tool_use_error>InputValidationError: Echo failed due to the following issue:\nThe required parameter `text` is missing</tool_use_error>"},
		{"wrong type", call("1", "Echo", map[string]any{"text": 5.0}), "", "The parameter `text` type is expected as `string` but provided as `number`"},
		{"unknown field", call("1", "Echo", map[string]any{"text": "x", "extra": 1.0}), "", "An unexpected parameter `extra` was provided"},
		// Claude Code leaves a top-level parameter's range to the tool.
		{"maximum of a parameter", call("1", "Echo", map[string]any{"text": "x", "n": 3.0}), "xxx", ""},
		{"fraction for integer", call("1", "Echo", map[string]any{"text": "x", "n": 1.5}), "", "The parameter `n` type is expected as `int` but provided as `number`"},
		{"uncoercible string", call("1", "Echo", map[string]any{"text": "x", "n": "five"}), "", "The parameter `n` type is expected as `number` but provided as `string`"},
		{"exponent is no quoted number", call("1", "Echo", map[string]any{"text": "x", "n": "1e2"}), "", "The parameter `n` type is expected as `number` but provided as `string`"},
		{"TRUE is no quoted boolean", call("1", "Echo", map[string]any{"text": "x", "flag": "TRUE"}), "", "The parameter `flag` type is expected as `boolean` but provided as `string`"},
		{"raw json ok", Request{ToolUseID: "1", Name: "Echo", RawInput: []byte(`{"text":"r","n":3}`)}, "rrr", ""},
		{"raw duplicate key: the last wins", Request{ToolUseID: "1", Name: "Echo", RawInput: []byte(`{"text":"a","n":2,"text":"b"}`)}, "bb", ""},
		{"raw duplicate key checked as the last", Request{ToolUseID: "1", Name: "Echo", RawInput: []byte(`{"text":"a","text":1}`)}, "", "The parameter `text` type is expected as `string` but provided as `number`"},
		{"raw invalid utf8", Request{ToolUseID: "1", Name: "Echo", RawInput: []byte("{\"text\":\"\xff\"}")}, "", "Echo was called with input that could not be parsed as JSON."},
		{"raw trailing data", Request{ToolUseID: "1", Name: "Echo", RawInput: []byte(`{"text":"a"} {}`)}, "", "<tool_use_error>InputValidationError: Echo was called with input that could not be parsed as JSON.\nYou sent (first 15 of 15 bytes): {\"text\":\"a\"} {}\nCommon causes: unescaped backslashes in file paths (use / or \\\\), unescaped control characters, or truncated output. Retry with valid JSON.</tool_use_error>"},
		{"raw array spreads its indexes", Request{ToolUseID: "1", Name: "Echo", RawInput: []byte(`["text"]`)}, "", "The required parameter `text` is missing\nAn unexpected parameter `0` was provided"},
		{"raw number is no keys", Request{ToolUseID: "1", Name: "Echo", RawInput: []byte(`5`)}, "", "failed due to the following issue:\nThe required parameter `text` is missing</"},
		{"raw broken json", Request{ToolUseID: "1", Name: "Echo", RawInput: []byte(`{"text":`)}, "", "You sent (first 8 of 8 bytes): {\"text\":\n"},
		{"raw nested too deep", Request{ToolUseID: "1", Name: "Echo", RawInput: []byte(`{"text":"a","x":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`)}, "", "nest more than 512 levels"},
		{"raw too many values", Request{ToolUseID: "1", Name: "Echo", RawInput: []byte(`{"text":"a","x":[` + strings.Repeat("0,", 100_000) + `0]}`)}, "", "more than 100000 values"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// One session, so every call needs its own tool_use_id.
			tc.req.ToolUseID = strconv.Itoa(i)
			r := h.exec(t, tc.req).results()[tc.req.ToolUseID]
			text := r.Content[0].Text
			if tc.wantErr == "" {
				if r.IsError || text != tc.want {
					t.Fatalf("result %q (error %v), want %q", text, r.IsError, tc.want)
				}
				return
			}
			if r.Kind != tool.KindInvalidInput || !strings.Contains(text, tc.wantErr) {
				t.Fatalf("result kind %v %q, want invalid input containing %q", r.Kind, text, tc.wantErr)
			}
		})
	}
}

func TestPartitioningRunsSafeCallsTogetherAndOthersAlone(t *testing.T) {
	var mu sync.Mutex
	var log []string
	note := func(s string) { mu.Lock(); log = append(log, s); mu.Unlock() }
	// Two safe calls wait for each other: they can only finish if they run
	// at the same time.
	var barrier sync.WaitGroup
	barrier.Add(2)
	safe := &fakeTool{name: "R", safe: true, run: func(ctx context.Context, in fakeInput, _ *tool.Env) (*tool.Result, error) {
		note("start " + in.Text)
		if in.Flag {
			barrier.Done()
			barrier.Wait()
		}
		note("end " + in.Text)
		return tool.Text(in.Text), nil
	}}
	unsafe := &fakeTool{name: "W", run: func(ctx context.Context, in fakeInput, _ *tool.Env) (*tool.Result, error) {
		note("start " + in.Text)
		note("end " + in.Text)
		return tool.Text(in.Text), nil
	}}
	h := newHarness(t, nil, safe, unsafe)
	h.exec(t,
		call("1", "R", map[string]any{"text": "r1", "flag": true}),
		call("2", "R", map[string]any{"text": "r2", "flag": true}),
		call("3", "W", map[string]any{"text": "w1"}),
		call("4", "R", map[string]any{"text": "r3"}),
		call("5", "W", map[string]any{"text": "w2"}),
	)
	got := strings.Join(log, ",")
	// r1 and r2 overlap in either order; everything after is strictly ordered.
	tail := ",start w1,end w1,start r3,end r3,start w2,end w2"
	if !strings.HasSuffix(got, tail) || !strings.HasPrefix(got, "start r") {
		t.Fatalf("order = %s", got)
	}
}

func TestConcurrencyIsBounded(t *testing.T) {
	var g gauge
	slow := &fakeTool{name: "R", safe: true, run: func(ctx context.Context, in fakeInput, _ *tool.Env) (*tool.Result, error) {
		g.enter()
		defer g.leave()
		time.Sleep(20 * time.Millisecond)
		return tool.Text("ok"), nil
	}}
	h := newHarness(t, nil, slow)
	var reqs []Request
	for i := range 9 {
		reqs = append(reqs, call(string(rune('a'+i)), "R", map[string]any{"text": "x"}))
	}
	res := h.exec(t, reqs...).results()
	if len(res) != 9 {
		t.Fatalf("%d results", len(res))
	}
	if p := g.peak.Load(); p > 3 {
		t.Fatalf("peak concurrency %d, limit 3", p)
	}
}

func TestEventsOfACallAreOrdered(t *testing.T) {
	talk := &fakeTool{name: "T", safe: true, run: func(ctx context.Context, in fakeInput, env *tool.Env) (*tool.Result, error) {
		env.Progress.Stdout([]byte("out"))
		env.Progress.Stderr([]byte("err"))
		env.Progress.Message("msg")
		return tool.Text("done"), nil
	}}
	h := newHarness(t, nil, talk)
	sink := h.exec(t, call("a", "T", map[string]any{"text": "1"}), call("b", "T", map[string]any{"text": "2"}))
	for _, id := range []string{"a", "b"} {
		if got := strings.Join(sink.kinds(id), ","); got != "started,progress,progress,progress,result" {
			t.Errorf("%s: events %s", id, got)
		}
	}
	var started *Started
	for _, ev := range sink.events {
		if ev.ToolUseID == "a" && ev.Started != nil {
			started = ev.Started
		}
	}
	if started == nil || started.Tool != "T" || started.Activity.Summary != "T 1" || !started.ReadOnly {
		t.Errorf("started = %+v", started)
	}
}

func TestPanickingToolGivesInternalResult(t *testing.T) {
	boom := &fakeTool{name: "Boom", run: func(context.Context, fakeInput, *tool.Env) (*tool.Result, error) { panic("kaboom") }}
	h := newHarness(t, nil, boom, &fakeTool{name: "Echo"})
	res := h.exec(t, call("a", "Boom", map[string]any{"text": "x"}), call("b", "Echo", map[string]any{"text": "fine"})).results()
	if res["a"].Kind != tool.KindInternal || strings.Contains(res["a"].Content[0].Text, "kaboom") {
		t.Errorf("panic result = %+v", res["a"])
	}
	if res["b"].IsError {
		t.Errorf("call after the panic failed: %+v", res["b"])
	}
}

func TestPolicyDenyStopsTheCall(t *testing.T) {
	ran := false
	h := newHarness(t, denyAll{}, &fakeTool{name: "W", run: func(context.Context, fakeInput, *tool.Env) (*tool.Result, error) {
		ran = true
		return tool.Text("ran"), nil
	}})
	sink := h.exec(t, call("a", "W", map[string]any{"text": "x"}))
	r := sink.results()["a"]
	if ran || r.Kind != tool.KindPermissionDenied || r.Content[0].Text != "Permission to use W has been denied." {
		t.Fatalf("ran=%v result=%+v", ran, r)
	}
	if got := strings.Join(sink.kinds("a"), ","); got != "result" {
		t.Errorf("denied call events = %s", got)
	}
}

func TestCancellationStopsRunningAndPendingCalls(t *testing.T) {
	started := make(chan struct{})
	block := &fakeTool{name: "Block", run: func(ctx context.Context, _ fakeInput, _ *tool.Env) (*tool.Result, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	h := newHarness(t, nil, block, &fakeTool{name: "Echo"})
	ctx, cancel := context.WithCancel(context.Background())
	sink := &recSink{}
	done := make(chan error)
	go func() {
		done <- h.engine.Execute(ctx, h.id, []Request{
			call("a", "Block", map[string]any{"text": "x"}),
			call("b", "Echo", map[string]any{"text": "never"}),
		}, sink)
	}()
	<-started
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	res := sink.results()
	if res["a"].Kind != tool.KindCancelled || res["b"].Kind != tool.KindCancelled {
		t.Fatalf("results a=%+v b=%+v", res["a"], res["b"])
	}
}

func TestCancelSessionWaitsForRunningCalls(t *testing.T) {
	started := make(chan struct{})
	finished := make(chan struct{})
	block := &fakeTool{name: "Block", run: func(ctx context.Context, _ fakeInput, _ *tool.Env) (*tool.Result, error) {
		close(started)
		<-ctx.Done()
		close(finished)
		return nil, ctx.Err()
	}}
	h := newHarness(t, nil, block)
	go h.engine.Execute(context.Background(), h.id, []Request{call("a", "Block", map[string]any{"text": "x"})}, &recSink{})
	<-started
	if err := h.engine.CancelSession(context.Background(), h.id); err != nil {
		t.Fatal(err)
	}
	select {
	case <-finished:
	default:
		t.Fatal("CancelSession returned before the call finished")
	}
}

func TestUnknownSession(t *testing.T) {
	h := newHarness(t, nil, &fakeTool{name: "Echo"})
	err := h.engine.Execute(context.Background(), "nope", []Request{call("a", "Echo", map[string]any{"text": "x"})}, &recSink{})
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
}

func TestCwdFallsBackToWorkspace(t *testing.T) {
	var seen string
	pwd := &fakeTool{name: "Pwd", run: func(_ context.Context, _ fakeInput, env *tool.Env) (*tool.Result, error) {
		seen = env.Cwd
		return tool.Text(env.Cwd), nil
	}}
	h := newHarness(t, nil, pwd)
	h.store.SetCwd(context.Background(), h.id, "/somewhere/else")
	h.exec(t, call("a", "Pwd", map[string]any{"text": "x"}))
	if seen != h.dir {
		t.Fatalf("cwd = %q, want the workspace %q", seen, h.dir)
	}
}

func TestResultShaping(t *testing.T) {
	tests := []struct {
		name string
		res  *tool.Result
		err  error
		kind tool.ErrorKind
		text string
	}{
		{"tool error", nil, tool.Failf("nope"), tool.KindFailed, "nope"},
		{"deadline", nil, context.DeadlineExceeded, tool.KindTimeout, "time limit"},
		{"cancel", nil, context.Canceled, tool.KindCancelled, "cancelled"},
		{"store down", nil, store.ErrUnavailable, tool.KindUnavailable, "could not be read"},
		{"plain error", nil, errors.New("disk on fire"), tool.KindFailed, "disk on fire"},
		{"nil result", nil, nil, tool.KindInternal, "no result"},
		{"empty content", &tool.Result{}, nil, tool.KindNone, "(no output)"},
		{"error without kind", &tool.Result{IsError: true, Content: []tool.Block{{Text: "x"}}}, nil, tool.KindFailed, "x"},
		{"long text cut", tool.Text(strings.Repeat("é", 13)), nil, tool.KindNone, "ééééééééééé\n\n[Result truncated: 2 more characters were cut.]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := shape(tc.res, tc.err, 11)
			if r.Kind != tc.kind || !strings.Contains(r.Content[0].Text, tc.text) {
				t.Fatalf("got kind %v text %q", r.Kind, r.Content[0].Text)
			}
		})
	}
}

func TestStrictInputJSONRefusesWhatClaudeCodeRepairs(t *testing.T) {
	h := newHarness(t, nil, &fakeTool{name: "Echo", safe: true, run: func(_ context.Context, in fakeInput, _ *tool.Env) (*tool.Result, error) {
		return tool.Text(in.Text), nil
	}})
	h.engine.schemas.strictJSON = true
	for i, tc := range []struct{ raw, want string }{
		{`{"text":"a","text":"b"}`, `duplicate key "text"`},
		{`["text"]`, "must be a JSON object"},
		{`{"text":`, "not valid JSON"},
	} {
		id := strconv.Itoa(i)
		r := h.exec(t, Request{ToolUseID: id, Name: "Echo", RawInput: []byte(tc.raw)}).results()[id]
		if r.Kind != tool.KindInvalidInput || !strings.Contains(r.Content[0].Text, tc.want) {
			t.Errorf("%s: %v %q, want invalid input containing %q", tc.raw, r.Kind, r.Content[0].Text, tc.want)
		}
	}
}
