package audit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

func bashCall(cmd string) *exec.Call {
	in, _ := json.Marshal(map[string]any{"command": cmd})
	return &exec.Call{
		Request: exec.Request{ToolUseID: "toolu_1", Name: "Bash"},
		Session: &store.Session{ID: "s1", Tenant: "acme"},
		Input:   in,
		Args:    map[string]any{"command": cmd},
	}
}

func lines(t *testing.T, b []byte) []Record {
	t.Helper()
	var out []Record
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r Record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("not a JSON line: %q: %v", l, err)
		}
		out = append(out, r)
	}
	return out
}

func TestDecisionAndRunLinesWithRedaction(t *testing.T) {
	res, err := CompileRedactions(SplitPatterns(`ghp_[A-Za-z0-9]+, password=\S+`))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	l := New(&buf, res, nil)
	secret := "curl -H 'Authorization: token ghp_abc123XYZ' https://x --data password=hunter2"
	c := bashCall(secret)
	ctx := context.Background()
	l.Decision(ctx, c, policy.Decision{Behavior: policy.Allow, Rule: "Bash(curl:*)", Source: "policySettings"})
	_, err = l.Interceptor()(ctx, c, func(context.Context, *exec.Call) (*tool.Result, error) {
		r := tool.ErrorResult(tool.KindFailed, "exit 7")
		r.Meta = map[string]any{"exit_code": 7}
		return r, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	raw := buf.Bytes()
	if bytes.Contains(raw, []byte("ghp_abc123XYZ")) || bytes.Contains(raw, []byte("hunter2")) {
		t.Fatalf("a secret reached the audit log: %s", raw)
	}
	recs := lines(t, raw)
	if len(recs) != 2 {
		t.Fatalf("want a decision line and a run line, got %d: %s", len(recs), raw)
	}
	sum := sha256.Sum256(c.Input)
	digest := hex.EncodeToString(sum[:])
	d, r := recs[0], recs[1]
	if d.Event != "decision" || d.Decision == nil || d.Decision.Behavior != "allow" || d.Decision.Rule != "Bash(curl:*)" || d.Decision.Source != "policySettings" {
		t.Errorf("decision line = %+v", d)
	}
	wantCmd := "curl -H 'Authorization: token [REDACTED]' https://x --data [REDACTED]"
	for _, rec := range recs {
		if rec.Tenant != "acme" || rec.Session != "s1" || rec.ToolUseID != "toolu_1" || rec.Tool != "Bash" || rec.InputSHA256 != digest || rec.Time.IsZero() {
			t.Errorf("line lacks who/what: %+v", rec)
		}
		if rec.Command != wantCmd {
			t.Errorf("command = %q, want %q", rec.Command, wantCmd)
		}
	}
	if r.Event != "run" || r.Outcome != "failed" || r.ExitCode == nil || *r.ExitCode != 7 || r.DurationMS == nil {
		t.Errorf("run line = %+v", r)
	}
}

func TestOnlyTheDigestOfOtherInputsIsLogged(t *testing.T) {
	var buf bytes.Buffer
	l := New(&buf, nil, nil)
	in := []byte(`{"file_path":"/w/.env","content":"API_KEY=s3cret"}`)
	c := &exec.Call{Request: exec.Request{ToolUseID: "t2", Name: "Write"}, Session: &store.Session{ID: "s2"}, Input: in,
		Args: map[string]any{"file_path": "/w/.env", "content": "API_KEY=s3cret"}}
	ctx := session.WithTenant(context.Background(), "beta")
	l.Interceptor()(ctx, c, func(context.Context, *exec.Call) (*tool.Result, error) {
		return nil, tool.Errorf(tool.KindTimeout, "too slow")
	})
	if bytes.Contains(buf.Bytes(), []byte("s3cret")) || bytes.Contains(buf.Bytes(), []byte(".env")) {
		t.Errorf("input text reached the audit log: %s", buf.Bytes())
	}
	r := lines(t, buf.Bytes())[0]
	if r.Outcome != "timeout" || r.Tenant != "beta" || r.Command != "" {
		t.Errorf("run line = %+v", r)
	}
}

func TestOpenAppends(t *testing.T) {
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	for i := 0; i < 2; i++ {
		l, err := Open(p, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		l.Decision(context.Background(), bashCall("ls"), policy.Decision{Behavior: policy.Deny, Source: "userSettings"})
		l.Close()
	}
	b, _ := os.ReadFile(p)
	if recs := lines(t, b); len(recs) != 2 || recs[1].Decision.Behavior != "deny" {
		t.Errorf("after two opens: %s", b)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestBadPatternIsRefused(t *testing.T) {
	if _, err := CompileRedactions([]string{"(unclosed"}); err == nil {
		t.Error("an invalid pattern was accepted")
	}
	if got := SplitPatterns(`a{1\,3},b`); len(got) != 2 || got[0] != "a{1,3}" {
		t.Errorf("SplitPatterns = %q", got)
	}
}
