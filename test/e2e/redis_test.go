package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/store/redistest"
)

// With --redis-url, sessions live in Redis: they survive a restart of
// toold, and when Redis goes away calls fail closed and health reports
// NOT_SERVING.
// Two replicas on one Redis with an append-only file: a session made on A
// works on B with the state A stored; a call runs once whichever replica a
// retry reaches; denials counted on both add up; with Redis killed calls
// fail closed, nothing runs and health is NOT_SERVING; with Redis back the
// same session works again, its stored results included, with no restart.
func TestRedisTwoReplicas(t *testing.T) {
	rs := redistest.StartServerWith(t, redistest.Options{AppendOnly: true})
	url := "redis://" + rs.Addr + "/0?max_retries=0"
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a := startToold(t, "--redis-url", url, "--denial-limit", "2")
	b := startToold(t, "--redis-url", url, "--denial-limit", "2")
	sid := createSession(t, ctx, a.addr)
	run := func(addr, id, cmd string) string {
		out, _ := sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "`+id+`", "name": "Bash", "input": {"command": "`+cmd+`"}}]}' `+addr+` toold.v1.ToolService/Execute 2>&1`)
		return out
	}
	mustContain(t, run(a.addr, "t1", "mkdir -p sub && cd sub && echo once >> count && echo first"), "first")
	// B serves the session with the cwd A stored.
	mustContain(t, run(b.addr, "t2", "pwd"), "/"+sid+"/sub")
	// A retry of t1 on B is answered from the journal; the command did not
	// run again.
	mustContain(t, run(b.addr, "t1", "mkdir -p sub && cd sub && echo once >> count && echo first"), `"replayed": true`, "first")
	mustContain(t, run(a.addr, "t3", "wc -l < count"), `"text": "1`)

	// Denials on either replica count for the session.
	if err := setMode(ctx, t, a.addr, sid, "PERMISSION_MODE_DEFAULT"); err != nil {
		t.Fatal(err)
	}
	askAndAnswer(t, ctx, a.addr, b.addr, sid, "d1", "touch denied1")
	askAndAnswer(t, ctx, b.addr, a.addr, sid, "d2", "touch denied2")
	out := run(a.addr, "d3", "touch denied3")
	mustContain(t, out, "denialTracking")
	if strings.Contains(out, "requestId") {
		t.Fatalf("a session over its denial limit was asked again:\n%s", out)
	}

	rs.Kill()
	out = run(b.addr, "t4", "echo never > ran-during-outage")
	if strings.Contains(out, "never\"") || !strings.Contains(out, "Unavailable") || !strings.Contains(out, "state store unavailable") {
		t.Fatalf("with Redis gone the call was not refused:\n%s", out)
	}
	waitHealth(t, ctx, b.addr, "NOT_SERVING")

	rs.Restart(t)
	waitHealth(t, ctx, a.addr, "SERVING")
	waitHealth(t, ctx, b.addr, "SERVING")
	out = run(a.addr, "t5", "ls")
	mustContain(t, out, "count")
	if strings.Contains(out, "ran-during-outage") {
		t.Fatal("a call ran during the outage")
	}
	// The journal survived the restart: t1 is still answered, not run.
	mustContain(t, run(b.addr, "t1", "mkdir -p sub && cd sub && echo once >> count && echo first"), `"replayed": true`)
	mustContain(t, run(b.addr, "t6", "wc -l < count"), `"text": "1`)
}

func setMode(ctx context.Context, t *testing.T, addr, sid, mode string) error {
	out, err := sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "mode": "`+mode+`"}' `+addr+` toold.v1.SessionService/UpdateSession 2>&1`)
	if err != nil {
		return fmt.Errorf("UpdateSession: %v\n%s", err, out)
	}
	return nil
}

// askAndAnswer runs a call that asks on one replica and denies it through
// the other.
func askAndAnswer(t *testing.T, ctx context.Context, execAddr, answerAddr, sid, id, cmd string) {
	t.Helper()
	f := t.TempDir() + "/ask.out"
	out, err := sh(t, ctx, `
grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "`+id+`", "name": "Bash", "input": {"command": "`+cmd+`"}}]}' \
  `+execAddr+` toold.v1.ToolService/Execute > `+f+` 2>&1 &
for i in $(seq 300); do grep -q '"requestId"' `+f+` && break; sleep 0.1; done
REQ=$(sed -n 's/^ *"requestId": "\(perm_[0-9a-f]*\)".*/\1/p' `+f+`)
grpcurl -plaintext -d '{"session_id": "`+sid+`", "request_id": "'"$REQ"'", "decision": "PERMISSION_DECISION_DENY"}' \
  `+answerAddr+` toold.v1.SessionService/ResolvePermission
wait
cat `+f)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mustContain(t, out, `"requestId": "perm_`, "ERROR_KIND_PERMISSION_DENIED")
}

func waitHealth(t *testing.T, ctx context.Context, addr, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, _ := sh(t, ctx, `grpcurl -plaintext `+addr+` grpc.health.v1.Health/Check 2>&1`)
		if strings.Contains(out, `"`+want+`"`) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("health of %s is not %s: %s", addr, want, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// A permission request that waits on one toold is answered through another
// one on the same Redis.
func TestRedisResolveOnOtherReplica(t *testing.T) {
	url := "redis://" + redistest.Start(t) + "/0?max_retries=0"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := startToold(t, "--redis-url", url)
	b := startToold(t, "--redis-url", url)
	askOut := t.TempDir() + "/ask.out"

	out, err := sh(t, ctx, `
SID=$(grpcurl -plaintext -d '{"mode": "PERMISSION_MODE_DEFAULT"}' `+a.addr+` toold.v1.SessionService/CreateSession \
  | sed -n 's/^ *"id": "\([a-z2-7]*\)".*/\1/p')
grpcurl -plaintext -d '{"session_id": "'"$SID"'", "calls": [
  {"tool_use_id": "toolu_06", "name": "Bash", "input": {"command": "git init -q && echo initialised"}}]}' \
  `+a.addr+` toold.v1.ToolService/Execute > `+askOut+` 2>&1 &
for i in $(seq 300); do grep -q '"requestId"' `+askOut+` && break; sleep 0.1; done
REQ=$(sed -n 's/^ *"requestId": "\(perm_[0-9a-f]*\)".*/\1/p' `+askOut+`)
grpcurl -plaintext -d '{"session_id": "'"$SID"'", "request_id": "'"$REQ"'", "decision": "PERMISSION_DECISION_ALLOW"}' \
  `+b.addr+` toold.v1.SessionService/ResolvePermission
wait
cat `+askOut)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mustContain(t, out, `"requestId": "perm_`, "initialised")
}

// A Redis outage fails calls closed and turns health NOT_SERVING; when
// Redis answers again toold recovers by itself, with the same session.
func TestRedisOutageAndRecovery(t *testing.T) {
	rs := redistest.StartServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d := startToold(t, "--redis-url", "redis://"+rs.Addr+"/0?max_retries=0")
	sid := createSession(t, ctx, d.addr)
	n := 0
	run := func(cmd string) string {
		n++
		out, _ := sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "t`+fmt.Sprint(n)+`", "name": "Bash", "input": {"command": "`+cmd+`"}}]}' `+d.addr+` toold.v1.ToolService/Execute 2>&1`)
		return out
	}
	health := func(want string) { waitHealth(t, ctx, d.addr, want) }
	mustContain(t, run("echo before"), "before")

	rs.Pause()
	out := run("touch ran-during-outage")
	if !strings.Contains(out, "Unavailable") || !strings.Contains(out, "state store unavailable") {
		t.Fatalf("call during the outage: %s", out)
	}
	health("NOT_SERVING")

	rs.Resume()
	health("SERVING")
	out = run("ls")
	mustContain(t, out, `"text": "(Bash completed with no output)"`)
	if strings.Contains(out, "ran-during-outage") {
		t.Fatal("a call ran during the outage")
	}
}

// A detached call running on one toold is cancelled through another one on
// the same Redis: its processes are killed, its result is the cancelled
// one, journaled once (a retry and a second Cancel find it finished). The
// command spells its sleep through a variable so that pgrep finds the sleep
// process, not this script.
func TestRedisCancelOnOtherReplica(t *testing.T) {
	url := "redis://" + redistest.Start(t) + "/0?max_retries=0"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := startToold(t, "--redis-url", url)
	b := startToold(t, "--redis-url", url)
	sid := createSession(t, ctx, a.addr)
	execOut := t.TempDir() + "/exec.out"
	call := `{"session_id": "` + sid + `", "detached": true, "calls": [{"tool_use_id": "toolu_c1", "name": "Bash", "input": {"command": "echo begun; S=291.5; sleep $S; echo slept"}}]}`
	out, err := sh(t, ctx, `
grpcurl -plaintext -d '`+call+`' `+a.addr+` toold.v1.ToolService/Execute > `+execOut+` 2>&1 &
for i in $(seq 300); do pgrep -f 'sleep 291[.]5' >/dev/null && break; sleep 0.1; done
grpcurl -plaintext -d '{"session_id": "`+sid+`", "tool_use_ids": ["toolu_c1"]}' `+b.addr+` toold.v1.ToolService/Cancel
wait
cat `+execOut+`
for i in $(seq 100); do pgrep -f 'sleep 291[.]5' >/dev/null || break; sleep 0.1; done
pgrep -f 'sleep 291[.]5' && echo STILL-RUNNING
true`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mustContain(t, out, "CANCEL_STATE_CANCELLING", "ERROR_KIND_CANCELLED", "The call was cancelled before it finished.")
	if strings.Contains(out, "STILL-RUNNING") {
		t.Fatalf("the command was not killed:\n%s", out)
	}
	out, _ = sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "tool_use_ids": ["toolu_c1"]}' `+a.addr+` toold.v1.ToolService/Cancel 2>&1`)
	mustContain(t, out, "CANCEL_STATE_FINISHED")
	out, _ = sh(t, ctx, `grpcurl -plaintext -d '`+call+`' `+b.addr+` toold.v1.ToolService/Execute 2>&1`)
	mustContain(t, out, `"replayed": true`, "ERROR_KIND_CANCELLED")
}
