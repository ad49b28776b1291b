package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/store/redistest"
)

func createSessionMode(t *testing.T, ctx context.Context, addr, mode string) string {
	t.Helper()
	out, err := sh(t, ctx, `grpcurl -plaintext -d '{"mode": "`+mode+`"}' `+addr+` toold.v1.SessionService/CreateSession | sed -n 's/^ *"id": "\([a-z2-7]*\)".*/\1/p'`)
	if err != nil || len(strings.TrimSpace(out)) != 26 {
		t.Fatalf("CreateSession: %v %q", err, out)
	}
	return strings.TrimSpace(out)
}

// A subagent's round trip over two replicas on one Redis: the parent's
// Agent call waits on one, the orchestrator runs the subagent's Bash in
// the child session through the other and completes the parent's call
// there; the result reaches the parent's stream exactly once, a second
// CompleteCall is refused, and a retry replays the result.
func TestDelegationSubagentTwoReplicas(t *testing.T) {
	url := "redis://" + redistest.Start(t) + "/0?max_retries=0"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := startToold(t, "--redis-url", url, "--delegated-tools")
	b := startToold(t, "--redis-url", url, "--delegated-tools")
	sid := createSessionMode(t, ctx, a.addr, "PERMISSION_MODE_ACCEPT_EDITS")
	execOut := t.TempDir() + "/exec.out"
	call := `{"session_id": "` + sid + `", "calls": [{"tool_use_id": "toolu_ag1", "name": "Agent", "input": {"description": "Count files", "prompt": "Count the files", "subagent_type": "Explore", "run_in_background": false}}]}`
	out, err := sh(t, ctx, `
grpcurl -plaintext -d '`+call+`' `+a.addr+` toold.v1.ToolService/Execute > `+execOut+` 2>&1 &
for i in $(seq 300); do grep -q '"childSessionId"' `+execOut+` && break; sleep 0.1; done
CHILD=$(sed -n 's/^ *"childSessionId": "\([a-z2-7]*\)".*/\1/p' `+execOut+`)
echo "child=$CHILD"
grpcurl -plaintext -d '{"session_id": "'"$CHILD"'", "calls": [{"tool_use_id": "toolu_sub1", "name": "Bash", "input": {"command": "echo from-the-subagent > sub.txt && cat sub.txt"}}]}' \
  `+b.addr+` toold.v1.ToolService/Execute
grpcurl -plaintext -d '{"session_id": "'"$CHILD"'"}' `+b.addr+` toold.v1.SessionService/GetSession
grpcurl -plaintext -d '{"session_id": "`+sid+`", "tool_use_id": "toolu_ag1", "text": "There is one file.", "usage": {"tokens": 120, "tool_uses": 1, "duration_ms": 900}}' \
  `+b.addr+` toold.v1.ToolService/CompleteCall
wait
echo "=== parent stream"
cat `+execOut+`
echo "=== second"
grpcurl -plaintext -d '{"session_id": "`+sid+`", "tool_use_id": "toolu_ag1", "text": "again"}' `+a.addr+` toold.v1.ToolService/CompleteCall 2>&1 || true`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mustContain(t, out, "from-the-subagent", `"delegatedCall"`, `"toolName": "Agent"`, "[Subagent hand-back]", `  There is one file.\nagentId: `, "subagent_tokens: 120",
		"=== second", "FailedPrecondition", "the call has its result already")
	parent := out[strings.Index(out, "=== parent stream"):strings.Index(out, "=== second")]
	if n := strings.Count(parent, `"result": {`); n != 1 {
		t.Fatalf("the parent stream carries %d results, want 1:\n%s", n, parent)
	}
	var child string
	for _, line := range strings.Split(out, "\n") {
		if c, ok := strings.CutPrefix(line, "child="); ok {
			child = c
		}
	}
	if len(child) != 26 || !strings.Contains(parent, "agentId: "+child) {
		t.Fatalf("child %q not named in the result:\n%s", child, parent)
	}
	// The subagent worked in the parent's workspace, from its own session.
	out, _ = sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "toolu_r1", "name": "Bash", "input": {"command": "cat sub.txt"}}, {"tool_use_id": "toolu_l1", "name": "ListAgents", "input": {}}]}' `+b.addr+` toold.v1.ToolService/Execute 2>&1`)
	mustContain(t, out, "from-the-subagent", child+` — Explore: Count files`)
	// A retry of the parent's call replays its one result.
	out, _ = sh(t, ctx, `grpcurl -plaintext -d '`+call+`' `+b.addr+` toold.v1.ToolService/Execute 2>&1`)
	mustContain(t, out, `"replayed": true`, "There is one file.")
}

// AskUserQuestion's answers and ExitPlanMode's approval come back through
// CompleteCall; the approval switches the session's mode.
func TestDelegationQuestionAndPlan(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d := startToold(t, "--delegated-tools")
	sid := createSessionMode(t, ctx, d.addr, "PERMISSION_MODE_PLAN")
	f := t.TempDir() + "/exec.out"
	q := `{"session_id": "` + sid + `", "calls": [{"tool_use_id": "toolu_q1", "name": "AskUserQuestion", "input": {"questions": [{"question": "Which color?", "header": "Color", "multiSelect": false, "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]}]}}]}`
	p := `{"session_id": "` + sid + `", "calls": [{"tool_use_id": "toolu_p1", "name": "ExitPlanMode", "input": {}}]}`
	out, err := sh(t, ctx, `
grpcurl -plaintext -d '`+q+`' `+d.addr+` toold.v1.ToolService/Execute > `+f+` 2>&1 &
for i in $(seq 300); do grep -q '"delegatedCall"' `+f+` && break; sleep 0.1; done
grpcurl -plaintext -d '{"session_id": "`+sid+`", "tool_use_id": "toolu_q1", "answers": {"Which color?": "Blue"}, "notes": {"Which color?": "darker please"}}' `+d.addr+` toold.v1.ToolService/CompleteCall
wait; cat `+f+`
grpcurl -plaintext -d '`+p+`' `+d.addr+` toold.v1.ToolService/Execute > `+f+` 2>&1 &
for i in $(seq 300); do grep -q '"delegatedCall"' `+f+` && break; sleep 0.1; done
grpcurl -plaintext -d '{"session_id": "`+sid+`", "tool_use_id": "toolu_p1", "approved": true, "mode": "PERMISSION_MODE_ACCEPT_EDITS"}' `+d.addr+` toold.v1.ToolService/CompleteCall
wait; cat `+f+`
grpcurl -plaintext -d '{"session_id": "`+sid+`"}' `+d.addr+` toold.v1.SessionService/GetSession`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mustContain(t, out, `The user answered: \"Which color?\"=\"Blue\" notes: darker please. Read the answers carefully`,
		"User has approved exiting plan mode. You can now proceed.", `"mode": "PERMISSION_MODE_ACCEPT_EDITS"`)
	// Plan mode is not a way out of plan mode.
	out, _ = sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "tool_use_id": "toolu_p1", "approved": true, "mode": "PERMISSION_MODE_PLAN"}' `+d.addr+` toold.v1.ToolService/CompleteCall 2>&1`)
	mustContain(t, out, "InvalidArgument")
}

// A delegated call nobody completes ends with a timeout; one whose client
// went away ends cancelled, as a permission ask does, and a late
// CompleteCall is told the call has its result; the mode stays.
func TestDelegationTimeoutAndClientGone(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d := startToold(t, "--delegated-tools", "--delegate-timeout", "1s")
	sid := createSessionMode(t, ctx, d.addr, "PERMISSION_MODE_PLAN")
	out, _ := sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "toolu_t1", "name": "ExitPlanMode", "input": {}}]}' `+d.addr+` toold.v1.ToolService/Execute 2>&1`)
	mustContain(t, out, `"delegatedCall"`, "ERROR_KIND_TIMEOUT", "ExitPlanMode was not completed: the orchestrator gave no result within 1s.")

	d = startToold(t, "--delegated-tools")
	sid = createSessionMode(t, ctx, d.addr, "PERMISSION_MODE_PLAN")
	out, _ = sh(t, ctx, `
grpcurl -plaintext -max-time 2 -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "toolu_g1", "name": "ExitPlanMode", "input": {}}]}' `+d.addr+` toold.v1.ToolService/Execute 2>&1 || true
sleep 0.5
grpcurl -plaintext -d '{"session_id": "`+sid+`", "tool_use_id": "toolu_g1", "approved": true}' `+d.addr+` toold.v1.ToolService/CompleteCall 2>&1 || true
grpcurl -plaintext -d '{"session_id": "`+sid+`"}' `+d.addr+` toold.v1.SessionService/GetSession 2>&1
true`)
	mustContain(t, out, `"delegatedCall"`, "FailedPrecondition", "the call has its result already", `"mode": "PERMISSION_MODE_PLAN"`)
	out, _ = sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "tool_use_id": "toolu_none", "approved": true}' `+d.addr+` toold.v1.ToolService/CompleteCall 2>&1 || true`)
	mustContain(t, out, "NotFound", "no delegated call waits for a completion")
}

// SubagentStart hooks run when the child session is made (their context
// goes to the orchestrator in the delegation), SubagentStop hooks when the
// orchestrator gives the report; both learn the agent's id and type, and
// the child inherits the parent's deny rules; as root and as a non-root
// toold (uid 10001).
func TestDelegationSubagentHooks(t *testing.T) {
	t.Run("root", func(t *testing.T) { testDelegationSubagentHooks(t, -1) })
	t.Run("uid10001", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Logf("the tests run as uid %d: the other subtest already drives a non-root toold", os.Geteuid())
			return
		}
		testDelegationSubagentHooks(t, 10001)
	})
}

func testDelegationSubagentHooks(t *testing.T, uid int) {
	dir := t.TempDir()
	passThrough(t, dir)
	hook := filepath.Join(dir, "mark.sh")
	os.WriteFile(hook, []byte(`#!/bin/bash
in=$(cat)
ev=$(jq -r .hook_event_name <<<"$in")
jq -r '.agent_type + " " + .agent_id + " " + (.last_assistant_message // "")' <<<"$in" > "$CLAUDE_PROJECT_DIR/.hook-$ev"
if [ "$ev" = SubagentStart ]; then echo '{"hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext": "Answer in one line."}}'; fi
`), 0o755)
	settings := filepath.Join(dir, "settings.json")
	os.WriteFile(settings, []byte(`{"hooks": {
		"SubagentStart": [{"matcher": "Explore", "hooks": [{"type": "command", "command": "`+hook+`"}]}],
		"SubagentStop": [{"matcher": "Explore", "hooks": [{"type": "command", "command": "`+hook+`"}]}]}}`), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d := startTooldAs(t, uid, "--delegated-tools", "--settings", settings)
	out, err := sh(t, ctx, `grpcurl -plaintext -d '{"mode": "PERMISSION_MODE_BYPASS_PERMISSIONS", "permissions": {"deny": ["Bash(rm *)", "Agent(Plan)"]}}' `+d.addr+` toold.v1.SessionService/CreateSession`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	sid := regexp.MustCompile(`"id": "([a-z2-7]{26})"`).FindStringSubmatch(out)[1]
	ws := regexp.MustCompile(`"workspace": "([^"]+)"`).FindStringSubmatch(out)[1]
	f := t.TempDir() + "/exec.out"
	out, err = sh(t, ctx, `
grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "toolu_h1", "name": "Agent", "input": {"description": "Look", "prompt": "look", "subagent_type": "Explore", "run_in_background": false}}]}' `+d.addr+` toold.v1.ToolService/Execute > `+f+` 2>&1 &
for i in $(seq 300); do grep -q '"childSessionId"' `+f+` && break; sleep 0.1; done
CHILD=$(sed -n 's/^ *"childSessionId": "\([a-z2-7]*\)".*/\1/p' `+f+`)
grpcurl -plaintext -d '{"session_id": "'"$CHILD"'", "calls": [{"tool_use_id": "toolu_h2", "name": "Bash", "input": {"command": "rm -f nothing"}}, {"tool_use_id": "toolu_h3", "name": "Agent", "input": {"description": "Plan", "prompt": "plan", "subagent_type": "Plan"}}]}' `+d.addr+` toold.v1.ToolService/Execute
grpcurl -plaintext -d '{"session_id": "`+sid+`", "tool_use_id": "toolu_h1", "text": "Nothing here."}' `+d.addr+` toold.v1.ToolService/CompleteCall
wait; cat `+f+`
echo "child=$CHILD"
cat `+ws+`/.hook-SubagentStart `+ws+`/.hook-SubagentStop`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	child := regexp.MustCompile(`child=([a-z2-7]{26})`).FindStringSubmatch(out)
	if child == nil {
		t.Fatalf("no child:\n%s", out)
	}
	mustContain(t, out, `"additionalContext": [`, "Answer in one line.", `"event": "SubagentStart"`, `"event": "SubagentStop"`,
		"Explore "+child[1]+" \n", "Explore "+child[1]+" Nothing here.",
		"Permission to use Bash with command rm -f nothing has been denied.",
		"Agent type 'Plan' has been denied by permission rule 'Agent(Plan)' from cliArg.")

	// A background agent: no SubagentStop at its launch, one at its final
	// report.
	out, err = sh(t, ctx, `rm -f `+ws+`/.hook-SubagentStop
grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "toolu_h4", "name": "Agent", "input": {"description": "Look later", "prompt": "look", "subagent_type": "Explore"}}]}' `+d.addr+` toold.v1.ToolService/Execute > `+f+` 2>&1 &
for i in $(seq 300); do grep -q '"childSessionId"' `+f+` && break; sleep 0.1; done
CHILD=$(sed -n 's/^ *"childSessionId": "\([a-z2-7]*\)".*/\1/p' `+f+`)
grpcurl -plaintext -d '{"session_id": "`+sid+`", "tool_use_id": "toolu_h4", "launched": true}' `+d.addr+` toold.v1.ToolService/CompleteCall
wait
test -e `+ws+`/.hook-SubagentStop && echo "stop at launch"
grpcurl -plaintext -d '{"session_id": "`+sid+`", "tool_use_id": "toolu_h4", "final": true, "agent_id": "'"$CHILD"'", "text": "Background done."}' `+d.addr+` toold.v1.ToolService/CompleteCall
echo "bgchild=$CHILD"
cat `+ws+`/.hook-SubagentStop`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	bg := regexp.MustCompile(`bgchild=([a-z2-7]{26})`).FindStringSubmatch(out)
	if bg == nil || strings.Contains(out, "stop at launch") {
		t.Fatalf("background agent:\n%s", out)
	}
	mustContain(t, out, "Explore "+bg[1]+" Background done.")
}

// isolation "worktree" gives the subagent a git worktree of the parent's
// repository, made as EnterWorktree makes one, under Claude Code's name
// agent-<id> (the child session's id): the child session works there, the
// parent's checkout is untouched; outside a repository the call fails
// with Claude Code's text. As root and as a non-root toold (uid 10001).
func TestDelegationWorktreeIsolation(t *testing.T) {
	t.Run("root", func(t *testing.T) { testDelegationWorktreeIsolation(t, -1) })
	t.Run("uid10001", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Logf("the tests run as uid %d: the other subtest already drives a non-root toold", os.Geteuid())
			return
		}
		testDelegationWorktreeIsolation(t, 10001)
	})
}

// isolatedAgent starts an isolated Agent call in session sid, runs cmd as
// Bash in the child session, completes the call, and prints the child's
// id as child=ID.
func isolatedAgent(addr, sid, id, cmd, dir string) string {
	f := dir + "/" + id + ".out"
	return `
grpcurl -plaintext -d '{"session_id": "` + sid + `", "calls": [{"tool_use_id": "` + id + `", "name": "Agent", "input": {"description": "Isolated", "prompt": "work", "isolation": "worktree", "run_in_background": false}}]}' ` + addr + ` toold.v1.ToolService/Execute > ` + f + ` 2>&1 &
for i in $(seq 300); do grep -q '"childSessionId"' ` + f + ` && break; sleep 0.1; done
CHILD=$(sed -n 's/^ *"childSessionId": "\([a-z2-7]*\)".*/\1/p' ` + f + `)
echo "child=$CHILD"
grpcurl -plaintext -d '{"session_id": "'"$CHILD"'", "calls": [{"tool_use_id": "` + id + `c", "name": "Bash", "input": {"command": "` + cmd + `"}}]}' ` + addr + ` toold.v1.ToolService/Execute
grpcurl -plaintext -d '{"session_id": "` + sid + `", "tool_use_id": "` + id + `", "text": "done"}' ` + addr + ` toold.v1.ToolService/CompleteCall
wait
cat ` + f + `
`
}

func testDelegationWorktreeIsolation(t *testing.T, uid int) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d := startTooldAs(t, uid, "--delegated-tools")
	sid := createSessionMode(t, ctx, d.addr, "PERMISSION_MODE_BYPASS_PERMISSIONS")
	out, _ := sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "toolu_w0", "name": "Agent", "input": {"description": "Isolated", "prompt": "work", "isolation": "worktree", "run_in_background": false}}]}' `+d.addr+` toold.v1.ToolService/Execute 2>&1`)
	mustContain(t, out, "Cannot create agent worktree: not in a git repository and no WorktreeCreate hooks are configured.")
	dir := t.TempDir()
	passThrough(t, dir)
	out, err := sh(t, ctx, `
grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "toolu_w1", "name": "Bash", "input": {"command": "git init -q && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m init && echo inited"}}]}' `+d.addr+` toold.v1.ToolService/Execute | grep -c inited
`+isolatedAgent(d.addr, sid, "toolu_w2", "echo child-cwd=$(pwd) && git branch --show-current && touch made-in-worktree", dir)+`
grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "toolu_w4", "name": "Bash", "input": {"command": "ls made-in-worktree 2>&1; ls .claude/worktrees/*/made-in-worktree"}}]}' `+d.addr+` toold.v1.ToolService/Execute`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	child := regexp.MustCompile(`child=([a-z2-7]{26})`).FindStringSubmatch(out)
	if child == nil {
		t.Fatalf("no child:\n%s", out)
	}
	name := "agent-" + child[1]
	mustContain(t, out, "child-cwd=", "/.claude/worktrees/"+name+`\nworktree-`+name+`"`, "No such file", ".claude/worktrees/"+name+"/made-in-worktree")
}

// With WorktreeCreate and WorktreeRemove hooks configured, a subagent's
// worktree is the hooks' too, as Claude Code's is (recorded: the hook is
// asked under the parent's session, from the parent's directory, for
// agent-<id>): here, outside a repository, a folder the hook makes. The
// child works there; ExitWorktree in the child removes it with the
// WorktreeRemove hook. A failing hook fails the call with its words. As
// root and as a non-root toold (uid 10001).
func TestDelegationWorktreeHooks(t *testing.T) {
	t.Run("root", func(t *testing.T) { testDelegationWorktreeHooks(t, -1) })
	t.Run("uid10001", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Logf("the tests run as uid %d: the other subtest already drives a non-root toold", os.Geteuid())
			return
		}
		testDelegationWorktreeHooks(t, 10001)
	})
}

func testDelegationWorktreeHooks(t *testing.T, uid int) {
	dir := t.TempDir()
	passThrough(t, dir)
	mk := filepath.Join(dir, "mk.sh")
	os.WriteFile(mk, []byte(`#!/bin/bash
in=$(cat)
printf '%s\n' "$in" >> "$CLAUDE_PROJECT_DIR/.hooks.log"
name=$(jq -r .name <<<"$in")
[ -e "$CLAUDE_PROJECT_DIR/.refuse" ] && { echo "no worktrees today" >&2; exit 1; }
d="$CLAUDE_PROJECT_DIR/hw/$name"
mkdir -p "$d" && chown --reference="$CLAUDE_PROJECT_DIR" "$CLAUDE_PROJECT_DIR/hw" "$d"
echo "$d"
`), 0o755)
	rm := filepath.Join(dir, "rm.sh")
	os.WriteFile(rm, []byte(`#!/bin/bash
in=$(cat)
printf '%s\n' "$in" >> "$CLAUDE_PROJECT_DIR/.hooks.log"
rm -rf "$(jq -r .worktree_path <<<"$in")"
`), 0o755)
	settings := filepath.Join(dir, "settings.json")
	os.WriteFile(settings, []byte(`{"hooks": {
		"WorktreeCreate": [{"hooks": [{"type": "command", "command": "`+mk+`"}]}],
		"WorktreeRemove": [{"hooks": [{"type": "command", "command": "`+rm+`"}]}]}}`), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d := startTooldAs(t, uid, "--delegated-tools", "--settings", settings)
	out, err := sh(t, ctx, `grpcurl -plaintext -d '{"mode": "PERMISSION_MODE_BYPASS_PERMISSIONS"}' `+d.addr+` toold.v1.SessionService/CreateSession`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	sid := regexp.MustCompile(`"id": "([a-z2-7]{26})"`).FindStringSubmatch(out)[1]
	ws := regexp.MustCompile(`"workspace": "([^"]+)"`).FindStringSubmatch(out)[1]
	out, err = sh(t, ctx, isolatedAgent(d.addr, sid, "toolu_k1", "echo child-cwd=$(pwd) && touch made-in-hook-folder", dir)+`
grpcurl -plaintext -d '{"session_id": "'"$CHILD"'", "calls": [{"tool_use_id": "toolu_k2", "name": "ExitWorktree", "input": {"action": "remove", "discard_changes": true}}]}' `+d.addr+` toold.v1.ToolService/Execute
echo "left: $(ls `+ws+`/hw)"
cat `+ws+`/.hooks.log
touch `+ws+`/.refuse
grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "toolu_k3", "name": "Agent", "input": {"description": "Isolated", "prompt": "work", "isolation": "worktree", "run_in_background": false}}]}' `+d.addr+` toold.v1.ToolService/Execute 2>&1`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	child := regexp.MustCompile(`child=([a-z2-7]{26})`).FindStringSubmatch(out)
	if child == nil {
		t.Fatalf("no child:\n%s", out)
	}
	name := "agent-" + child[1]
	folder := ws + "/hw/" + name
	mustContain(t, out, "child-cwd="+folder+`"`,
		`"session_id":"`+sid+`"`, `"cwd":"`+ws+`"`, `"hook_event_name":"WorktreeCreate","name":"`+name+`"`,
		`"hook_event_name":"WorktreeRemove","worktree_path":"`+folder+`"`,
		"Exited and removed worktree at “"+folder+"”", "left: \n",
		"WorktreeCreate hook failed: "+mk+": no worktrees today")
}

// A background agent over two replicas on one Redis: launched on A (the
// launch notice), its report given through B once (a second report is
// refused), and TaskOutput on A returns it; a second agent stopped with
// TaskStop on B refuses its late report.
func TestDelegationBackgroundAgentTwoReplicas(t *testing.T) {
	url := "redis://" + redistest.Start(t) + "/0?max_retries=0"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := startToold(t, "--redis-url", url, "--delegated-tools")
	b := startToold(t, "--redis-url", url, "--delegated-tools")
	sid := createSessionMode(t, ctx, a.addr, "PERMISSION_MODE_DEFAULT")
	dir := t.TempDir()
	launch := func(id string) string {
		return `
grpcurl -plaintext -d '{"session_id": "` + sid + `", "calls": [{"tool_use_id": "` + id + `", "name": "Agent", "input": {"description": "Count files", "prompt": "Count the files", "subagent_type": "Explore"}}]}' ` + a.addr + ` toold.v1.ToolService/Execute > ` + dir + `/` + id + `.out 2>&1 &
for i in $(seq 300); do grep -q '"childSessionId"' ` + dir + `/` + id + `.out && break; sleep 0.1; done
grpcurl -plaintext -d '{"session_id": "` + sid + `", "tool_use_id": "` + id + `", "launched": true}' ` + b.addr + ` toold.v1.ToolService/CompleteCall
wait
CHILD=$(sed -n 's/^ *"childSessionId": "\([a-z2-7]*\)".*/\1/p' ` + dir + `/` + id + `.out)
cat ` + dir + `/` + id + `.out
`
	}
	out, err := sh(t, ctx, launch("toolu_bg1")+`
echo "child=$CHILD"
echo "=== before"
grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "toolu_o1", "name": "TaskOutput", "input": {"task_id": "'"$CHILD"'", "block": false}}]}' `+a.addr+` toold.v1.ToolService/Execute
echo "=== report"
grpcurl -plaintext -d '{"session_id": "`+sid+`", "tool_use_id": "toolu_bg1", "final": true, "agent_id": "'"$CHILD"'", "text": "There are 3 files.", "usage": {"tokens": 110, "tool_uses": 1, "duration_ms": 413}}' `+b.addr+` toold.v1.ToolService/CompleteCall
echo "=== second report"
grpcurl -plaintext -d '{"session_id": "`+sid+`", "tool_use_id": "toolu_bg1", "final": true, "agent_id": "'"$CHILD"'", "text": "again"}' `+a.addr+` toold.v1.ToolService/CompleteCall 2>&1 || true
echo "=== after"
grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "toolu_o2", "name": "TaskOutput", "input": {"task_id": "'"$CHILD"'"}}]}' `+a.addr+` toold.v1.ToolService/Execute`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var child string
	for _, line := range strings.Split(out, "\n") {
		if c, ok := strings.CutPrefix(line, "child="); ok {
			child = c
		}
	}
	if len(child) != 26 {
		t.Fatalf("no child session:\n%s", out)
	}
	before := out[strings.Index(out, "=== before"):strings.Index(out, "=== report")]
	second := out[strings.Index(out, "=== second report"):strings.Index(out, "=== after")]
	after := out[strings.Index(out, "=== after"):]
	mustContain(t, out, "Async agent launched successfully.", "agentId: "+child)
	mustContain(t, before, `\u003cstatus\u003erunning\u003c/status\u003e`)
	mustContain(t, second, "FailedPrecondition", "is completed")
	mustContain(t, after, `\u003ctask-id\u003e`+child, `\u003cstatus\u003ecompleted\u003c/status\u003e`,
		`\u003cresult\u003eThere are 3 files.\u003c/result\u003e`, `\u003csubagent_tokens\u003e110`)
	if strings.Contains(after, "again") {
		t.Fatalf("the second report reached the task:\n%s", after)
	}

	// TaskStop through B ends the second agent; its report is refused.
	out, err = sh(t, ctx, launch("toolu_bg2")+`
echo "=== stop"
grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "toolu_s1", "name": "TaskStop", "input": {"task_id": "'"$CHILD"'"}}]}' `+b.addr+` toold.v1.ToolService/Execute
echo "=== late report"
grpcurl -plaintext -d '{"session_id": "`+sid+`", "tool_use_id": "toolu_bg2", "final": true, "agent_id": "'"$CHILD"'", "text": "late"}' `+a.addr+` toold.v1.ToolService/CompleteCall 2>&1 || true`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mustContain(t, out[strings.Index(out, "=== stop"):], `Successfully stopped task: `, `\"task_type\":\"local_agent\"`, "=== late report", "FailedPrecondition", "is killed")
}
