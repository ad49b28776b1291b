package client_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toold/toold/client"
	"github.com/toold/toold/internal/store/redistest"
	"github.com/toold/toold/internal/tooldtest"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// A subagent's round trip through the client, over two replicas on one
// Redis: the parent's Agent call runs through one; its Delegated handler
// runs the subagent's Bash in the child session and completes the call
// through the other; Run returns the one result.
func TestDelegatedSubagentRoundTrip(t *testing.T) {
	url := "redis://" + redistest.Start(t) + "/0?max_retries=0"
	a := tooldtest.Start(t, "--redis-url", url, "--delegated-tools")
	b := tooldtest.Start(t, "--redis-url", url, "--delegated-tools")
	ca, cb := dial(t, a.Addr), dial(t, b.Addr)
	sess := bashSession(t, ca)
	agentCall := json.RawMessage(`[{"type":"tool_use","id":"toolu_cag1","name":"Agent","input":{"description":"Say hi","prompt":"Say hi","run_in_background":false}}]`)
	var child string
	raw, err := ca.Run(ctx(t), sess.GetId(), agentCall, &client.Handlers{
		Delegated: func(ctx context.Context, id string, d *tooldv1.DelegatedCall) *tooldv1.CompleteCallRequest {
			child = d.GetChildSessionId()
			out, err := cb.RunToolUses(ctx, child, []client.ToolUse{{ID: "toolu_csub1", Name: "Bash", Input: json.RawMessage(`{"command":"echo hi from the subagent"}`)}}, nil)
			if err != nil {
				t.Errorf("the subagent's Bash: %v", err)
				return &tooldv1.CompleteCallRequest{Text: err.Error(), IsError: true}
			}
			var r []result
			json.Unmarshal([]byte("["+string(out[0])+"]"), &r)
			if err := cb.CompleteCall(ctx, sess.GetId(), id, &tooldv1.CompleteCallRequest{Text: r[0].text()}); err != nil {
				t.Errorf("CompleteCall: %v", err)
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := parse(t, raw)
	if len(r) != 1 || r[0].IsError || !strings.Contains(r[0].text(), "  hi from the subagent\nagentId: "+child) || child == "" {
		t.Fatalf("result %s (child %q)", raw, child)
	}
	if err := ca.CompleteCall(ctx(t), sess.GetId(), "toolu_cag1", &tooldv1.CompleteCallRequest{Text: "again"}); err == nil || !strings.Contains(err.Error(), "the call has its result already") {
		t.Fatalf("second CompleteCall: %v", err)
	}
}

// AskUserQuestion's answers come back from the handler; without one, a
// delegated call fails at once instead of waiting for its timeout.
func TestDelegatedQuestion(t *testing.T) {
	d := tooldtest.Start(t, "--delegated-tools")
	c := dial(t, d.Addr)
	sess := bashSession(t, c)
	ask := json.RawMessage(`[{"type":"tool_use","id":"toolu_cq1","name":"AskUserQuestion","input":{"questions":[{"question":"Tabs or spaces?","header":"Indent","multiSelect":false,"options":[{"label":"Tabs","description":"t"},{"label":"Spaces","description":"s"}]}]}}]`)
	raw, err := c.Run(ctx(t), sess.GetId(), ask, &client.Handlers{
		Delegated: func(_ context.Context, _ string, d *tooldv1.DelegatedCall) *tooldv1.CompleteCallRequest {
			q := d.GetInput().GetFields()["questions"].GetListValue().GetValues()[0].GetStructValue().GetFields()["question"].GetStringValue()
			return &tooldv1.CompleteCallRequest{Answers: map[string]string{q: "Tabs"}}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := parse(t, raw)[0]; r.IsError || !strings.HasPrefix(r.text(), `The user answered: "Tabs or spaces?"="Tabs". `) {
		t.Fatalf("result %s", raw)
	}
	raw, err = c.Run(ctx(t), sess.GetId(), json.RawMessage(strings.ReplaceAll(string(ask), "toolu_cq1", "toolu_cq2")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := parse(t, raw)[0]; !r.IsError || !strings.Contains(r.text(), "completes no delegated calls") {
		t.Fatalf("result without a handler %s", raw)
	}
}
