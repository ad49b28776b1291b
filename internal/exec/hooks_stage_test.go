package exec

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/bash"
)

// hookHarness is an engine with the real Bash tool, the real policy engine
// and real hook scripts (bash + jq).
type hookHarness struct {
	engine  *Engine
	dir     string // the session's workspace
	scripts string // where the hook scripts live
	id      string
}

// script writes an executable hook script and returns its path.
func (h *hookHarness) script(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(h.scripts, name)
	if err := os.WriteFile(p, []byte("#!/bin/bash\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// newHookHarness builds the engine; settings gets the scripts directory
// and returns the settings file's content. sess adjusts the session.
func newHookHarness(t *testing.T, settings func(h *hookHarness) string, sess func(*store.Session), extra ...tool.Tool) *hookHarness {
	t.Helper()
	for _, bin := range []string{"bash", "jq"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s is not installed", bin)
		}
	}
	h := &hookHarness{scripts: t.TempDir(), id: "s1"}
	h.dir, _ = filepath.EvalSymlinks(t.TempDir())
	cfg, err := hooks.ParseSettings([]byte(settings(h)), "test settings")
	if err != nil {
		t.Fatal(err)
	}
	runner, err := hooks.New(hooks.Options{Settings: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { runner.Close() })
	reg, err := tool.NewRegistry(append([]tool.Tool{bash.New(bash.Options{})}, extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := policy.NewEngine(policy.Options{Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	st := memstore.New()
	h.engine, err = NewEngine(Config{Registry: reg, Store: st, Policy: dec, Hooks: runner, Environ: ProcessEnviron(),
		Ask: AskConfig{Timeout: 20 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	s := &store.Session{ID: h.id, Workspace: h.dir, Cwd: h.dir, Mode: "bypassPermissions"}
	if sess != nil {
		sess(s)
	}
	if err := st.CreateSession(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.engine.Shutdown(context.Background()) })
	return h
}

// preToolUse is a settings file with one PreToolUse command hook.
func preToolUse(matcher, command string) string {
	return settingsOf("PreToolUse", matcher, command)
}

func settingsOf(event, matcher, command string) string {
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{event: []any{
		map[string]any{"matcher": matcher, "hooks": []any{map[string]any{"type": "command", "command": command}}},
	}}})
	return string(b)
}

// answerSink records every event and answers permission requests.
type answerSink struct {
	engine *Engine
	sid    string
	allow  bool

	mu     sync.Mutex
	events []Event
}

func (a *answerSink) Emit(ev Event) error {
	a.mu.Lock()
	a.events = append(a.events, ev)
	a.mu.Unlock()
	if ev.PermissionRequest != nil {
		go a.engine.Resolve(context.Background(), a.sid, ev.PermissionRequest.ID, Answer{Allow: a.allow, Message: "the person said no"})
	}
	return nil
}

func (a *answerSink) of(id string) []Event {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []Event
	for _, ev := range a.events {
		if ev.ToolUseID == id {
			out = append(out, ev)
		}
	}
	return out
}

func (a *answerSink) result(id string) *tool.Result {
	for _, ev := range a.of(id) {
		if ev.Result != nil {
			return ev.Result.Result
		}
	}
	return nil
}

func (a *answerSink) hookRuns(id string) []*HookRun {
	var out []*HookRun
	for _, ev := range a.of(id) {
		if ev.Hook != nil {
			out = append(out, ev.Hook)
		}
	}
	return out
}

func (a *answerSink) asked(id string) bool {
	for _, ev := range a.of(id) {
		if ev.PermissionRequest != nil {
			return true
		}
	}
	return false
}

func (h *hookHarness) run(t *testing.T, allow bool, reqs ...Request) *answerSink {
	t.Helper()
	sink := &answerSink{engine: h.engine, sid: h.id, allow: allow}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.engine.Execute(ctx, h.id, reqs, sink); err != nil {
		t.Fatalf("Execute: %v", err)
	}
	return sink
}

func bashCall(id, command string) Request {
	return call(id, "Bash", map[string]any{"command": command})
}

func text(r *tool.Result) string {
	if r == nil {
		return "<no result>"
	}
	return resultText(r)
}

func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

// Exit 2 blocks the call; the hook's stderr is what the model reads, and
// the run is on the stream with its status, decision and exit code.
func TestPreToolUseExit2BlocksWithStderr(t *testing.T) {
	h := newHookHarness(t, func(h *hookHarness) string {
		return preToolUse("Bash", h.script(t, "no-rm.sh", `cmd=$(jq -r '.tool_input.command')
if [[ "$cmd" == *rm* ]]; then echo "rm is not allowed here: $cmd" >&2; exit 2; fi
exit 0
`))
	}, nil)
	os.WriteFile(filepath.Join(h.dir, "victim"), []byte("x"), 0o644)
	sink := h.run(t, false, bashCall("a", "rm -f victim"), bashCall("b", "echo fine"))

	r := sink.result("a")
	if r == nil || r.Kind != tool.KindPermissionDenied || !strings.Contains(text(r), "rm is not allowed here: rm -f victim") {
		t.Fatalf("blocked call: %+v", r)
	}
	if !exists(h.dir, "victim") {
		t.Fatal("the blocked command ran")
	}
	runs := sink.hookRuns("a")
	if len(runs) != 1 || runs[0].Event != "PreToolUse" || runs[0].Status != "blocked" || runs[0].Decision != "deny" ||
		runs[0].ExitCode != 2 || !strings.Contains(runs[0].Message, "rm is not allowed here") || runs[0].Type != "command" {
		t.Fatalf("hook runs of the blocked call: %+v", runs)
	}
	if r := sink.result("b"); r == nil || r.IsError || !strings.Contains(text(r), "fine") {
		t.Fatalf("allowed call: %+v", r)
	}
	if runs := sink.hookRuns("b"); len(runs) != 1 || runs[0].Status != "ok" || runs[0].Decision != "" {
		t.Fatalf("hook runs of the allowed call: %+v", runs)
	}
}

func TestPreToolUseJSONDeny(t *testing.T) {
	h := newHookHarness(t, func(h *hookHarness) string {
		return preToolUse("Bash", h.script(t, "deny.sh", `jq '{hookSpecificOutput: {hookEventName: "PreToolUse",
  permissionDecision: "deny", permissionDecisionReason: ("no touching: " + .tool_input.command)}}'
`))
	}, nil)
	sink := h.run(t, false, bashCall("a", "touch made"))
	r := sink.result("a")
	if r == nil || r.Kind != tool.KindPermissionDenied || !strings.Contains(text(r), "no touching: touch made") {
		t.Fatalf("result: %+v", r)
	}
	if exists(h.dir, "made") {
		t.Fatal("the denied command ran")
	}
	if runs := sink.hookRuns("a"); len(runs) != 1 || runs[0].Status != "ok" || runs[0].Decision != "deny" {
		t.Fatalf("hook runs: %+v", runs)
	}
}

// updatedInput becomes the call's input: the rules judge the new input,
// and the tool runs it.
func TestUpdatedInputIsJudgedByTheRules(t *testing.T) {
	h := newHookHarness(t, func(h *hookHarness) string {
		return preToolUse("Bash", h.script(t, "rewrite.sh", `jq '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow",
  updatedInput: {command: (if .tool_input.command == "echo harmless" then "touch forbidden" else "echo rewritten" end)}}}'
`))
	}, func(s *store.Session) { s.Deny = []string{"Bash(touch *)"} })
	sink := h.run(t, false, bashCall("a", "echo harmless"), bashCall("b", "echo original"))
	r := sink.result("a")
	if r == nil || r.Kind != tool.KindPermissionDenied || text(r) != "Permission to use Bash with command touch forbidden has been denied." {
		t.Fatalf("rewritten into a denied command: %+v", r)
	}
	if exists(h.dir, "forbidden") {
		t.Fatal("the denied rewrite ran")
	}
	if r := sink.result("b"); r == nil || r.IsError || !strings.Contains(text(r), "rewritten") || strings.Contains(text(r), "original") {
		t.Fatalf("rewritten call: %+v", r)
	}
}

func TestUpdatedInputThatBreaksTheSchemaIsInvalidInput(t *testing.T) {
	h := newHookHarness(t, func(h *hookHarness) string {
		return preToolUse("Bash", h.script(t, "bad.sh", `echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": 42}}}'
`))
	}, nil)
	sink := h.run(t, false, bashCall("a", "touch made"))
	r := sink.result("a")
	if r == nil || r.Kind != tool.KindInvalidInput || !strings.Contains(text(r), "rewrote the input of Bash") || !strings.Contains(text(r), "command") {
		t.Fatalf("result: %+v", r)
	}
	if exists(h.dir, "made") {
		t.Fatal("the call ran")
	}
}

// A hook's allow skips the prompt a mode would show, not an ask rule.
func TestHookAllowDoesNotOverrideAnAskRule(t *testing.T) {
	h := newHookHarness(t, func(h *hookHarness) string {
		return preToolUse("Bash", h.script(t, "allow.sh", `echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "hook says fine"}}'
`))
	}, func(s *store.Session) { s.Mode = "default"; s.Ask = []string{"Bash(echo *)"} })
	sink := h.run(t, false, bashCall("ask-rule", "echo hi"), bashCall("mode-ask", "touch made"))
	if !sink.asked("ask-rule") {
		t.Fatal("the ask rule did not ask")
	}
	if r := sink.result("ask-rule"); r == nil || r.Kind != tool.KindPermissionDenied || !strings.Contains(text(r), "the person said no") {
		t.Fatalf("ask-rule result: %+v", sink.result("ask-rule"))
	}
	if sink.asked("mode-ask") {
		t.Fatal("the hook's allow did not skip the mode's prompt")
	}
	if r := sink.result("mode-ask"); r == nil || r.IsError || !exists(h.dir, "made") {
		t.Fatalf("mode-ask result: %+v", r)
	}
	for _, ev := range sink.of("mode-ask") {
		if ev.Decision != nil && (ev.Decision.Behavior != policy.Allow || ev.Decision.Source != "hook" || !strings.Contains(ev.Decision.Reason, "hook says fine")) {
			t.Fatalf("decision: %+v", ev.Decision)
		}
	}
}

// A hook's ask makes an allowed call wait for an answer.
func TestHookAskTurnsAnAllowedCallIntoAnAsk(t *testing.T) {
	h := newHookHarness(t, func(h *hookHarness) string {
		return preToolUse("Bash", h.script(t, "ask.sh", `echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "check this one"}}'
`))
	}, nil)
	sink := h.run(t, false, bashCall("a", "touch made"))
	var req *PermissionRequest
	for _, ev := range sink.of("a") {
		if ev.PermissionRequest != nil {
			req = ev.PermissionRequest
		}
	}
	if req == nil || req.Decision.Source != "hook" || !strings.Contains(req.Decision.Reason, "check this one") {
		t.Fatalf("permission request: %+v", req)
	}
	if r := sink.result("a"); r == nil || r.Kind != tool.KindPermissionDenied || exists(h.dir, "made") {
		t.Fatalf("result: %+v", r)
	}
}

// PermissionRequest hooks answer a request before anyone is asked.
func TestPermissionRequestHookAnswers(t *testing.T) {
	h := newHookHarness(t, func(h *hookHarness) string {
		return settingsOf("PermissionRequest", "Bash", h.script(t, "answer.sh", `jq 'if (.tool_input.command | startswith("echo yes")) and .hook_event_name == "PermissionRequest"
  then {hookSpecificOutput: {hookEventName: "PermissionRequest", decision: {behavior: "allow"}}}
  else {hookSpecificOutput: {hookEventName: "PermissionRequest", decision: {behavior: "deny", message: "not on my watch"}}} end'
`))
	}, func(s *store.Session) { s.Mode = "default"; s.Ask = []string{"Bash(echo *)"} })
	sink := h.run(t, true, bashCall("yes", "echo yes please"), bashCall("no", "echo no thanks"))
	if sink.asked("yes") || sink.asked("no") {
		t.Fatal("a person was asked although the hook answered")
	}
	if r := sink.result("yes"); r == nil || r.IsError || !strings.Contains(text(r), "yes please") {
		t.Fatalf("allowed: %+v", r)
	}
	if r := sink.result("no"); r == nil || r.Kind != tool.KindPermissionDenied || !strings.Contains(text(r), "not on my watch") {
		t.Fatalf("denied: %+v", r)
	}
	if runs := sink.hookRuns("no"); len(runs) != 1 || runs[0].Event != "PermissionRequest" || runs[0].Decision != "deny" {
		t.Fatalf("hook runs: %+v", runs)
	}
}

// PostToolUse sees the tool's response and its additionalContext reaches
// the model next to the result; PostToolUseFailure runs for a failed call.
func TestPostToolUseAddsContextToTheResult(t *testing.T) {
	var seen string
	h := newHookHarness(t, func(h *hookHarness) string {
		seen = filepath.Join(h.scripts, "seen.json")
		post := h.script(t, "post.sh", `cat > `+seen+`
echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "remember to run the tests"}}'
`)
		fail := h.script(t, "fail.sh", `jq '{hookSpecificOutput: {hookEventName: "PostToolUseFailure", additionalContext: ("the command failed: " + .error)}}'
`)
		b, _ := json.Marshal(map[string]any{"hooks": map[string]any{
			"PostToolUse":        []any{map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": post}}}},
			"PostToolUseFailure": []any{map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "command", "command": fail}}}},
		}})
		return string(b)
	}, nil)
	sink := h.run(t, false, bashCall("ok", "echo hello-out"), bashCall("bad", "echo broken >&2; exit 3"))
	r := sink.result("ok")
	if r == nil || r.IsError || text(r) != "hello-out" || strings.Join(r.ModelContext, "|") != "PostToolUse:Bash hook additional context: remember to run the tests" {
		t.Fatalf("result: %+v", r)
	}
	var in struct {
		HookEventName string `json:"hook_event_name"`
		ToolName      string `json:"tool_name"`
		ToolUseID     string `json:"tool_use_id"`
		ToolResponse  struct {
			Stdout string `json:"stdout"`
		} `json:"tool_response"`
	}
	data, _ := os.ReadFile(seen)
	if err := json.Unmarshal(data, &in); err != nil || in.HookEventName != "PostToolUse" || in.ToolName != "Bash" ||
		in.ToolUseID != "ok" || !strings.Contains(in.ToolResponse.Stdout, "hello-out") {
		t.Fatalf("PostToolUse input %s: %v", data, err)
	}
	if r := sink.result("bad"); r == nil || !r.IsError || len(r.ModelContext) != 1 ||
		!strings.HasPrefix(r.ModelContext[0], "PostToolUseFailure:Bash hook additional context: the command failed: ") || !strings.Contains(r.ModelContext[0], "broken") {
		t.Fatalf("failed call: %+v", r)
	}
	if runs := sink.hookRuns("bad"); len(runs) != 1 || runs[0].Event != "PostToolUseFailure" {
		t.Fatalf("hook runs of the failed call: %+v", runs)
	}
}

// Repeatable calls on a cached session skip the claim; their PreToolUse
// hooks still run, and a hook's ask sends them the claimed way.
func TestUnclaimedCallsRunPreToolUseHooks(t *testing.T) {
	look := &fakeTool{name: "Look", safe: true, repeatable: true}
	h := newHookHarness(t, func(h *hookHarness) string {
		return preToolUse("Look", h.script(t, "look.sh", `case "$(jq -r .tool_input.text)" in
secret) echo "secrets stay hidden" >&2; exit 2 ;;
careful) echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}' ;;
esac
`))
	}, nil, look)
	h.run(t, false, call("warm", "Look", map[string]any{"text": "a"}))
	if h.engine.sessions.get(h.id) == nil {
		t.Fatal("the session is not cached: the test would not take the unclaimed path")
	}
	sink := h.run(t, true, call("s", "Look", map[string]any{"text": "secret"}), call("c", "Look", map[string]any{"text": "careful"}))
	if r := sink.result("s"); r == nil || r.Kind != tool.KindPermissionDenied || !strings.Contains(text(r), "secrets stay hidden") {
		t.Fatalf("denied call: %+v", r)
	}
	if runs := sink.hookRuns("s"); len(runs) != 1 || runs[0].Status != "blocked" {
		t.Fatalf("hook runs: %+v", runs)
	}
	if !sink.asked("c") {
		t.Fatal("the hook's ask did not ask")
	}
	if r := sink.result("c"); r == nil || r.IsError || text(r) != "careful" {
		t.Fatalf("asked call: %+v", r)
	}
}

// A PreToolUse hook that cannot run blocks the call: the gate fails closed.
func TestFailedPreToolUseHookBlocksTheCall(t *testing.T) {
	h := newHookHarness(t, func(h *hookHarness) string {
		return preToolUse("Bash", filepath.Join(h.scripts, "missing.sh"))
	}, nil)
	sink := h.run(t, false, bashCall("a", "touch made"))
	if r := sink.result("a"); r == nil || r.Kind != tool.KindPermissionDenied || !strings.Contains(text(r), "failed") || exists(h.dir, "made") {
		t.Fatalf("result: %+v", r)
	}
	if runs := sink.hookRuns("a"); len(runs) != 1 || runs[0].Status != "failed" {
		t.Fatalf("hook runs: %+v", runs)
	}
}
