package hooks

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// PermissionDenied reads Claude Code's input (the call, its tool_use_id
// and the classifier's reason) and hears "retry": true; nothing a hook
// does undoes the denial.
func TestPermissionDenied(t *testing.T) {
	retry := `echo '{"hookSpecificOutput":{"hookEventName":"PermissionDenied","retry":true}}'`
	denied := func(f *fixture) ToolEvent {
		te := f.bash("curl -s https://example.com")
		te.Reason = "curl reaches the network"
		return te
	}
	t.Run("input", func(t *testing.T) {
		f := newFixture(t)
		dump := f.script("dump.sh", `jq -c . > "`+f.path("in.json")+`"`)
		o, err := f.runner(settings(PermissionDenied, "Bash", command(dump))).PermissionDenied(ctx(t), denied(f))
		if err != nil {
			t.Fatal(err)
		}
		if o.Retry || len(o.Reports) != 1 || o.Reports[0].Event != PermissionDenied {
			t.Fatalf("outcome %+v", o)
		}
		var in map[string]any
		if err := json.Unmarshal([]byte(f.read("in.json")), &in); err != nil {
			t.Fatal(err)
		}
		for k, want := range map[string]string{
			"hook_event_name": `"PermissionDenied"`, "tool_name": `"Bash"`, "tool_use_id": `"toolu_01"`,
			"reason": `"curl reaches the network"`, "tool_input": `{"command":"curl -s https://example.com","description":"run it"}`,
		} {
			if got := jsonOfAny(in[k]); got != want {
				t.Errorf("%s = %s, want %s", k, got, want)
			}
		}
		for _, k := range []string{"permission_suggestions", "tool_response", "error"} {
			if _, ok := in[k]; ok {
				t.Errorf("input has %s", k)
			}
		}
	})
	t.Run("retry", func(t *testing.T) {
		f := newFixture(t)
		o, err := f.runner(settings(PermissionDenied, "Bash", command(f.script("a.sh", `exit 0`)), command(f.script("b.sh", retry)))).PermissionDenied(ctx(t), denied(f))
		if err != nil {
			t.Fatal(err)
		}
		if !o.Retry || len(o.Reports) != 2 || o.Reports[1].Decision != "retry" || o.Reports[0].Decision != "" {
			t.Fatalf("outcome %+v", o)
		}
	})
	t.Run("retry false and exit 2 ask no retry", func(t *testing.T) {
		f := newFixture(t)
		no := `echo '{"hookSpecificOutput":{"hookEventName":"PermissionDenied","retry":false}}'`
		blocked := retry + `; exit 2`
		o, err := f.runner(settings(PermissionDenied, "Bash", command(f.script("a.sh", no)), command(f.script("b.sh", blocked)))).PermissionDenied(ctx(t), denied(f))
		if err != nil {
			t.Fatal(err)
		}
		if o.Retry || o.Reports[1].Status != StatusBlocked {
			t.Fatalf("outcome %+v", o)
		}
	})
	t.Run("retry of another type fails the hook", func(t *testing.T) {
		f := newFixture(t)
		bad := `echo '{"hookSpecificOutput":{"hookEventName":"PermissionDenied","retry":"yes"}}'`
		o, err := f.runner(settings(PermissionDenied, "Bash", command(f.script("a.sh", bad)))).PermissionDenied(ctx(t), denied(f))
		if err != nil {
			t.Fatal(err)
		}
		if o.Retry || o.Reports[0].Status != StatusFailed {
			t.Fatalf("outcome %+v", o)
		}
	})
	t.Run("the matcher is the tool's name", func(t *testing.T) {
		f := newFixture(t)
		o, err := f.runner(settings(PermissionDenied, "Write", command(f.script("a.sh", retry)))).PermissionDenied(ctx(t), denied(f))
		if err != nil {
			t.Fatal(err)
		}
		if o.Retry || len(o.Reports) != 0 {
			t.Fatalf("outcome %+v", o)
		}
	})
	t.Run("no longer inert", func(t *testing.T) {
		if r := InertReason(PermissionDenied); r != "" || !PermissionDenied.fired() {
			t.Fatalf("PermissionDenied is inert: %q", r)
		}
	})
}

func TestGRPCHookAsksForARetry(t *testing.T) {
	s := &hookServer{answer: func(context.Context, *tooldv1.RunHookRequest) (*tooldv1.RunHookResponse, error) {
		return &tooldv1.RunHookResponse{HookSpecificOutput: &tooldv1.HookSpecificOutput{Retry: true}}, nil
	}}
	r := grpcRunner(t, settings(PermissionDenied, "Bash", grpcHook(serve(t, s), `,"insecure":true`)))
	o, err := r.PermissionDenied(ctx(t), ToolEvent{Session: grpcSession(t), ToolName: "Bash", ToolUseID: "toolu_09",
		ToolInput: json.RawMessage(`{"command":"curl x"}`), Reason: "network"})
	if err != nil {
		t.Fatal(err)
	}
	if !o.Retry {
		t.Errorf("outcome %+v", o)
	}
	req := s.requests[0]
	if req.GetHookEventName() != "PermissionDenied" || req.GetReason() != "network" || req.GetToolUseId() != "toolu_09" ||
		!strings.Contains(req.GetToolInput().String(), "curl x") {
		t.Errorf("request %v", req)
	}
}
