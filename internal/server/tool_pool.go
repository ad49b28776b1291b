package server

import (
	"context"
	"encoding/json"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/toold/toold/internal/mcp"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// SessionPools gives each session its tool pool: the registry's tools, then
// the MCP tools of the servers the session reaches.
type SessionPools interface {
	Pool(ctx context.Context, s *store.Session) *mcp.Pool
	Servers(sessionID string) []mcp.ServerState
}

// WithPools makes ListTools (with a session_id) and Definitions list each
// session's own pool. Call it before serving.
func (s *ToolService) WithPools(p SessionPools) { s.pools = p }

// Definitions returns a session's tools in pool order, as the model sees
// them (for the MCP endpoint).
func (s *ToolService) Definitions(ctx context.Context, sessionID string) ([]tool.Definition, error) {
	sess, err := s.sessions.Get(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if s.pools == nil {
		defs := make([]tool.Definition, 0, len(s.defs))
		for _, d := range s.defs {
			defs = append(defs, tool.Definition{Name: d.GetName(), Description: d.GetDescription(), Deferred: d.GetDeferred()})
		}
		return defs, nil
	}
	return s.pools.Pool(ctx, sess).Definitions(), nil
}

func (s *ToolService) sessionTools(ctx context.Context, sess *store.Session) (*tooldv1.ListToolsResponse, error) {
	pool := s.pools.Pool(ctx, sess)
	out := &tooldv1.ListToolsResponse{Tools: make([]*tooldv1.ToolDefinition, 0, len(pool.Tools()))}
	builtin := make(map[string]*tooldv1.ToolDefinition, len(s.defs))
	for _, d := range s.defs {
		builtin[d.GetName()] = d
	}
	// Without ToolSearch (a deny rule took it away) nothing is deferred,
	// as in Claude Code: a name the model cannot load would be useless.
	_, searchable := pool.Lookup("ToolSearch")
	deferred := func(d tool.Definition) bool { return searchable && (d.Deferred || pool.Deferred(d.Name)) }
	for _, t := range pool.Tools() {
		d := t.Definition()
		if b, ok := builtin[d.Name]; ok && (searchable || !b.GetDeferred()) {
			out.Tools = append(out.Tools, b)
			continue
		}
		pd := &tooldv1.ToolDefinition{Name: d.Name}
		if m, ok := t.(*mcp.Tool); ok {
			pd.McpServer = m.Server()
		}
		if deferred(d) {
			pd.Deferred = true
		} else {
			pd.Description = d.Description
			var schema map[string]any
			if json.Unmarshal(d.InputSchema, &schema) == nil {
				pd.InputSchema, _ = structpb.NewStruct(schema)
			}
		}
		out.Tools = append(out.Tools, pd)
	}
	tj, err := messagesTools(pool.Tools(), deferred)
	if err != nil {
		return nil, err
	}
	out.ToolsJson = tj
	for _, st := range s.pools.Servers(sess.ID) {
		out.McpServers = append(out.McpServers, &tooldv1.McpServerState{
			Name: st.Name, Transport: string(st.Transport), State: string(st.State),
			LastError: st.LastError, ToolCount: int32(st.Tools),
		})
	}
	return out, nil
}
