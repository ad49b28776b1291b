package server

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/mcpserver"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/tool"
)

// MCPBackend serves toold's MCP endpoint (mcpserver) with the same
// sessions and call chain as the gRPC API: a call over MCP is an Execute
// of one call, and its permission requests are put to the MCP client.
type MCPBackend struct {
	engine   *exec.Engine
	sessions *session.Manager
	tools    func(ctx context.Context, sessionID string) ([]tool.Definition, error)
}

var _ mcpserver.Backend = (*MCPBackend)(nil)

// NewMCPBackend builds the backend; tools lists a session's pool as
// ListTools does.
func NewMCPBackend(engine *exec.Engine, sessions *session.Manager, tools func(context.Context, string) ([]tool.Definition, error)) *MCPBackend {
	return &MCPBackend{engine: engine, sessions: sessions, tools: tools}
}

func (b *MCPBackend) CreateSession(ctx context.Context, req mcpserver.SessionRequest) (string, error) {
	s, err := b.sessions.Create(ctx, session.Spec{Workspace: req.Workspace, Mode: req.PermissionMode})
	if err != nil {
		return "", err
	}
	return s.ID, nil
}

func (b *MCPBackend) ListTools(ctx context.Context, sessionID string) ([]tool.Definition, error) {
	if _, err := b.sessions.Get(ctx, sessionID); err != nil {
		return nil, err
	}
	defs, err := b.tools(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	// The MCP client is no orchestrator toold can hand a call to.
	out := defs[:0:0]
	for _, d := range defs {
		if !d.Delegated {
			out = append(out, d)
		}
	}
	return out, nil
}

func (b *MCPBackend) EndSession(ctx context.Context, sessionID string) error {
	return b.sessions.Delete(ctx, sessionID)
}

func (b *MCPBackend) Call(ctx context.Context, sessionID, toolUseID, name string, input json.RawMessage, asker mcpserver.Asker) (*tool.Result, error) {
	sink := &mcpSink{ctx: ctx, engine: b.engine, session: sessionID, asker: asker}
	req := exec.Request{ToolUseID: toolUseID, Name: name, RawInput: input}
	if len(input) == 0 {
		req.Input = map[string]any{}
	}
	if err := b.engine.Execute(ctx, sessionID, []exec.Request{req}, sink); err != nil {
		return nil, err
	}
	sink.wg.Wait()
	if sink.result == nil {
		return nil, errors.New("the call ended without a result")
	}
	return sink.result, nil
}

// mcpSink keeps the call's result and answers its permission requests
// through the MCP client.
type mcpSink struct {
	ctx     context.Context
	engine  *exec.Engine
	session string
	asker   mcpserver.Asker
	wg      sync.WaitGroup
	mu      sync.Mutex
	result  *tool.Result
}

func (s *mcpSink) Emit(ev exec.Event) error {
	switch {
	case ev.PermissionRequest != nil:
		pr := ev.PermissionRequest
		in, _ := json.Marshal(pr.Input)
		s.wg.Add(1)
		// The engine waits for the answer; asking must not hold up Emit.
		go func() {
			defer s.wg.Done()
			ans, err := s.asker.Ask(s.ctx, mcpserver.Question{
				ToolUseID: ev.ToolUseID, Tool: pr.Tool, Input: in,
				Summary: pr.Tool, Reason: pr.Decision.Reason,
			})
			a := exec.Answer{Allow: err == nil && ans.Allow, ForSession: err == nil && ans.ForSession, Message: ans.Reason}
			if err != nil {
				a.Message = "The MCP client did not answer the permission request: " + err.Error()
			}
			s.engine.Resolve(context.WithoutCancel(s.ctx), s.session, pr.ID, a)
		}()
	case ev.Delegation != nil:
		// Called anyway (its name is known): fail it at once rather than
		// leave it waiting for a CompleteCall nobody sends.
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.engine.CompleteCall(context.WithoutCancel(s.ctx), s.session, ev.ToolUseID, tool.Completion{
				IsError: true, Content: []tool.Block{{Type: tool.BlockText, Text: ev.Delegation.Tool + " is completed by an orchestrator, and the MCP endpoint has none: it cannot be used here."}},
			})
		}()
	case ev.Result != nil:
		s.mu.Lock()
		s.result = ev.Result.Result
		s.mu.Unlock()
	}
	return nil
}
