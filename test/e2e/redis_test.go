package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/store/redistest"
)

// With --redis-url, sessions live in Redis: they survive a restart of
// toold, and when Redis goes away calls fail closed and health reports
// NOT_SERVING.
func TestRedisStore(t *testing.T) {
	rs := redistest.StartServer(t)
	url := "redis://" + rs.Addr + "/0?max_retries=0"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	d := startToold(t, "--redis-url", url)
	sid := createSession(t, ctx, d.addr)
	run := func(addr, cmd string) string {
		out, _ := sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "t", "name": "Bash", "input": {"command": "`+cmd+`"}}]}' `+addr+` toold.v1.ToolService/Execute 2>&1`)
		return out
	}
	mustContain(t, run(d.addr, "mkdir -p sub && cd sub && echo first"), "first")

	// A second toold on the same Redis serves the same session, with the
	// cwd the first one stored.
	d2 := startToold(t, "--redis-url", url)
	mustContain(t, run(d2.addr, "pwd"), "/"+sid+"/sub")

	rs.Kill()
	out := run(d2.addr, "echo never")
	if strings.Contains(out, "never\"") || !strings.Contains(out, "Unavailable") {
		t.Fatalf("with Redis gone the call was not refused:\n%s", out)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, _ := sh(t, ctx, `grpcurl -plaintext `+d2.addr+` grpc.health.v1.Health/Check 2>&1`)
		if strings.Contains(out, "NOT_SERVING") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("health still serving without Redis: %s", out)
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
	run := func(cmd string) string {
		out, _ := sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "t", "name": "Bash", "input": {"command": "`+cmd+`"}}]}' `+d.addr+` toold.v1.ToolService/Execute 2>&1`)
		return out
	}
	health := func(want string) {
		deadline := time.Now().Add(30 * time.Second)
		for {
			out, _ := sh(t, ctx, `grpcurl -plaintext `+d.addr+` grpc.health.v1.Health/Check 2>&1`)
			if strings.Contains(out, `"`+want+`"`) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("health is not %s: %s", want, out)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
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
	mustContain(t, out, `"text": "(no output)"`)
	if strings.Contains(out, "ran-during-outage") {
		t.Fatal("a call ran during the outage")
	}
}
