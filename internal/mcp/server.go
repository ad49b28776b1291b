package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/internal/tool"
)

// legacyProtocol is the protocol version toold offers servers. The
// initialize handshake of this version is what every server in use speaks;
// a server of the newer stateless protocol answers it as well.
const legacyProtocol = "2025-11-25"

// stdioTerminate is how long a stdio server has to exit once its stdin is
// closed, before SIGTERM and then SIGKILL.
const stdioTerminate = 2 * time.Second

// server is one configured MCP server with its connection, kept alive by
// run: connect, list tools, wait for the connection to end, back off,
// connect again.
type server struct {
	cfg       ServerConfig
	sessionID string // the owning session; "" for a shared server
	dir       string // stdio: the working directory (the session's workspace)
	environ   []string
	opts      *Options
	log       *slog.Logger
	stderr    *stderrTail

	mu       sync.Mutex
	state    State
	since    time.Time
	lastErr  string
	restarts int
	cs       *sdk.ClientSession
	tools    []*Tool
	changed  chan struct{} // closed and replaced at every state change
	started  bool
	running  bool // run was launched: close waits for done

	kick     chan struct{} // wakes a failed server for another attempt
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
	// stopCtx is cancelled by close, so that a connect in progress ends.
	stopCtx    context.Context
	stopCancel context.CancelFunc

	seq      atomic.Uint64
	progMu   sync.Mutex
	progress map[string]tool.Progress
}

func newServer(cfg ServerConfig, session, dir string, environ []string, opts *Options) *server {
	ctx, cancel := context.WithCancel(context.Background())
	log := opts.Logger.With("mcp_server", cfg.Name)
	if session != "" {
		log = log.With("session_id", session)
	}
	return &server{
		cfg: cfg, sessionID: session, dir: dir, environ: environ, opts: opts, log: log,
		stderr:  &stderrTail{log: log},
		state:   StatePending,
		since:   time.Now(),
		changed: make(chan struct{}),
		kick:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
		stopCtx: ctx, stopCancel: cancel,
		progress: map[string]tool.Progress{},
	}
}

// start begins the server's life once; later calls do nothing.
func (s *server) start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || s.stopped() {
		return
	}
	s.started, s.running = true, true
	go s.run()
}

// close stops the server and waits until its process is gone.
func (s *server) close() {
	s.stopOnce.Do(func() {
		close(s.stop)
		s.stopCancel()
	})
	s.mu.Lock()
	running := s.running
	s.mu.Unlock()
	if running {
		<-s.done
	}
	s.setState(StateStopped, "")
}

func (s *server) stopped() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

func (s *server) setState(st State, errText string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == StateStopped {
		return
	}
	s.state, s.since = st, time.Now()
	if errText != "" {
		s.lastErr = errText
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *server) run() {
	defer close(s.done)
	failures := 0
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			s.mu.Lock()
			s.restarts++
			s.mu.Unlock()
		}
		err := s.connectAndServe()
		if s.stopped() {
			return
		}
		var st stable
		if errors.As(err, &st) {
			failures = 0
		}
		failures++
		s.log.Warn("mcp server failed", "transport", string(s.cfg.Transport), "failures_in_a_row", failures, "error", err.Error())
		if failures >= s.opts.MaxAttempts {
			s.setState(StateFailed, err.Error())
			select {
			case <-s.stop:
				return
			case <-s.kick:
				failures = 0
			}
			continue
		}
		s.setState(StateRestarting, err.Error())
		select {
		case <-s.stop:
			return
		case <-time.After(s.opts.backoff(failures)):
		}
	}
}

// stable marks the end of a connection that had stayed up long enough for
// the next failure to count as the first in a row.
type stable struct{ error }

func (e stable) Unwrap() error { return e.error }

// connectAndServe makes one connection and returns when it ends, with the
// reason; nil only when the server was stopped.
func (s *server) connectAndServe() error {
	s.setState(StateConnecting, "")
	cs, cmd, err := s.connect()
	if err != nil {
		killGroup(cmd)
		return s.withStderr(err)
	}
	up := time.Now()
	ended := make(chan struct{})
	go func() { _ = cs.Wait(); close(ended) }()
	select {
	case <-s.stop:
	case <-ended:
	}
	s.mu.Lock()
	s.cs = nil
	s.mu.Unlock()
	closeErr := cs.Close()
	killGroup(cmd)
	if s.stopped() {
		return nil
	}
	err = errors.New("the connection ended")
	if s.cfg.Transport == Stdio {
		err = errors.New("the server exited")
		if closeErr != nil {
			err = fmt.Errorf("the server exited: %v", closeErr)
		}
	}
	err = s.withStderr(err)
	if time.Since(up) >= s.opts.MaxBackoff {
		return stable{err}
	}
	return err
}

func (s *server) withStderr(err error) error {
	if tail := s.stderr.take(); tail != "" {
		return fmt.Errorf("%w; stderr: %s", err, tail)
	}
	return err
}

// connect starts the server (or opens the connection), initializes the
// session and lists the tools.
func (s *server) connect() (*sdk.ClientSession, *exec.Cmd, error) {
	ctx, cancel := context.WithTimeout(s.stopCtx, s.opts.ConnectTimeout)
	defer cancel()
	opts := &sdk.ClientOptions{
		ToolListChangedHandler:      func(context.Context, *sdk.ToolListChangedRequest) { go s.refreshTools() },
		ProgressNotificationHandler: s.onProgress,
		Logger:                      s.log,
	}
	var transport sdk.Transport
	var cmd *exec.Cmd
	if s.cfg.Transport == Stdio {
		var err error
		if cmd, err = stdioCommand(s.cfg, s.dir, s.environ); err != nil {
			return nil, nil, err
		}
		cmd.Stderr = s.stderr
		transport = &sdk.CommandTransport{Command: cmd, TerminateDuration: stdioTerminate}
	} else {
		// A remote server has no access to the workspace: no roots.
		opts.Capabilities = &sdk.ClientCapabilities{}
		transport = httpTransport(s.cfg, s.opts.HTTPTransport)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "toold", Version: s.opts.Version}, opts)
	if s.cfg.Transport == Stdio {
		client.AddRoots(&sdk.Root{Name: "workspace", URI: (&url.URL{Scheme: "file", Path: s.dir}).String()})
	}
	cs, err := client.Connect(ctx, transport, &sdk.ClientSessionOptions{ProtocolVersion: legacyProtocol})
	if err != nil {
		return nil, cmd, s.connectError("start", ctx, err)
	}
	tools, err := s.listTools(ctx, cs)
	if err != nil {
		cs.Close()
		return nil, cmd, s.connectError("list tools of", ctx, err)
	}
	s.mu.Lock()
	s.cs, s.tools = cs, tools
	s.mu.Unlock()
	s.setState(StateConnected, "")
	s.log.Info("mcp server connected", "transport", string(s.cfg.Transport), "tools", len(tools))
	s.opts.OnChange(s.sessionID)
	return cs, cmd, nil
}

func (s *server) connectError(what string, ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("could not %s the server within %s: %w", what, s.opts.ConnectTimeout, err)
	}
	return fmt.Errorf("could not %s the server: %w", what, err)
}

// listTools lists the server's tools as toold tools, sorted by name. Two
// tools whose names normalise alike keep the first in the server's order.
func (s *server) listTools(ctx context.Context, cs *sdk.ClientSession) ([]*Tool, error) {
	var out []*Tool
	seen := map[string]bool{}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		mt := newTool(s.cfg.Name, t, s.opts.CallTimeout, s)
		if seen[mt.def.Name] {
			s.log.Warn("mcp tool name taken by another tool of the server", "tool", t.Name, "name", mt.def.Name)
			continue
		}
		seen[mt.def.Name] = true
		out = append(out, mt)
	}
	slices.SortFunc(out, func(a, b *Tool) int { return strings.Compare(a.def.Name, b.def.Name) })
	return out, nil
}

// refreshTools answers tools/list_changed. It runs on its own goroutine:
// the notification handler may not wait for a request of the same
// connection.
func (s *server) refreshTools() {
	s.mu.Lock()
	cs := s.cs
	s.mu.Unlock()
	if cs == nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.stopCtx, s.opts.ConnectTimeout)
	defer cancel()
	tools, err := s.listTools(ctx, cs)
	if err != nil {
		s.log.Warn("mcp server tools/list after list_changed failed", "error", err.Error())
		return
	}
	s.mu.Lock()
	if s.cs != cs {
		s.mu.Unlock()
		return
	}
	s.tools = tools
	s.mu.Unlock()
	s.log.Info("mcp server tools changed", "tools", len(tools))
	s.opts.OnChange(s.sessionID)
}

// settle waits until the server is past starting: connected, or known to
// be unavailable. A server that has been failed for MaxBackoff is given
// another attempt first (at most one per MaxBackoff, so that a server
// that is down for good costs a listing or a call no more than that);
// wait says whether to wait for that attempt or to let it run in the
// background.
func (s *server) settle(ctx context.Context, wait bool) {
	s.start()
	kicked := false
	for {
		s.mu.Lock()
		st, ch, since := s.state, s.changed, s.since
		s.mu.Unlock()
		switch st {
		case StateConnected, StateRestarting, StateStopped:
			return
		case StateFailed:
			if kicked || time.Since(since) < s.opts.MaxBackoff {
				return
			}
			kicked = true
			select {
			case s.kick <- struct{}{}:
			default:
			}
			if !wait {
				return
			}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

// session returns the live connection, or why there is none.
func (s *server) session(ctx context.Context) (*sdk.ClientSession, error) {
	wait, cancel := context.WithTimeout(ctx, s.opts.ConnectTimeout)
	defer cancel()
	s.settle(wait, true)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cs != nil && s.state == StateConnected {
		return s.cs, nil
	}
	return nil, &UnavailableError{Server: s.cfg.Name, State: s.state, LastError: s.lastErr}
}

func (s *server) callTool(ctx context.Context, name string, args json.RawMessage, progress tool.Progress) (*sdk.CallToolResult, error) {
	cs, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	params := &sdk.CallToolParams{Name: name, Arguments: args}
	token := "toold-" + strconv.FormatUint(s.seq.Add(1), 10)
	params.SetProgressToken(token)
	s.progMu.Lock()
	s.progress[token] = progress
	s.progMu.Unlock()
	defer func() {
		s.progMu.Lock()
		delete(s.progress, token)
		s.progMu.Unlock()
	}()
	return cs.CallTool(ctx, params)
}

// onProgress passes a server's progress notification to the call it is
// about, as a progress message.
func (s *server) onProgress(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	p := req.Params
	token, _ := p.ProgressToken.(string)
	s.progMu.Lock()
	sink := s.progress[token]
	s.progMu.Unlock()
	if sink == nil {
		return
	}
	msg := strconv.FormatFloat(p.Progress, 'f', -1, 64)
	if p.Total > 0 {
		msg += "/" + strconv.FormatFloat(p.Total, 'f', -1, 64)
	}
	if p.Message != "" {
		msg += " " + p.Message
	}
	sink.Message(msg)
}

// snapshot returns the server's last known tools and its state.
func (s *server) snapshot() ([]*Tool, ServerState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools, ServerState{
		Name: s.cfg.Name, Transport: s.cfg.Transport, Scope: s.cfg.Scope,
		State: s.state, LastError: s.lastErr, Tools: len(s.tools), Restarts: s.restarts, Since: s.since,
	}
}
