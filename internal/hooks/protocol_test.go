package hooks

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestStdinCarriesTheEventFields(t *testing.T) {
	f := newFixture(t)
	dump := f.script("dump.sh", `cat > "`+f.path("stdin.json")+`"`)
	r := f.runner(settings(PreToolUse, "Bash", command(dump)))
	te := f.bash("npm test")
	te.Session.Cwd = filepath.Join(f.workspace, "sub")
	pre(t, r, te)

	var got map[string]any
	if err := json.Unmarshal([]byte(f.read("stdin.json")), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"session_id": "sess-1", "transcript_path": "/tmp/transcript.jsonl", "cwd": te.Session.Cwd,
		"permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_use_id": "toolu_01",
		"tool_input":  map[string]any{"command": "npm test", "description": "run it"},
	}
	for k, v := range want {
		if b1, b2 := jsonOfAny(got[k]), jsonOfAny(v); b1 != b2 {
			t.Errorf("%s = %s, want %s", k, b1, b2)
		}
	}
	for _, k := range []string{"tool_response", "error", "source", "reason", "permission_suggestions"} {
		if _, ok := got[k]; ok {
			t.Errorf("PreToolUse input has %s", k)
		}
	}
}

func jsonOfAny(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestStdinOfEachEvent(t *testing.T) {
	f := newFixture(t)
	dump := f.script("dump.sh", `jq -c . >> "`+f.path("events.jsonl")+`"`)
	h := `[{"hooks":[` + command(dump) + `]}]`
	r := f.runner(`{"hooks":{"PostToolUse":` + h + `,"PostToolUseFailure":` + h + `,"PermissionRequest":` + h +
		`,"SessionStart":` + h + `,"SessionEnd":` + h + `}}`)
	c := ctx(t)

	te := f.bash("ls")
	te.ToolResponse = json.RawMessage(`{"stdout":"a\n","stderr":"","interrupted":false}`)
	te.Duration = 1500_000_000
	if _, err := r.PostToolUse(c, te); err != nil {
		t.Fatal(err)
	}
	te = f.bash("false")
	te.Error, te.IsInterrupt, te.Duration = "Exit code 1", false, 20_000_000
	if _, err := r.PostToolUseFailure(c, te); err != nil {
		t.Fatal(err)
	}
	te = f.bash("rm x")
	te.PermissionSuggestions = []json.RawMessage{json.RawMessage(`{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"rm x"}],"behavior":"allow","destination":"session"}`)}
	if _, err := r.PermissionRequest(c, te); err != nil {
		t.Fatal(err)
	}
	if _, err := r.SessionStart(c, SessionStartEvent{Session: f.session(), Model: "claude-x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.SessionEnd(c, SessionEndEvent{Session: f.session(), Reason: "logout"}); err != nil {
		t.Fatal(err)
	}

	lines := strings.Split(strings.TrimSpace(f.read("events.jsonl")), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d events, want 5:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	checks := []struct {
		event string
		has   map[string]string // field -> JSON value
		lacks []string
	}{
		{"PostToolUse", map[string]string{"tool_response": `{"interrupted":false,"stderr":"","stdout":"a\n"}`, "duration_ms": "1500", "tool_use_id": `"toolu_01"`}, []string{"error"}},
		{"PostToolUseFailure", map[string]string{"error": `"Exit code 1"`, "is_interrupt": "false", "duration_ms": "20"}, []string{"tool_response"}},
		{"PermissionRequest", map[string]string{"tool_name": `"Bash"`, "permission_suggestions": `[{"behavior":"allow","destination":"session","rules":[{"ruleContent":"rm x","toolName":"Bash"}],"type":"addRules"}]`}, []string{"tool_use_id"}},
		{"SessionStart", map[string]string{"source": `"startup"`, "model": `"claude-x"`, "cwd": jsonOfAny(f.workspace)}, []string{"tool_name"}},
		{"SessionEnd", map[string]string{"reason": `"logout"`, "session_id": `"sess-1"`}, []string{"tool_name"}},
	}
	for i, c := range checks {
		var got map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &got); err != nil {
			t.Fatal(err)
		}
		if got["hook_event_name"] != c.event {
			t.Errorf("event %d is %v, want %s", i, got["hook_event_name"], c.event)
			continue
		}
		for k, v := range c.has {
			if g := jsonOfAny(got[k]); g != v {
				t.Errorf("%s: %s = %s, want %s", c.event, k, g, v)
			}
		}
		for _, k := range c.lacks {
			if _, ok := got[k]; ok {
				t.Errorf("%s has %s", c.event, k)
			}
		}
	}
}

func TestEnvironmentAndDirectory(t *testing.T) {
	f := newFixture(t)
	out := f.path("env.txt")
	hook := f.script("env.sh", `{ echo "dir=$CLAUDE_PROJECT_DIR"; echo "pwd=$(pwd)"; echo "otel=${OTEL_EXPORTER_OTLP_ENDPOINT:-unset}"; } > "`+out+`"`)
	r := f.runner(settings(PreToolUse, "", command(hook)))
	pre(t, r, f.bash("ls"))
	got := f.read("env.txt")
	for _, want := range []string{"dir=" + f.workspace + "\n", "pwd=" + f.workspace + "\n", "otel=unset\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("hook saw\n%s\nwant a line %q", got, want)
		}
	}
}

func TestProjectDirInCommand(t *testing.T) {
	f := newFixture(t)
	// The documented way to name a script: relative to the project.
	writeFile(t, filepath.Join(f.workspace, ".claude/hooks/block.sh"), "#!/bin/bash\necho 'project script says no' >&2\nexit 2\n", 0o755)
	r := f.runner(settings(PreToolUse, "Bash", command(`"$CLAUDE_PROJECT_DIR"/.claude/hooks/block.sh`)))
	o := pre(t, r, f.bash("ls"))
	if o.Decision != Deny || o.Reason != "project script says no" {
		t.Fatalf("decision %s %q, want deny by the project script", o.Decision, o.Reason)
	}
}

func TestExitCodes(t *testing.T) {
	cases := []struct {
		name     string
		body     string
		decision Decision
		reason   string
		status   Status
		message  string
	}{
		{"exit 0 silent", `exit 0`, None, "", StatusOK, ""},
		{"exit 0 plain text", `echo "checked, fine"; exit 0`, None, "", StatusOK, "checked, fine"},
		{"exit 0 text that is not an object", `echo '["deny"]'`, None, "", StatusOK, `["deny"]`},
		{"exit 0 broken JSON is text", `echo '{"hookSpecificOutput": '`, None, "", StatusOK, `{"hookSpecificOutput":`},
		{"exit 2 blocks with stderr", `echo "no rm here" >&2; exit 2`, Deny, "no rm here", StatusBlocked, "no rm here"},
		{"exit 2 blocks even when the JSON allows", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'; echo "blocked anyway" >&2; exit 2`, Deny, "blocked anyway", StatusBlocked, "blocked anyway"},
		{"exit 2 with a JSON reason", `echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"json reason"}}'; echo "stderr" >&2; exit 2`, Deny, "json reason", StatusBlocked, "json reason"},
		{"exit 2 with invalid JSON still blocks", `echo '{"continue":"no"}'; echo "bad json, still blocked" >&2; exit 2`, Deny, "bad json, still blocked", StatusBlocked, "bad json, still blocked"},
		{"exit 1 does not block", `echo "first line" >&2; echo "second" >&2; exit 1`, None, "", StatusNonBlocking, "Failed with non-blocking status code 1: first line"},
		{"exit 3 does not block", `exit 3`, None, "", StatusNonBlocking, "Failed with non-blocking status code 3: "},
		{"other exit code with JSON: the JSON decides", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"json deny"}}'; exit 1`, Deny, "json deny", StatusNonBlocking, "json deny"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.runner(settings(PreToolUse, "Bash", command(f.script("h.sh", c.body))))
			o := pre(t, r, f.bash("rm -rf build"))
			if o.Decision != c.decision || o.Reason != c.reason {
				t.Errorf("decision %s %q, want %s %q", o.Decision, o.Reason, c.decision, c.reason)
			}
			if len(o.Reports) != 1 {
				t.Fatalf("%d reports", len(o.Reports))
			}
			if rep := o.Reports[0]; rep.Status != c.status || rep.Message != c.message {
				t.Errorf("report %s %q, want %s %q", rep.Status, rep.Message, c.status, c.message)
			}
		})
	}
}

func TestPreToolUseJSONDecisions(t *testing.T) {
	cases := []struct {
		name     string
		json     string
		decision Decision
		reason   string
	}{
		{"allow", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"safe"}}`, Allow, "safe"},
		{"deny", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"never on Fridays"}}`, Deny, "never on Fridays"},
		{"ask", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check this"}}`, Ask, "check this"},
		{"defer", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}}`, Defer, ""},
		{"deprecated approve", `{"decision":"approve","reason":"old style"}`, Allow, "old style"},
		{"deprecated block", `{"decision":"block","reason":"old style no"}`, Deny, "old style no"},
		{"no decision", `{"suppressOutput":true}`, None, ""},
		{"hookEventName may be left out", `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"x"}}`, Deny, "x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.runner(settings(PreToolUse, "Bash", command(f.script("h.sh", "echo '"+c.json+"'"))))
			o := pre(t, r, f.bash("ls"))
			if o.Decision != c.decision || o.Reason != c.reason {
				t.Errorf("decision %s %q, want %s %q", o.Decision, o.Reason, c.decision, c.reason)
			}
			if len(o.Reports) == 1 && c.decision != None && o.Reports[0].Decision != c.decision.String() {
				t.Errorf("report decision %q", o.Reports[0].Decision)
			}
		})
	}
}

func TestUniversalJSONFields(t *testing.T) {
	f := newFixture(t)
	r := f.runner(settings(PreToolUse, "Bash", command(f.script("h.sh", `jq -n '{
		continue: false, stopReason: "budget exhausted", suppressOutput: true,
		systemMessage: "heads up",
		hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow", additionalContext: "the repo is frozen"}}'`))))
	o := pre(t, r, f.bash("ls"))
	if o.Stop == nil || o.Stop.Reason != "budget exhausted" {
		t.Fatalf("stop = %+v, want the stopReason", o.Stop)
	}
	// continue:false outranks the hook's own allow.
	if o.Decision != Deny || o.Reason != "budget exhausted" {
		t.Errorf("decision %s %q, want deny with the stop reason", o.Decision, o.Reason)
	}
	if len(o.SystemMessages) != 1 || o.SystemMessages[0] != "heads up" {
		t.Errorf("system messages %q", o.SystemMessages)
	}
	if len(o.AdditionalContext) != 1 || o.AdditionalContext[0] != "the repo is frozen" {
		t.Errorf("additional context %q", o.AdditionalContext)
	}
}

func TestUpdatedInput(t *testing.T) {
	f := newFixture(t)
	r := f.runner(settings(PreToolUse, "Bash", command(f.script("h.sh", `jq '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow",
		updatedInput: (.tool_input | .command = "npm test -- --ci")}}'`))))
	o := pre(t, r, f.bash("npm test"))
	if o.Decision != Allow {
		t.Fatalf("decision %s %q", o.Decision, o.Reason)
	}
	var got map[string]any
	if err := json.Unmarshal(o.UpdatedInput, &got); err != nil {
		t.Fatal(err)
	}
	if got["command"] != "npm test -- --ci" || got["description"] != "run it" {
		t.Errorf("updated input %s", o.UpdatedInput)
	}
}

func TestUpdatedInputThatIsNotAnObjectFailsTheHook(t *testing.T) {
	f := newFixture(t)
	hook := command(f.script("h.sh", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":"rm -rf /"}}'`))
	o := pre(t, f.runner(settings(PreToolUse, "Bash", hook)), f.bash("ls"))
	if o.Decision != Deny || o.UpdatedInput != nil || !strings.Contains(o.Reason, "updatedInput must be an object") {
		t.Errorf("decision %s %q input %s, want a fail-closed deny", o.Decision, o.Reason, o.UpdatedInput)
	}
	o = pre(t, f.runner(settings(PreToolUse, "Bash", hook), func(o *Options) { o.FailOpen = true }), f.bash("ls"))
	if o.Decision != None || o.UpdatedInput != nil || o.Reports[0].Status != StatusFailed {
		t.Errorf("fail open: decision %s input %s status %s", o.Decision, o.UpdatedInput, o.Reports[0].Status)
	}
}

func TestUpdatedInputIsPassedOnForRevalidation(t *testing.T) {
	// An object that the Bash schema refuses (no command) is the engine's
	// to refuse: the runner hands it on unchanged.
	f := newFixture(t)
	r := f.runner(settings(PreToolUse, "Bash", command(f.script("h.sh", `echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"cmd":42}}}'`))))
	o := pre(t, r, f.bash("ls"))
	if o.Decision != Allow || string(o.UpdatedInput) != `{"cmd":42}` {
		t.Errorf("decision %s input %s", o.Decision, o.UpdatedInput)
	}
}

func TestSchemaMismatchFailsTheHook(t *testing.T) {
	for name, body := range map[string]string{
		"unknown decision":    `{"hookSpecificOutput":{"permissionDecision":"dney"}}`,
		"wrong type":          `{"continue":"false"}`,
		"wrong event":         `{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"allow"}}`,
		"bad top decision":    `{"decision":"maybe"}`,
		"reason not a string": `{"hookSpecificOutput":{"permissionDecision":"allow","permissionDecisionReason":7}}`,
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			o := pre(t, f.runner(settings(PreToolUse, "", command(f.script("h.sh", "echo '"+body+"'")))), f.bash("ls"))
			if o.Decision != Deny || o.Reports[0].Status != StatusFailed || !strings.Contains(o.Reason, "does not fit the hooks schema") {
				t.Errorf("decision %s %q status %s", o.Decision, o.Reason, o.Reports[0].Status)
			}
		})
	}
}

func TestTextCaps(t *testing.T) {
	f := newFixture(t)
	r := f.runner(settings(PreToolUse, "", command(f.script("h.sh", `jq -n --arg c "$(head -c 25000 /dev/zero | tr '\0' x)" '{hookSpecificOutput: {additionalContext: $c}}'`))))
	o := pre(t, r, f.bash("ls"))
	if len(o.AdditionalContext) != 1 {
		t.Fatalf("context %d", len(o.AdditionalContext))
	}
	c := o.AdditionalContext[0]
	if !strings.HasPrefix(c, strings.Repeat("x", maxTextChars)+"\n") || strings.Count(c, "x") != maxTextChars || !strings.Contains(c, "15000 more characters") {
		t.Errorf("capped context: %d characters, ends %q", len(c), c[len(c)-60:])
	}
}
