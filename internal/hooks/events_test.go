package hooks

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

func TestPostToolUse(t *testing.T) {
	f := newFixture(t)
	r := f.runner(`{"hooks":{"PostToolUse":[{"matcher":"Bash","hooks":[` +
		command(f.script("a.sh", `jq -n '{decision: "block", reason: "tests are red", systemMessage: "lint ran",
			hookSpecificOutput: {hookEventName: "PostToolUse", additionalContext: "3 warnings",
			updatedToolOutput: {stdout: "redacted", stderr: "", interrupted: false, isImage: false}}}'`)) + `,` +
		command(f.script("b.sh", `echo "formatter failed" >&2; exit 2`)) + `,` +
		command(f.script("c.sh", `echo '{"hookSpecificOutput":{"updatedToolOutput":{"stdout":"second"}}}'`)) +
		`]}]}}`)
	te := f.bash("go test")
	te.ToolResponse = json.RawMessage(`{"stdout":"secret","stderr":"","interrupted":false,"isImage":false}`)
	o, err := r.PostToolUse(ctx(t), te)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.Feedback, "|") != "tests are red|formatter failed" {
		t.Errorf("feedback %q", o.Feedback)
	}
	if strings.Join(o.AdditionalContext, "|") != "3 warnings" || strings.Join(o.SystemMessages, "|") != "lint ran" {
		t.Errorf("context %q messages %q", o.AdditionalContext, o.SystemMessages)
	}
	if !strings.Contains(string(o.UpdatedToolOutput), `"redacted"`) {
		t.Errorf("updated output %s, want the first hook's", o.UpdatedToolOutput)
	}
	if o.Reports[0].Decision != "block" || o.Reports[1].Decision != "block" || o.Reports[1].Status != StatusBlocked {
		t.Errorf("reports %+v", o.Reports)
	}
}

func TestPostToolUseFailure(t *testing.T) {
	f := newFixture(t)
	r := f.runner(settings(PostToolUseFailure, "Bash",
		command(f.script("a.sh", `echo '{"decision":"block","reason":"ignored here","hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"retry with -v"}}'`)),
		command(f.script("b.sh", `jq -r .error >&2; exit 2`))))
	te := f.bash("make")
	te.Error = "Exit code 2\nmake: *** no rule"
	o, err := r.PostToolUseFailure(ctx(t), te)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.AdditionalContext, "|") != "retry with -v" {
		t.Errorf("context %q", o.AdditionalContext)
	}
	if strings.Join(o.Feedback, "|") != te.Error {
		t.Errorf("feedback %q, want only the exit 2 stderr", o.Feedback)
	}
}

func TestPermissionRequest(t *testing.T) {
	allow := `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"npm test"},"updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm test"}],"behavior":"allow","destination":"session"}]}}}'`
	deny := `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not on main","interrupt":true}}}'`
	t.Run("allow", func(t *testing.T) {
		f := newFixture(t)
		o, err := f.runner(settings(PermissionRequest, "Bash", command(f.script("a.sh", allow)))).PermissionRequest(ctx(t), f.bash("npm t"))
		if err != nil {
			t.Fatal(err)
		}
		if o.Decision != Allow || string(o.UpdatedInput) != `{"command":"npm test"}` || len(o.UpdatedPermissions) != 1 {
			t.Errorf("decision %s input %s permissions %s", o.Decision, o.UpdatedInput, o.UpdatedPermissions)
		}
	})
	t.Run("deny beats allow", func(t *testing.T) {
		f := newFixture(t)
		o, err := f.runner(settings(PermissionRequest, "Bash", command(f.script("a.sh", allow)), command(f.script("b.sh", deny)))).PermissionRequest(ctx(t), f.bash("npm t"))
		if err != nil {
			t.Fatal(err)
		}
		if o.Decision != Deny || o.Message != "not on main" || !o.Interrupt || o.UpdatedInput != nil {
			t.Errorf("outcome %+v", o)
		}
	})
	t.Run("exit 2 is not honoured", func(t *testing.T) {
		f := newFixture(t)
		o, err := f.runner(settings(PermissionRequest, "Bash", command(f.script("a.sh", `echo nope >&2; exit 2`)))).PermissionRequest(ctx(t), f.bash("npm t"))
		if err != nil {
			t.Fatal(err)
		}
		if o.Decision != None || o.Reports[0].Status != StatusBlocked {
			t.Errorf("decision %s status %s", o.Decision, o.Reports[0].Status)
		}
	})
	t.Run("a failed hook leaves the question open", func(t *testing.T) {
		f := newFixture(t)
		o, err := f.runner(settings(PermissionRequest, "Bash", command(`kill -9 $$`))).PermissionRequest(ctx(t), f.bash("npm t"))
		if err != nil {
			t.Fatal(err)
		}
		if o.Decision != None {
			t.Errorf("decision %s", o.Decision)
		}
	})
}

func TestSessionEvents(t *testing.T) {
	f := newFixture(t)
	r := f.runner(`{"hooks":{
		"SessionStart":[
			{"matcher":"startup","hooks":[` + command(`echo "branch: main"`) + `,` + command(`echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"from json"}}'`) + `]},
			{"matcher":"resume","hooks":[` + command(`echo resumed`) + `]}],
		"SessionEnd":[{"matcher":"logout|other","hooks":[` + command(`jq -r .reason > "`+f.path("end.txt")+`"`) + `]}]}}`)
	o, err := r.SessionStart(ctx(t), SessionStartEvent{Session: f.session()})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.AdditionalContext, "|") != "branch: main|from json" {
		t.Errorf("context %q", o.AdditionalContext)
	}
	if _, err := r.SessionEnd(ctx(t), SessionEndEvent{Session: f.session()}); err != nil {
		t.Fatal(err)
	}
	if got := f.read("end.txt"); got != "other\n" {
		t.Errorf("SessionEnd reason %q", got)
	}
	r.Forget("sess-1")
}

func TestMatchersSelectHooks(t *testing.T) {
	f := newFixture(t)
	log := f.path("ran.txt")
	mark := func(name string) string { return command(`echo ` + name + ` >> "` + log + `"`) }
	group := func(m, name string) string { return `{"matcher":"` + m + `","hooks":[` + mark(name) + `]}` }
	r := f.runner(`{"hooks":{"PreToolUse":[` + strings.Join([]string{
		group("Bash", "exact"),
		group("Edit|Write", "alternatives"),
		group("Notebook.*", "regex"),
		group("*", "star"),
		group("", "empty"),
		group("mcp__memory__.*", "mcp"),
		group("mcp__memory", "mcp-exact"),
		group("^Edit$", "anchored"),
	}, ",") + `]}}`)
	run := func(tool string) []string {
		t.Helper()
		writeFile(t, log, "", 0o644)
		pre(t, r, ToolEvent{Session: f.session(), ToolName: tool, ToolInput: json.RawMessage(`{}`)})
		return strings.Fields(f.read("ran.txt"))
	}
	cases := map[string]string{
		"Bash":                     "empty exact star",
		"Write":                    "alternatives empty star",
		"Edit":                     "alternatives anchored empty star",
		"NotebookEdit":             "empty regex star",
		"mcp__memory__create_node": "empty mcp star",
		"Read":                     "empty star",
	}
	for tool, want := range cases {
		got := run(tool)
		sort.Strings(got)
		if strings.Join(got, " ") != want {
			t.Errorf("%s ran %q, want %q", tool, got, want)
		}
	}
}

func TestIfFilter(t *testing.T) {
	f := newFixture(t)
	log := f.path("ran.txt")
	r := f.runner(settings(PreToolUse, "Bash|Edit",
		command(`echo git >> "`+log+`"`, `,"if":"Bash(git *)"`),
		command(`echo ts >> "`+log+`"`, `,"if":"Edit(*.ts)"`)))
	cases := []struct {
		te   ToolEvent
		want string
	}{
		{f.bash("git push"), "git"},
		{f.bash("ls"), ""},
		{f.bash("ls && git status"), "git"},
		{f.bash("FOO=1 git log"), "git"},
		{f.bash("echo $(git rev-parse HEAD)"), "git"},
		{ToolEvent{Session: f.session(), ToolName: "Edit", ToolInput: json.RawMessage(`{"file_path":"` + filepath.Join(f.workspace, "src/a.ts") + `"}`)}, "ts"},
		{ToolEvent{Session: f.session(), ToolName: "Edit", ToolInput: json.RawMessage(`{"file_path":"` + filepath.Join(f.workspace, "src/a.go") + `"}`)}, ""},
	}
	for _, c := range cases {
		writeFile(t, log, "", 0o644)
		pre(t, r, c.te)
		if got := strings.TrimSpace(f.read("ran.txt")); got != c.want {
			t.Errorf("%s %s ran %q, want %q", c.te.ToolName, c.te.ToolInput, got, c.want)
		}
	}
}

func TestIdenticalHandlersRunOnce(t *testing.T) {
	f := newFixture(t)
	hook := command(`echo x >> "` + f.path("ran.txt") + `"`)
	r := f.runner(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[` + hook + `]},{"matcher":"*","hooks":[` + hook + `]}]}}`)
	o := pre(t, r, f.bash("ls"))
	if got := f.read("ran.txt"); got != "x\n" || len(o.Reports) != 1 {
		t.Errorf("ran %q with %d reports, want once", got, len(o.Reports))
	}
}

func TestOnceAndAsync(t *testing.T) {
	f := newFixture(t)
	var mu sync.Mutex
	var async []Report
	done := make(chan struct{}, 4)
	r := f.runner(settings(PreToolUse, "Bash",
		command(`echo x >> "`+f.path("once.txt")+`"`, `,"once":true`),
		command(`echo '{"hookSpecificOutput":{"permissionDecision":"deny"}}'`, `,"async":true`)),
		func(o *Options) {
			o.OnAsync = func(r Report) {
				mu.Lock()
				async = append(async, r)
				mu.Unlock()
				done <- struct{}{}
			}
		})
	for range 2 {
		if o := pre(t, r, f.bash("ls")); o.Decision != None {
			t.Errorf("decision %s: an async hook cannot decide", o.Decision)
		}
	}
	<-done
	<-done
	if got := f.read("once.txt"); got != "x\n" {
		t.Errorf("once hook ran %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(async) != 2 || async[0].Status != StatusOK {
		t.Errorf("async reports %+v", async)
	}
}

func TestWorkspaceSettings(t *testing.T) {
	f := newFixture(t)
	writeFile(t, filepath.Join(f.workspace, ".claude/settings.json"), settings(PreToolUse, "Bash", command(`echo "repo says no" >&2; exit 2`)), 0o644)
	writeFile(t, filepath.Join(f.workspace, ".claude/settings.local.json"), settings(PreToolUse, "Bash", command(`echo "local note"`)), 0o644)
	operator := settings(PreToolUse, "Bash", command(`echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`))

	if o := pre(t, f.runner(operator), f.bash("ls")); o.Decision != Allow || len(o.Reports) != 1 {
		t.Errorf("workspace files are read by default: %s, %d reports", o.Decision, len(o.Reports))
	}
	on := func(o *Options) { o.ReadWorkspaceSettings = true }
	if o := pre(t, f.runner(operator, on), f.bash("ls")); o.Decision != Deny || o.Reason != "repo says no" || len(o.Reports) != 3 {
		t.Errorf("with workspace files: %s %q, %d reports", o.Decision, o.Reason, len(o.Reports))
	}
	managed := `{"allowManagedHooksOnly":true,` + operator[1:]
	if o := pre(t, f.runner(managed, on), f.bash("ls")); o.Decision != Allow || len(o.Reports) != 1 {
		t.Errorf("allowManagedHooksOnly: %s, %d reports", o.Decision, len(o.Reports))
	}
	writeFile(t, filepath.Join(f.workspace, ".claude/settings.json"), `{"disableAllHooks":true}`, 0o644)
	writeFile(t, filepath.Join(f.workspace, ".claude/settings.local.json"), `{}`, 0o644)
	if o := pre(t, f.runner(operator, on), f.bash("ls")); o.Decision != Allow || len(o.Reports) != 1 {
		t.Errorf("a workspace cannot disable the operator's hooks: %s, %d reports", o.Decision, len(o.Reports))
	}
	if o := pre(t, f.runner(`{"disableAllHooks":true,`+operator[1:]), f.bash("ls")); len(o.Reports) != 0 {
		t.Errorf("the operator's disableAllHooks: %d reports", len(o.Reports))
	}
}

func TestBadWorkspaceSettingsAreAnError(t *testing.T) {
	f := newFixture(t)
	writeFile(t, filepath.Join(f.workspace, ".claude/settings.json"), `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command"}]}]}}`, 0o644)
	r := f.runner(`{}`, func(o *Options) { o.ReadWorkspaceSettings = true })
	_, err := r.PreToolUse(ctx(t), f.bash("ls"))
	if err == nil || !strings.Contains(err.Error(), "hooks.PreToolUse[0].hooks[0].command") {
		t.Errorf("err = %v", err)
	}
}
