package classifier

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/internal/policy"
)

// script writes an executable bash script.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "classifier.sh")
	if err := os.WriteFile(p, []byte("#!/bin/bash\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func commandClassifier(t *testing.T, body string, opts ...func(*Options)) *fixture {
	t.Helper()
	b, err := NewCommand(CommandOptions{Path: script(t, body), MaxOutput: 4096})
	if err != nil {
		t.Fatal(err)
	}
	return newFixture(t, b, opts...)
}

func TestCommandAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       policy.Behavior
		inReason   string
	}{
		{"allow", `cat >/dev/null; echo '{"verdict": "allow", "reason": "tests"}'`, policy.Allow, "tests"},
		{"deny", `cat >/dev/null; echo '{"verdict":"deny","reason":"curl reaches the network"}'`, policy.Deny, "curl reaches the network"},
		{"ask", `cat >/dev/null; echo '{"verdict":"ask"}'`, policy.Ask, "leaves it to a person"},
		// Every way of failing is an ask.
		{"bad JSON", `echo '{"verdict": "allow"'`, policy.Ask, "not one JSON object"},
		{"two objects", `echo '{"verdict":"allow"}{"verdict":"deny"}'`, policy.Ask, "not one JSON object"},
		{"duplicate key", `echo '{"verdict":"deny","verdict":"allow"}'`, policy.Ask, "not one JSON object"},
		{"unknown key", `echo '{"decision":"allow"}'`, policy.Ask, "does not fit"},
		{"unknown verdict", `echo '{"verdict":"yes"}'`, policy.Ask, "not allow, deny or ask"},
		{"nothing", `exit 0`, policy.Ask, "printed nothing"},
		{"crash", `echo '{"verdict":"allow"}'; echo boom >&2; exit 3`, policy.Ask, "exit status 3: boom"},
		{"killed", `kill -9 $$`, policy.Ask, "signal: killed"},
		{"too much", `yes '{"verdict":"allow"}'`, policy.Ask, "output passed 4096 bytes"},
		{"timeout", `sleep 30`, policy.Ask, "no answer within"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := commandClassifier(t, tc.body, func(o *Options) { o.Timeout = 500 * time.Millisecond })
			got := f.k.Classify(context.Background(), bashCall("npm test"), needsApproval)
			if got.Behavior != tc.want || !strings.Contains(got.Reason, tc.inReason) {
				t.Fatalf("got %v: %s", got.Behavior, got.Reason)
			}
		})
	}
}

// The program reads the request as JSON with the proto's field names.
func TestCommandReadsTheRequest(t *testing.T) {
	out := filepath.Join(t.TempDir(), "req.json")
	f := commandClassifier(t, `cat > `+out+`; echo '{"verdict":"allow"}'`)
	f.k.Classify(context.Background(), bashCall("npm test"), needsApproval)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, b); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"session_id":"s1"`, `"tool_name":"Bash"`, `"command":"npm test"`, `"ask_reason":"Bash needs approval"`} {
		if !strings.Contains(compact.String(), w) {
			t.Errorf("request lacks %s: %s", w, b)
		}
	}
}

// A timed-out program is killed with everything it started.
func TestCommandTimeoutKillsTheGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	f := commandClassifier(t, `sleep 60 & echo $! > `+pidFile+`; wait`, func(o *Options) { o.Timeout = 300 * time.Millisecond })
	if got := f.k.Classify(context.Background(), bashCall("x"), needsApproval); got.Behavior != policy.Ask {
		t.Fatalf("got %+v", got)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	for _, c := range strings.TrimSpace(string(b)) {
		pid = pid*10 + int(c-'0')
	}
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if st, _ := os.ReadFile(filepath.Join("/proc", strings.TrimSpace(string(b)), "stat")); strings.Contains(string(st), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the classifier's child %d outlived it", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestNewCommandNeedsAProgram(t *testing.T) {
	if _, err := NewCommand(CommandOptions{Path: "/no/such/classifier"}); err == nil {
		t.Fatal("a missing program was accepted")
	}
}
