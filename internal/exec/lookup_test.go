package exec

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// sessionTools gives one session an extra tool, as an MCP server would.
type sessionTools struct {
	session string
	t       tool.Tool
}

func (s sessionTools) Lookup(_ context.Context, sess *store.Session, name string) (tool.Tool, bool) {
	if sess.ID == s.session && name == s.t.Definition().Name {
		return s.t, true
	}
	return nil, false
}

// schemaTool is an MCP-like tool whose schema the engine has not seen.
type schemaTool struct{ fakeTool }

func (s *schemaTool) Definition() tool.Definition {
	return tool.Definition{Name: s.name, Description: "remote", InputSchema: json.RawMessage(
		`{"type":"object","required":["q"],"properties":{"q":{"type":"string"},"n":{"type":"integer"}}}`)}
}

func (s *schemaTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in struct{ Q string }
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	return &fakeInv{t: &s.fakeTool, in: fakeInput{Text: in.Q}}, nil
}

func TestSessionToolsAreFoundAndValidated(t *testing.T) {
	h := newHarness(t, nil)
	remote := &schemaTool{fakeTool{name: "mcp__srv__query"}}
	h.engine.cfg.Tools = sessionTools{session: h.id, t: remote}
	h.engine.prepare = Chain(func(context.Context, *Call) (*tool.Result, error) { return nil, nil },
		Lookup(h.engine.cfg.Registry, h.engine.cfg.Tools), Validate(h.engine.schemas))
	res := h.exec(t,
		call("1", "mcp__srv__query", map[string]any{"q": "hello", "n": "3"}),
		call("2", "mcp__srv__query", map[string]any{"n": 1.0}),
		call("3", "mcp__srv__other", map[string]any{"q": "x"}),
	).results()
	if r := res["1"]; r.IsError || r.Content[0].Text != "hello" {
		t.Fatalf("the session's tool: %+v", r)
	}
	if r := res["2"]; r.Kind != tool.KindInvalidInput {
		t.Fatalf("input against the session tool's schema: %+v", r)
	}
	if r := res["3"]; r.Kind != tool.KindUnknownTool {
		t.Fatalf("a name no source has: %+v", r)
	}
}
