package mcp

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/toold/toold/internal/tool"
)

// Session is what the Manager needs of a toold session to run its stdio
// servers.
type Session struct {
	ID string
	// Workspace is the session's workspace directory (absolute): the
	// working directory of its stdio servers, and where .mcp.json is read
	// when Options.WorkspaceConfig is on.
	Workspace string
	// Environ is the environment stdio servers start with (toold's
	// allow-listed process environment); each server's "env" is added to
	// it. ${VAR} in a workspace's .mcp.json is resolved from it too.
	Environ []string
}

// Manager runs the MCP servers of every session.
type Manager struct {
	opts   Options
	shared []*server      // operator remote servers, by name
	stdio  []ServerConfig // operator stdio servers, started per session

	mu       sync.Mutex
	sessions map[string]*sessionServers
	closed   bool
}

// sessionServers are the servers of one session, by name, and the states
// of servers its configuration named but that do not run.
type sessionServers struct {
	servers []*server
	notes   []ServerState
}

// NewManager builds a manager for the operator's servers. Nothing starts
// until Start or a session's first use.
func NewManager(opts Options) *Manager {
	m := &Manager{opts: opts.withDefaults(), sessions: map[string]*sessionServers{}}
	for _, c := range m.opts.Operator.Servers {
		c.Scope = ScopeOperator
		if c.Transport == Stdio {
			m.stdio = append(m.stdio, c)
			continue
		}
		m.shared = append(m.shared, newServer(c, "", "", nil, &m.opts))
	}
	return m
}

// Start connects the shared servers in the background, so that they are
// ready before the first session needs them.
func (m *Manager) Start() {
	for _, s := range m.shared {
		s.start()
	}
}

// Tools returns the MCP tools of a session: those of the shared servers and
// of the session's own, which start here on the session's first use. It
// waits for servers that are starting, up to the connect timeout or ctx. A
// server that is down contributes the tools it last listed, so that the
// pool does not shift under the model while it restarts; calling one gives
// an error result that says why.
func (m *Manager) Tools(ctx context.Context, sess Session) []tool.Tool {
	servers := append(slices.Clone(m.shared), m.session(sess).servers...)
	wait, cancel := context.WithTimeout(ctx, m.opts.ConnectTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(func() { s.settle(wait, false) })
	}
	wg.Wait()
	var out []tool.Tool
	for _, s := range servers {
		tools, _ := s.snapshot()
		for _, t := range tools {
			out = append(out, t)
		}
	}
	return out
}

// session returns the servers of a session, creating them on first use.
func (m *Manager) session(sess Session) *sessionServers {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ss, ok := m.sessions[sess.ID]; ok || m.closed {
		if ss == nil {
			ss = &sessionServers{}
		}
		return ss
	}
	ss := m.newSessionServers(sess)
	m.sessions[sess.ID] = ss
	return ss
}

func (m *Manager) newSessionServers(sess Session) *sessionServers {
	ss := &sessionServers{}
	taken := map[string]bool{}
	for _, s := range m.shared {
		taken[s.cfg.Prefix] = true
	}
	for _, c := range m.stdio {
		taken[c.Prefix] = true
		ss.servers = append(ss.servers, newServer(c, sess.ID, sess.Workspace, sess.Environ, &m.opts))
	}
	if m.opts.WorkspaceConfig {
		cfg, err := LoadWorkspace(sess.Workspace, environLookup(sess.Environ))
		if err != nil {
			m.opts.Logger.Warn("workspace .mcp.json not loaded", "session_id", sess.ID, "error", err.Error())
			ss.notes = append(ss.notes, ServerState{Name: WorkspaceFile, Scope: ScopeWorkspace, State: StateFailed, LastError: err.Error()})
		}
		for _, c := range cfg.Servers {
			if taken[c.Prefix] {
				// The operator's server of that name stays in force: a
				// workspace must not replace what the operator configured.
				ss.notes = append(ss.notes, ServerState{Name: c.Name, Transport: c.Transport, Scope: ScopeWorkspace,
					State: StateStopped, LastError: "not started: the operator's settings define a server of the same name"})
				continue
			}
			ss.servers = append(ss.servers, newServer(c, sess.ID, sess.Workspace, sess.Environ, &m.opts))
		}
	}
	slices.SortFunc(ss.servers, func(a, b *server) int { return strings.Compare(a.cfg.Name, b.cfg.Name) })
	for _, s := range ss.servers {
		s.start()
	}
	return ss
}

func environLookup(environ []string) LookupEnv {
	return func(name string) (string, bool) {
		for i := len(environ) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(environ[i], name+"="); ok {
				return v, true
			}
		}
		return "", false
	}
}

// States reports every server a session sees, by name: the shared ones and
// the session's own. Before the session's first use its stdio servers are
// pending (and its workspace servers not yet read).
func (m *Manager) States(sessionID string) []ServerState {
	var out []ServerState
	for _, s := range m.shared {
		_, st := s.snapshot()
		out = append(out, st)
	}
	m.mu.Lock()
	ss, ok := m.sessions[sessionID]
	m.mu.Unlock()
	if ok {
		for _, s := range ss.servers {
			_, st := s.snapshot()
			out = append(out, st)
		}
		out = append(out, ss.notes...)
	} else {
		for _, c := range m.stdio {
			out = append(out, ServerState{Name: c.Name, Transport: c.Transport, Scope: c.Scope, State: StatePending})
		}
	}
	slices.SortStableFunc(out, func(a, b ServerState) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// CloseSession stops the session's servers and waits until their
// processes are gone. Shared servers go on.
func (m *Manager) CloseSession(sessionID string) {
	m.mu.Lock()
	ss := m.sessions[sessionID]
	delete(m.sessions, sessionID)
	m.mu.Unlock()
	if ss != nil {
		closeAll(ss.servers)
	}
}

// Close stops every server. The manager serves no session afterwards.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	var all []*server
	for _, ss := range m.sessions {
		all = append(all, ss.servers...)
	}
	m.sessions = map[string]*sessionServers{}
	m.mu.Unlock()
	closeAll(append(all, m.shared...))
}

func closeAll(servers []*server) {
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(s.close)
	}
	wg.Wait()
}
