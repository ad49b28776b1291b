package hooks

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestWorktreeCreate: the hooks get Claude Code's input (no
// permission_mode), run in the workspace, ignore a matcher, and the path
// is the last line of the first hook that exited 0; the hooks that failed
// are quoted by their stderr.
func TestWorktreeCreate(t *testing.T) {
	f := newFixture(t)
	in := f.path("in.json")
	r := f.runner(`{"hooks":{"WorktreeCreate":[{"matcher":"never-matches","hooks":[` +
		command(f.script("fail.sh", `cat >/dev/null; echo 'printed'; echo 'cannot make it' >&2; exit 1`)) + `,` +
		command(f.script("quiet.sh", `cat >/dev/null; exit 3`)) + `,` +
		command(f.script("make.sh", `cat > "`+in+`"; echo >> "`+in+`"; pwd >> "`+in+`"; echo "made it"; echo "  $CLAUDE_PROJECT_DIR/wt/$(jq -r .name < "`+in+`")  "; echo`)) +
		`]}]}}`)
	s := f.session()
	s.Cwd = f.workspace + "/sub"
	o, err := r.WorktreeCreate(ctx(t), WorktreeCreateEvent{Session: s, Name: "feat"})
	if err != nil {
		t.Fatal(err)
	}
	if !o.Ran || o.Path != f.workspace+"/wt/feat" {
		t.Fatalf("outcome %+v", o)
	}
	if strings.Join(o.Failures, "|") != f.path("fail.sh")+": cannot make it|"+f.path("quiet.sh")+": no output" {
		t.Errorf("failures %q", o.Failures)
	}
	if len(o.Reports) != 3 || o.Reports[0].Status != StatusNonBlocking || o.Reports[2].Status != StatusOK || o.Reports[2].Event != WorktreeCreate {
		t.Errorf("reports %+v", o.Reports)
	}
	raw, pwd, _ := strings.Cut(f.read("in.json"), "\n")
	var got map[string]any
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"session_id": "sess-1", "transcript_path": "/tmp/transcript.jsonl", "cwd": f.workspace + "/sub", "hook_event_name": "WorktreeCreate", "name": "feat"}
	if len(got) != len(want) {
		t.Errorf("input %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("input %s = %v, want %v", k, got[k], v)
		}
	}
	if strings.TrimSpace(pwd) != f.workspace {
		t.Errorf("the hook ran in %q, want the workspace", pwd)
	}
}

func TestWorktreeCreateWithoutAnswer(t *testing.T) {
	f := newFixture(t)
	r := f.runner(settings(WorktreeCreate, "", command(`cat >/dev/null; echo "  "`)))
	o, err := r.WorktreeCreate(ctx(t), WorktreeCreateEvent{Session: f.session(), Name: "x"})
	if err != nil || !o.Ran || o.Path != "" || len(o.Failures) != 0 {
		t.Fatalf("outcome %+v, %v", o, err)
	}
	// No hook configured: nothing ran, and the caller makes the worktree.
	r = f.runner(settings(WorktreeRemove, "", command(`true`)))
	if o, err := r.WorktreeCreate(ctx(t), WorktreeCreateEvent{Session: f.session(), Name: "x"}); err != nil || o.Ran {
		t.Fatalf("without WorktreeCreate hooks: %+v, %v", o, err)
	}
	r = f.runner(`{"disableAllHooks":true,` + settings(WorktreeCreate, "", command(`echo /x`))[1:])
	if o, err := r.WorktreeCreate(ctx(t), WorktreeCreateEvent{Session: f.session(), Name: "x"}); err != nil || o.Ran {
		t.Fatalf("with disableAllHooks: %+v, %v", o, err)
	}
}

func TestWorktreeRemove(t *testing.T) {
	f := newFixture(t)
	in := f.path("rm.json")
	r := f.runner(settings(WorktreeRemove, "", command(f.script("rm.sh", `cat > "`+in+`"`)), command(f.script("bad.sh", `cat >/dev/null; echo nope >&2; exit 2`))))
	s := f.session()
	s.Cwd = f.workspace + "/wt/feat"
	o, err := r.WorktreeRemove(ctx(t), WorktreeRemoveEvent{Session: s, Path: f.workspace + "/wt/feat"})
	if err != nil || !o.Ran || strings.Join(o.Failures, "|") != f.path("bad.sh")+": nope" {
		t.Fatalf("outcome %+v, %v", o, err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(f.read("rm.json")), &got); err != nil {
		t.Fatal(err)
	}
	if got["hook_event_name"] != "WorktreeRemove" || got["worktree_path"] != f.workspace+"/wt/feat" || got["cwd"] != f.workspace+"/wt/feat" || got["name"] != nil || got["permission_mode"] != nil {
		t.Errorf("input %v", got)
	}
}

// TestWorktreeHookSettings: what toold cannot run on these events is
// refused when the settings are read, not found out at EnterWorktree.
func TestWorktreeHookSettings(t *testing.T) {
	for _, tc := range []struct{ settings, want string }{
		{`{"hooks":{"WorktreeCreate":[{"hooks":[{"type":"grpc","endpoint":"127.0.0.1:1"}]}]}}`, `must be "command" hooks`},
		{`{"hooks":{"WorktreeRemove":[{"hooks":[{"type":"grpc","endpoint":"127.0.0.1:1"}]}]}}`, `must be "command" hooks`},
		{`{"hooks":{"WorktreeCreate":[{"hooks":[{"type":"command","command":"x","async":true}]}]}}`, `cannot be async`},
	} {
		_, err := ParseSettings([]byte(tc.settings), "s")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.settings, err, tc.want)
		}
	}
	// A matcher that is no valid expression is ignored, as any matcher
	// on these events is.
	cfg, err := ParseSettings([]byte(`{"hooks":{"WorktreeRemove":[{"matcher":"(","hooks":[{"type":"command","command":"x","async":true}]}]}}`), "s")
	if err != nil || len(cfg.Groups[WorktreeRemove]) != 1 || len(cfg.Inert) != 0 {
		t.Fatalf("cfg %+v, %v", cfg, err)
	}
}

// TestProjectDir: while the session works in a worktree (Workspace), its
// hooks still run in, and are told, the session's workspace (ProjectDir).
func TestProjectDir(t *testing.T) {
	f := newFixture(t)
	out := f.path("where.txt")
	r := f.runner(settings(PostToolUse, "", command(`cat >/dev/null; echo "$PWD $CLAUDE_PROJECT_DIR" > "`+out+`"`)))
	te := f.bash("true")
	te.Session.Workspace, te.Session.ProjectDir = f.workspace+"/.claude/worktrees/x", f.workspace
	writeFile(t, te.Session.Workspace+"/keep", "", 0o644)
	if _, err := r.PostToolUse(ctx(t), te); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(f.read("where.txt")); got != f.workspace+" "+f.workspace {
		t.Errorf("hook ran in / was told %q, want the workspace", got)
	}
}
