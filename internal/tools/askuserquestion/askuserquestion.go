// Package askuserquestion is the AskUserQuestion tool: the model asks the
// user multiple-choice questions. toold cannot ask anyone, so the call is
// delegated: the orchestrator puts the questions to its user and returns
// the answers through CompleteCall; the result reads as Claude Code's.
package askuserquestion

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toold/toold/internal/tool"
)

// Name is the tool's name.
const Name = "AskUserQuestion"

// New returns the AskUserQuestion tool.
func New() tool.Tool { return askTool{} }

type askTool struct{}

func (askTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        Name,
		Description: description,
		InputSchema: json.RawMessage(inputSchema),
		SearchHint:  "ask the user a question choice decision",
		Delegated:   true,
	}
}

type question struct {
	Question string `json:"question"`
	Header   string `json:"header"`
}

type input struct {
	Questions []question `json:"questions"`
}

// Parse keeps the questions' order: the answers are reported in it. A
// model's own "answers" are not read: only the orchestrator's count.
func (askTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for AskUserQuestion: %v", err)
	}
	seen := make(map[string]bool, len(in.Questions))
	for _, q := range in.Questions {
		if seen[q.Question] {
			return nil, tool.InvalidInputf("Question texts must be unique: %q is asked twice", q.Question)
		}
		seen[q.Question] = true
	}
	return &call{in: in}, nil
}

type call struct{ in input }

// Traits: a question changes nothing.
func (c *call) Traits() tool.Traits { return tool.Traits{ReadOnly: true} }

func (c *call) Activity() tool.Activity {
	return tool.Activity{Summary: fmt.Sprintf("Ask the user %d question(s)", len(c.in.Questions))}
}

func (c *call) Run(context.Context, *tool.Env) (*tool.Result, error) {
	return nil, tool.Errorf(tool.KindInternal, "AskUserQuestion is completed by the orchestrator, not run")
}

func (c *call) Delegate(context.Context, *tool.Env, string, []tool.Agent) (*tool.Delegation, error) {
	return &tool.Delegation{}, nil
}

// Complete renders the answers as Claude Code does (recorded with
// 2.1.332): each answered question as "question"="answer", with the
// user's notes after it, in the questions' order; no answer at all is
// "The user did not answer the questions."
func (c *call) Complete(_ context.Context, _ *tool.Env, _ *tool.Delegation, comp tool.Completion) (*tool.Completed, error) {
	if comp.IsError {
		return &tool.Completed{Result: &tool.Result{Content: comp.Content, IsError: true, Kind: tool.KindFailed}}, nil
	}
	var parts []string
	for _, q := range c.in.Questions {
		a, ok := comp.Answers[q.Question]
		if !ok {
			continue
		}
		p := `"` + q.Question + `"="` + a + `"`
		if n := comp.Notes[q.Question]; n != "" {
			p += " notes: " + n
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return &tool.Completed{Result: tool.Text("The user did not answer the questions.")}, nil
	}
	return &tool.Completed{Result: tool.Text("The user answered: " + strings.Join(parts, ", ") +
		". Read the answers carefully — they may request clarification, changes, or that you not proceed — and follow what they actually say.")}, nil
}
