package exec

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// fakeClassifier answers by the Bash command's first word and counts what
// it was asked.
type fakeClassifier struct {
	mu       sync.Mutex
	asked    []string
	answered []string
}

func (f *fakeClassifier) Answered(_ context.Context, c *Call, allowed bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answered = append(f.answered, c.ToolUseID+map[bool]string{true: " allowed", false: " denied"}[allowed])
}

func (f *fakeClassifier) Classify(_ context.Context, c *Call, asked policy.Decision) policy.Decision {
	cmd, _ := c.Args["command"].(string)
	f.mu.Lock()
	f.asked = append(f.asked, cmd)
	f.mu.Unlock()
	switch strings.Fields(cmd)[0] {
	case "touch", "curl", "git", "echo":
		return policy.Decision{Behavior: policy.Allow, Reason: "fine", Source: "classifier"}
	case "mkdir":
		return ClassifierDenial(asked, "no dirs")
	}
	return asked
}

func (f *fakeClassifier) commands() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.asked...)
}

// In auto mode the classifier answers only what would otherwise ask a
// person: deny rules, ask rules and hooks come first, and it never sees
// what they decided.
func TestAutoModeOrder(t *testing.T) {
	h := newHookHarness(t, func(h *hookHarness) string {
		return preToolUse("Bash", h.script(t, "ask.sh", `grep -q hookask && echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}'; exit 0
`))
	}, func(s *store.Session) {
		s.Mode = "auto"
		s.Deny = []string{"Bash(curl *)"}
		s.Ask = []string{"Bash(git push *)"}
	})
	fc := &fakeClassifier{}
	h.engine.cfg.Ask.Classifier = fc
	// The call path is built with the engine: build it again with the classifier.
	h.engine.callPath = newCallPath(&h.engine.cfg, h.engine.schemas, h.engine.caps, h.engine.delegated)
	sink := h.run(t, false,
		bashCall("rule-deny", "curl https://example.com"),
		bashCall("rule-ask", "git push origin main"),
		bashCall("hook-ask", "echo hookask"),
		bashCall("classifier-allow", "touch made"),
		bashCall("classifier-deny", "mkdir d"),
		bashCall("read-only", "ls"))
	if got := fc.commands(); len(got) != 2 || got[0] != "touch made" || got[1] != "mkdir d" {
		t.Fatalf("the classifier was asked about %q", got)
	}
	if r := sink.result("rule-deny"); r == nil || r.Kind != tool.KindPermissionDenied || sink.asked("rule-deny") {
		t.Fatalf("rule-deny: %+v", r)
	}
	for _, id := range []string{"rule-ask", "hook-ask"} {
		if !sink.asked(id) {
			t.Fatalf("%s did not go to a person", id)
		}
	}
	// The person's answers reach the classifier's history of the session.
	fc.mu.Lock()
	answered := strings.Join(fc.answered, ",")
	fc.mu.Unlock()
	if answered != "rule-ask denied,hook-ask denied" && answered != "hook-ask denied,rule-ask denied" {
		t.Fatalf("answers told: %q", answered)
	}
	if r := sink.result("classifier-allow"); r == nil || r.IsError || !exists(h.dir, "made") || sink.asked("classifier-allow") {
		t.Fatalf("classifier-allow: %s", text(r))
	}
	if r := sink.result("classifier-deny"); r == nil || r.Kind != tool.KindPermissionDenied || text(r) != "Permission for this action was denied by the Claude Code auto mode classifier. Reason: no dirs" || exists(h.dir, "d") {
		t.Fatalf("classifier-deny: %s", text(r))
	}
	for _, id := range []string{"classifier-allow", "classifier-deny"} {
		var decided bool
		for _, ev := range sink.of(id) {
			if ev.Decision != nil {
				decided = ev.Decision.Source == "classifier"
			}
		}
		if !decided {
			t.Fatalf("%s: no classifier decision on the stream", id)
		}
	}
}

// Outside auto mode the classifier is never asked.
func TestClassifierOnlyInAutoMode(t *testing.T) {
	h := newHookHarness(t, func(*hookHarness) string { return `{}` }, func(s *store.Session) { s.Mode = "default" })
	fc := &fakeClassifier{}
	h.engine.cfg.Ask.Classifier = fc
	// The call path is built with the engine: build it again with the classifier.
	h.engine.callPath = newCallPath(&h.engine.cfg, h.engine.schemas, h.engine.caps, h.engine.delegated)
	sink := h.run(t, false, bashCall("a", "touch made"))
	if len(fc.commands()) != 0 || !sink.asked("a") || exists(h.dir, "made") {
		t.Fatalf("default mode consulted the classifier: %q", fc.commands())
	}
}

// A call the classifier denied fires the PermissionDenied hooks, with the
// classifier's reason; a hook's "retry": true tells the model, next to the
// refusal, that it may try again. Denials by a rule or a person fire none.
func TestPermissionDeniedHookAfterClassifierDenial(t *testing.T) {
	var log string
	h := newHookHarness(t, func(h *hookHarness) string {
		log = filepath.Join(h.scripts, "denied.jsonl")
		return settingsOf("PermissionDenied", "Bash", h.script(t, "denied.sh", `in=$(cat)
printf '%s\n' "$in" >> `+log+`
case "$(jq -r .tool_input.command <<<"$in")" in
*retry*) echo '{"hookSpecificOutput": {"hookEventName": "PermissionDenied", "retry": true}, "systemMessage": "retried"}' ;;
esac
`))
	}, func(s *store.Session) {
		s.Mode = "auto"
		s.Deny = []string{"Bash(curl *)"}
	})
	fc := &fakeClassifier{}
	h.engine.cfg.Ask.Classifier = fc
	h.engine.callPath = newCallPath(&h.engine.cfg, h.engine.schemas, h.engine.caps, h.engine.delegated)
	sink := h.run(t, false,
		bashCall("no-retry", "mkdir d"),
		bashCall("retry", "mkdir retry"),
		bashCall("rule-deny", "curl https://example.com"),
		bashCall("person-deny", "rm -f x"))
	raw, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 2 {
		t.Fatalf("PermissionDenied fired %d times, want 2 (the classifier's denials only):\n%s", len(lines), raw)
	}
	byID := map[string]map[string]any{}
	for _, l := range lines {
		var in map[string]any
		if err := json.Unmarshal([]byte(l), &in); err != nil {
			t.Fatalf("hook input %q: %v", l, err)
		}
		id, _ := in["tool_use_id"].(string)
		byID[id] = in
	}
	in := byID["no-retry"]
	if in == nil || in["hook_event_name"] != "PermissionDenied" || in["tool_name"] != "Bash" || in["reason"] != "no dirs" ||
		in["permission_mode"] != "auto" || in["session_id"] != "s1" || in["cwd"] != h.dir {
		t.Fatalf("hook input %v", in)
	}
	if ti, _ := in["tool_input"].(map[string]any); ti["command"] != "mkdir d" {
		t.Fatalf("tool_input %v", in["tool_input"])
	}
	if byID["retry"] == nil {
		t.Fatalf("no hook input for the second denial: %v", byID)
	}
	want := "Permission for this action was denied by the Claude Code auto mode classifier. Reason: no dirs"
	r := sink.result("no-retry")
	if r == nil || r.Kind != tool.KindPermissionDenied || text(r) != want || len(r.ModelContext) != 0 {
		t.Fatalf("no-retry: %+v", r)
	}
	r = sink.result("retry")
	if r == nil || r.Kind != tool.KindPermissionDenied || text(r) != want ||
		len(r.ModelContext) != 1 || r.ModelContext[0] != "The PermissionDenied hook indicated you may retry this tool call." {
		t.Fatalf("retry: %+v", r)
	}
	if m, _ := r.Meta["hook_system_messages"].([]string); len(m) != 1 || m[0] != "retried" {
		t.Fatalf("retry's meta %v", r.Meta)
	}
	if exists(h.dir, "d") || exists(h.dir, "retry") {
		t.Fatal("a denied call ran")
	}
	// The hook's run is on the denied call's stream, with its decision.
	var reported string
	for _, ev := range sink.of("retry") {
		if ev.Hook != nil && ev.Hook.Event == "PermissionDenied" {
			reported = ev.Hook.Decision
		}
	}
	if reported != "retry" {
		t.Fatalf("the hook run on the stream: decision %q", reported)
	}
	for _, id := range []string{"rule-deny", "person-deny"} {
		if r := sink.result(id); r == nil || r.Kind != tool.KindPermissionDenied || len(r.ModelContext) != 0 {
			t.Fatalf("%s: %+v", id, r)
		}
	}
}
