package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/agent"
	"github.com/toold/toold/internal/tools/askuserquestion"
	"github.com/toold/toold/internal/tools/exitplanmode"
	"github.com/toold/toold/internal/tools/listagents"
	"github.com/toold/toold/internal/tools/sendmessage"
)

// The delegated tools cannot be run by the oracle's toold side (it has no
// orchestrator to complete them), so their fixture is a recording of
// Claude Code alone: the tool definitions it sends the model, and the
// tool_result blocks it gave (tooldefs_delegate.json). toold's tools are
// checked against it with the same completion the recording's host gave.
type delegateFixture struct {
	Version string                     `json:"claude_code_version"`
	Schemas map[string]json.RawMessage `json:"input_schemas"`
	Results []struct {
		ID     string          `json:"tool_use_id"`
		Tool   string          `json:"tool"`
		Input  json.RawMessage `json:"input"`
		Result struct {
			Content json.RawMessage `json:"content"`
			IsError bool            `json:"is_error"`
		} `json:"tool_result"`
	} `json:"results"`
}

func loadDelegateFixture(t *testing.T) delegateFixture {
	t.Helper()
	b, err := os.ReadFile("tooldefs_delegate.json")
	if err != nil {
		t.Fatal(err)
	}
	var f delegateFixture
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

var delegateTools = map[string]tool.Tool{
	"Agent": agent.New(nil), "AskUserQuestion": askuserquestion.New(), "ExitPlanMode": exitplanmode.New(),
	"ListAgents": listagents.New(), "SendMessage": sendmessage.New(),
}

func TestDelegatedToolSchemas(t *testing.T) {
	f := loadDelegateFixture(t)
	for name, tl := range delegateTools {
		var want, got map[string]any
		if err := json.Unmarshal(f.Schemas[name], &want); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		delete(want, "$schema")
		if err := json.Unmarshal(tl.Definition().InputSchema, &got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the schema is not Claude Code %s's", name, f.Version)
		}
		if !tl.Definition().Delegated {
			t.Errorf("%s is not declared delegated", name)
		}
	}
}

// recordedText is a tool_result's content as one text.
func recordedText(t *testing.T, raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct{ Text string }
	if err := json.Unmarshal(raw, &blocks); err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, b := range blocks {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}

// completions are what each recorded call's host gave (see the fixture's
// "how"), as CompleteCall would carry it.
var completions = map[string]tool.Completion{
	"toolu_dg01": {},
	"toolu_dg11": {},
	"toolu_dg21": {Approved: true},
	"toolu_dg61": {Approved: true},
	"toolu_dg31": {Content: []tool.Block{{Type: tool.BlockText, Text: "Denied by the oracle host."}}},
	"toolu_dg51": {Answers: map[string]string{"Which color?": "Blue", "Which sizes?": "S, L"}, Notes: map[string]string{"Which color?": "darker please"}},
	"toolu_dg12": {Content: []tool.Block{{Type: tool.BlockText, Text: "done"}}, Usage: &tool.AgentUsage{Tokens: 110, ToolUses: 2, DurationMS: 410}},
	"toolu_dg03": {Launched: true},
}

var agentIDRe = regexp.MustCompile(`\ba[0-9a-f]{16}\b`)

func TestDelegatedToolResults(t *testing.T) {
	f := loadDelegateFixture(t)
	ctx := context.Background()
	for _, r := range f.Results {
		if r.ID == "toolu_dg41" {
			continue // a policy decision: internal/policy's TestAgentTypeRules
		}
		t.Run(r.ID+"_"+r.Tool, func(t *testing.T) {
			want := recordedText(t, r.Result.Content)
			inv, err := delegateTools[r.Tool].Parse(r.Input)
			if err != nil {
				t.Fatal(err)
			}
			d := inv.(tool.Delegator)
			del, err := d.Delegate(ctx, &tool.Env{}, "", nil)
			var got string
			var isErr bool
			switch {
			case err != nil:
				var te *tool.Error
				if !errors.As(err, &te) || !te.Bare {
					t.Fatalf("error %v is not a bare tool error", err)
				}
				got, isErr = te.Msg, true
			case del.Result != nil:
				got, isErr = del.Result.Content[0].Text, del.Result.IsError
			default:
				comp, ok := completions[r.ID]
				if !ok {
					t.Fatalf("no completion for %s", r.ID)
				}
				del.ChildSessionID = agentIDRe.FindString(want)
				out, err := d.Complete(ctx, &tool.Env{}, del, comp)
				if err != nil {
					t.Fatal(err)
				}
				got, isErr = out.Result.Content[0].Text, out.Result.IsError
			}
			switch r.ID {
			case "toolu_dg12":
				// Claude Code heads the report with the tools the parent
				// used before it, which only the orchestrator knows.
				want = want[strings.Index(want, "[Subagent hand-back]"):]
			case "toolu_dg03":
				// The transcript file's lines are the orchestrator's.
				want = want[:strings.Index(want, "\noutput_file: ")]
			}
			if got != want || isErr != r.Result.IsError {
				t.Errorf("got (is_error %v)\n%s\nwant (is_error %v)\n%s", isErr, got, r.Result.IsError, want)
			}
		})
	}
}
