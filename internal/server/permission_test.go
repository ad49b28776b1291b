package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// touchTool changes state (zero traits), so the default mode asks for it.
type touchTool struct{ runs atomic.Int32 }

func (t *touchTool) Definition() tool.Definition {
	return tool.Definition{Name: "Touch", Description: "changes things", InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{}}`)}
}
func (t *touchTool) Parse(json.RawMessage) (tool.Invocation, error) { return t, nil }
func (t *touchTool) Traits() tool.Traits                            { return tool.Traits{} }
func (t *touchTool) Activity() tool.Activity                        { return tool.Activity{Summary: "touch"} }
func (t *touchTool) Run(context.Context, *tool.Env) (*tool.Result, error) {
	t.runs.Add(1)
	return tool.Text("touched"), nil
}

type permEnv struct {
	*env
	touch *touchTool
	sid   string
}

func startPerm(t *testing.T, ask exec.AskConfig) *permEnv {
	t.Helper()
	dec, err := policy.NewEngine(policy.Options{Home: "/home/agent"})
	if err != nil {
		t.Fatal(err)
	}
	touch := &touchTool{}
	e := startWith(t, memstore.New(), dec, ask, touch)
	return &permEnv{env: e, touch: touch, sid: e.newSession(t).GetId()}
}

// touchStream starts one Touch call and returns the stream.
func (p *permEnv) touchStream(t *testing.T, ctx context.Context, id string) tooldv1.ToolService_ExecuteClient {
	t.Helper()
	stream, err := p.tools.Execute(ctx, &tooldv1.ExecuteRequest{SessionId: p.sid, Calls: []*tooldv1.ToolCall{{ToolUseId: id, Name: "Touch"}}})
	if err != nil {
		t.Fatal(err)
	}
	return stream
}

// untilRequest reads events until the permission request.
func untilRequest(t *testing.T, stream tooldv1.ToolService_ExecuteClient) *tooldv1.PermissionRequest {
	t.Helper()
	for {
		ev, err := stream.Recv()
		if err != nil {
			t.Fatalf("stream ended before a permission request: %v", err)
		}
		if pr := ev.GetPermissionRequest(); pr != nil {
			return pr
		}
		if ev.GetResult() != nil {
			t.Fatalf("result before a permission request: %v", ev.GetResult())
		}
	}
}

func lastResult(t *testing.T, stream tooldv1.ToolService_ExecuteClient) *tooldv1.ToolResult {
	t.Helper()
	events, err := collect(t, stream)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(events) - 1; i >= 0; i-- {
		if r := events[i].GetResult(); r != nil {
			return r
		}
	}
	t.Fatal("no result")
	return nil
}

func (p *permEnv) resolve(t *testing.T, req string, d tooldv1.PermissionDecision, scope tooldv1.PermissionScope, msg string) error {
	_, err := p.sessions.ResolvePermission(ctx(t), &tooldv1.ResolvePermissionRequest{SessionId: p.sid, RequestId: req, Decision: d, Scope: scope, Message: msg})
	return err
}

func TestAskAllowOnce(t *testing.T) {
	p := startPerm(t, exec.AskConfig{})
	for i := range 2 { // once means once: the second call asks again
		stream := p.touchStream(t, ctx(t), fmt.Sprint("t", i))
		pr := untilRequest(t, stream)
		if pr.GetToolName() != "Touch" || !strings.HasPrefix(pr.GetRequestId(), "perm_") ||
			pr.GetDecision().GetBehavior() != tooldv1.Behavior_BEHAVIOR_ASK || len(pr.GetSuggestedRules()) == 0 {
			t.Fatalf("request %v", pr)
		}
		if p.touch.runs.Load() != int32(i) {
			t.Fatal("the call ran before the answer")
		}
		if err := p.resolve(t, pr.GetRequestId(), tooldv1.PermissionDecision_PERMISSION_DECISION_ALLOW, tooldv1.PermissionScope_PERMISSION_SCOPE_ONCE, ""); err != nil {
			t.Fatal(err)
		}
		if r := lastResult(t, stream); r.GetIsError() {
			t.Fatalf("result %v", r)
		}
		// An answer is taken once.
		err := p.resolve(t, pr.GetRequestId(), tooldv1.PermissionDecision_PERMISSION_DECISION_ALLOW, tooldv1.PermissionScope_PERMISSION_SCOPE_ONCE, "")
		wantCode(t, err, codes.NotFound, "no pending permission request")
	}
	if p.touch.runs.Load() != 2 {
		t.Fatalf("runs = %d", p.touch.runs.Load())
	}
}

func TestAskAllowForSession(t *testing.T) {
	p := startPerm(t, exec.AskConfig{})
	stream := p.touchStream(t, ctx(t), "t1")
	pr := untilRequest(t, stream)
	if err := p.resolve(t, pr.GetRequestId(), tooldv1.PermissionDecision_PERMISSION_DECISION_ALLOW, tooldv1.PermissionScope_PERMISSION_SCOPE_SESSION, ""); err != nil {
		t.Fatal(err)
	}
	lastResult(t, stream)
	got, _ := p.sessions.GetSession(ctx(t), &tooldv1.GetSessionRequest{SessionId: p.sid})
	if strings.Join(got.GetSession().GetSessionPermissions().GetAllow(), ",") != "Touch" {
		t.Fatalf("session rules %v", got.GetSession().GetSessionPermissions())
	}
	// The next call runs without asking.
	events, err := collect(t, p.touchStream(t, ctx(t), "t2"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		if ev.GetPermissionRequest() != nil {
			t.Fatal("asked again after a session-scope allow")
		}
	}
	if d := events[0].GetDecision(); d.GetBehavior() != tooldv1.Behavior_BEHAVIOR_ALLOW || d.GetSource() != "session" || d.GetRule() != "Touch" {
		t.Fatalf("decision %v", d)
	}
}

func TestAskDenyReachesTheModel(t *testing.T) {
	p := startPerm(t, exec.AskConfig{})
	stream := p.touchStream(t, ctx(t), "t")
	pr := untilRequest(t, stream)
	if err := p.resolve(t, pr.GetRequestId(), tooldv1.PermissionDecision_PERMISSION_DECISION_DENY, 0, "Use the staging copy instead."); err != nil {
		t.Fatal(err)
	}
	r := lastResult(t, stream)
	if r.GetErrorKind() != tooldv1.ErrorKind_ERROR_KIND_PERMISSION_DENIED ||
		r.GetContent()[0].GetText().GetText() != "Use the staging copy instead." || p.touch.runs.Load() != 0 {
		t.Fatalf("result %v, runs %d", r, p.touch.runs.Load())
	}
}

func TestAskTimesOut(t *testing.T) {
	p := startPerm(t, exec.AskConfig{Timeout: 50 * time.Millisecond})
	r := lastResult(t, p.touchStream(t, ctx(t), "t"))
	if r.GetErrorKind() != tooldv1.ErrorKind_ERROR_KIND_PERMISSION_DENIED || !strings.Contains(r.GetContent()[0].GetText().GetText(), "nobody answered") || p.touch.runs.Load() != 0 {
		t.Fatalf("result %v", r)
	}
}

func TestClientGoneWhileAsking(t *testing.T) {
	p := startPerm(t, exec.AskConfig{})
	c, cancel := context.WithCancel(ctx(t))
	pr := untilRequest(t, p.touchStream(t, c, "t"))
	cancel()
	// The request disappears once the call has seen the cancellation. The
	// probe answers deny: an answer that lands before the server has seen
	// the cancel must not make the call run either.
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := p.resolve(t, pr.GetRequestId(), tooldv1.PermissionDecision_PERMISSION_DECISION_DENY, 0, "")
		if err != nil {
			wantCode(t, err, codes.NotFound, "no pending")
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the request outlived its client")
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	if p.touch.runs.Load() != 0 {
		t.Fatal("the call ran after its client went away")
	}
}

func TestDenialTracking(t *testing.T) {
	p := startPerm(t, exec.AskConfig{DenialLimit: 3, DenialWindow: time.Hour})
	for i := range 3 {
		stream := p.touchStream(t, ctx(t), fmt.Sprint("t", i))
		pr := untilRequest(t, stream)
		p.resolve(t, pr.GetRequestId(), tooldv1.PermissionDecision_PERMISSION_DECISION_DENY, 0, "")
		lastResult(t, stream)
	}
	events, err := collect(t, p.touchStream(t, ctx(t), "t3"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		if ev.GetPermissionRequest() != nil {
			t.Fatal("asked after 3 denials")
		}
	}
	// The decision says why; the model reads what an unanswered ask reads.
	var reason string
	for _, ev := range events {
		if d := ev.GetDecision(); d != nil {
			reason = d.GetReason()
		}
	}
	if !strings.Contains(reason, "3 permission requests of this session were denied") {
		t.Errorf("decision reason %q", reason)
	}
	r := events[len(events)-1].GetResult()
	if r.GetErrorKind() != tooldv1.ErrorKind_ERROR_KIND_PERMISSION_DENIED ||
		r.GetContent()[0].GetText().GetText() != "Claude requested permissions to use Touch, but you haven't granted it yet." {
		t.Fatalf("result %v", r)
	}
}

func TestUpdateSessionAndCheckPermission(t *testing.T) {
	p := startPerm(t, exec.AskConfig{})
	check := func() *tooldv1.Decision {
		resp, err := p.tools.CheckPermission(ctx(t), &tooldv1.CheckPermissionRequest{SessionId: p.sid, Call: &tooldv1.ToolCall{Name: "Touch"}})
		if err != nil {
			t.Fatal(err)
		}
		return resp.GetDecision()
	}
	if d := check(); d.GetBehavior() != tooldv1.Behavior_BEHAVIOR_ASK {
		t.Fatalf("before: %v", d)
	}
	_, err := p.sessions.UpdateSession(ctx(t), &tooldv1.UpdateSessionRequest{SessionId: p.sid, AddRules: &tooldv1.Permissions{Allow: []string{"Bash(npm test", "Touch"}}})
	wantCode(t, err, codes.InvalidArgument, "Bash(npm test")
	if d := check(); d.GetBehavior() != tooldv1.Behavior_BEHAVIOR_ASK {
		t.Fatalf("a refused update changed the decision: %v", d)
	}
	resp, err := p.sessions.UpdateSession(ctx(t), &tooldv1.UpdateSessionRequest{SessionId: p.sid, Mode: tooldv1.PermissionMode_PERMISSION_MODE_PLAN, AddRules: &tooldv1.Permissions{Deny: []string{"Touch"}}})
	if err != nil || resp.GetSession().GetMode() != tooldv1.PermissionMode_PERMISSION_MODE_PLAN {
		t.Fatalf("update: %v %v", resp, err)
	}
	if d := check(); d.GetBehavior() != tooldv1.Behavior_BEHAVIOR_DENY || d.GetRule() != "Touch" || d.GetSource() != "session" {
		t.Fatalf("after deny rule: %v", d)
	}
	if p.touch.runs.Load() != 0 {
		t.Fatal("CheckPermission ran the tool")
	}
	_, err = p.tools.CheckPermission(ctx(t), &tooldv1.CheckPermissionRequest{SessionId: p.sid, Call: &tooldv1.ToolCall{Name: "Nope"}})
	wantCode(t, err, codes.InvalidArgument, "No such tool available: Nope")
	_, err = p.sessions.ResolvePermission(ctx(t), &tooldv1.ResolvePermissionRequest{SessionId: p.sid, RequestId: "perm_x"})
	wantCode(t, err, codes.InvalidArgument, "decision")
}

// Rules that do not parse are ignored with a warning (Claude Code's
// behaviour), the caller's user rules included; TestCreateSessionRuleWarnings
// covers --strict-rules.
func TestCreateSessionWarnsOfBadRules(t *testing.T) {
	p := startPerm(t, exec.AskConfig{})
	for _, req := range []*tooldv1.CreateSessionRequest{
		{Permissions: &tooldv1.Permissions{Allow: []string{"Bash(npm test"}}},
		{Permissions: &tooldv1.Permissions{Allow: []string{"*"}}},
		{Permissions: &tooldv1.Permissions{Deny: []string{"Write(docs/**)"}}},
		{UserPermissions: &tooldv1.Permissions{Ask: []string{"Bash(git push"}}},
	} {
		resp, err := p.sessions.CreateSession(ctx(t), req)
		if err != nil {
			t.Fatalf("%v: %v", req, err)
		}
		if len(resp.GetWarnings()) != 1 {
			t.Errorf("%v: warnings %q", req, resp.GetWarnings())
		}
	}
}

func TestOperatorModeSettings(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "settings.json")
	os.WriteFile(file, []byte(`{"permissions": {"defaultMode": "plan", "disableBypassPermissionsMode": "disable", "deny": ["Bash(curl *)"]}}`), 0o644)
	dec, err := policy.NewEngine(policy.Options{PolicyFile: file, Home: "/home/agent"})
	if err != nil {
		t.Fatal(err)
	}
	e := startWith(t, memstore.New(), dec, exec.AskConfig{})
	s := e.newSession(t)
	if s.GetMode() != tooldv1.PermissionMode_PERMISSION_MODE_PLAN {
		t.Fatalf("mode %v, want the operator's default plan", s.GetMode())
	}
	_, err = e.sessions.CreateSession(ctx(t), &tooldv1.CreateSessionRequest{Mode: tooldv1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS})
	wantCode(t, err, codes.InvalidArgument, "disabled by the operator")
	_, err = e.sessions.UpdateSession(ctx(t), &tooldv1.UpdateSessionRequest{SessionId: s.GetId(), Mode: tooldv1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS})
	wantCode(t, err, codes.InvalidArgument, "disabled by the operator")
	resp, err := e.tools.CheckPermission(ctx(t), &tooldv1.CheckPermissionRequest{SessionId: s.GetId(), Call: &tooldv1.ToolCall{Name: "Echo", InputJson: `{"text":"x"}`}})
	if err != nil || resp.GetDecision().GetBehavior() != tooldv1.Behavior_BEHAVIOR_ALLOW {
		t.Fatalf("read-only call in plan: %v %v", resp, err)
	}
}
