// Package toolpool assembles what a session's model sees and may call: the
// built-in tools, then the tools of the MCP servers the session reaches,
// in the order the seeds prescribe (built-ins by name, then MCP tools by
// name, built-ins winning a name), with MCP tools deferred once the pool
// is large.
package toolpool

import (
	"context"
	"strings"

	"github.com/toold/toold/internal/mcp"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// Source builds pools. With no MCP manager, every pool is the registry.
type Source struct {
	reg       *tool.Registry
	mcp       *mcp.Manager
	environ   []string
	threshold int
	builtin   *mcp.Pool
	removed   func(sess *store.Session, name string) bool
}

// RemoveDenied makes each session's pool leave out the tools that
// removed reports (the tools the session's deny rules remove, as Claude
// Code's filterToolsByDenyRules does): ListTools does not show them and
// ToolSearch does not find them. Call it before the source is used.
func (s *Source) RemoveDenied(removed func(sess *store.Session, name string) bool) {
	s.removed = removed
}

// New returns a source; mgr may be nil. environ is the environment stdio
// MCP servers start with (the session's variables are added to it);
// threshold is the pool size past which MCP tools are deferred (0: the
// default, negative: never).
func New(reg *tool.Registry, mgr *mcp.Manager, environ []string, threshold int) *Source {
	return &Source{reg: reg, mcp: mgr, environ: environ, threshold: threshold,
		builtin: mcp.Assemble(reg.Tools(), nil, mcp.PoolOptions{DeferThreshold: threshold})}
}

// Pool returns the session's pool. A session's stdio MCP servers start on
// its first pool; sess nil gives the built-in pool.
func (s *Source) Pool(ctx context.Context, sess *store.Session) *mcp.Pool {
	return s.pool(ctx, sess, true)
}

// pool is Pool, with the removed tools left in unless filter.
func (s *Source) pool(ctx context.Context, sess *store.Session, filter bool) *mcp.Pool {
	if sess == nil || (s.mcp == nil && (s.removed == nil || !filter)) {
		return s.builtin
	}
	opts := mcp.PoolOptions{DeferThreshold: s.threshold}
	if s.removed != nil && filter {
		opts.Keep = func(name string) bool { return !s.removed(sess, name) }
	}
	if s.mcp == nil {
		return mcp.Assemble(s.reg.Tools(), nil, opts)
	}
	env := s.environ
	for k, v := range sess.Env {
		env = append(env[:len(env):len(env)], k+"="+v)
	}
	tools := s.mcp.Tools(ctx, mcp.Session{ID: sess.ID, Workspace: sess.Workspace, Environ: env})
	return mcp.Assemble(s.reg.Tools(), tools, opts)
}

// Lookup finds a tool of the session that the registry does not have: an
// MCP tool. Built-in names never reach the MCP servers. A tool the
// session's deny rules removed is found: the engine answers its call as
// a call of a disabled tool.
func (s *Source) Lookup(ctx context.Context, sess *store.Session, name string) (tool.Tool, bool) {
	if s.mcp == nil || !strings.HasPrefix(name, "mcp__") {
		return nil, false
	}
	return s.pool(ctx, sess, false).Lookup(name)
}

// Servers reports the state of the MCP servers a session reaches.
func (s *Source) Servers(sessionID string) []mcp.ServerState {
	if s.mcp == nil {
		return nil
	}
	return s.mcp.States(sessionID)
}

// CloseSession stops the session's own MCP servers.
func (s *Source) CloseSession(id string) {
	if s.mcp != nil {
		s.mcp.CloseSession(id)
	}
}
