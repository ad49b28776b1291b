package hooks

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"google.golang.org/grpc"
)

// Defaults, as Claude Code's where it has one.
const (
	// DefaultTimeout is a command hook's limit without a "timeout" of its
	// own (600 s since Claude Code 2.1.3).
	DefaultTimeout = 600 * time.Second
	// DefaultMaxOutputBytes caps what is kept of a hook's stdout and of
	// its stderr; a hook that writes more is killed and counts as failed.
	DefaultMaxOutputBytes = 1 << 20
	// sessionEndBudget is the time SessionEnd hooks share unless one of
	// them asks for more (up to sessionEndCeiling), as in Claude Code.
	sessionEndBudget  = 1500 * time.Millisecond
	sessionEndCeiling = 60 * time.Second
)

// Options configure a Runner.
type Options struct {
	// Settings are the operator's hooks (the --settings file), nil for
	// none. They stand for Claude Code's managed settings: always in
	// force, whatever a workspace says.
	Settings *Config
	// ReadWorkspaceSettings also runs the hooks of each workspace's
	// .claude/settings.json and .claude/settings.local.json. Off by
	// default: those commands come from the repository being worked on,
	// which the agent whose calls they would judge can write. The files
	// are read the first time a session fires an event on this replica.
	ReadWorkspaceSettings bool
	// DefaultTimeout applies to hooks without a "timeout"; 0 means
	// DefaultTimeout.
	DefaultTimeout time.Duration
	// FailOpen lets a PreToolUse call through when one of its hooks
	// fails (crashes, times out, cannot be run, prints output that does
	// not fit the schema): the failed hook then makes no decision, as in
	// Claude Code. Off by default: a failed gate blocks the call.
	FailOpen bool
	// MaxOutputBytes caps each of a hook's stdout and stderr; 0 means
	// DefaultMaxOutputBytes.
	MaxOutputBytes int
	// Environ is the base environment of command hooks (toold passes the
	// same allow-listed variables its tools get). CLAUDE_PROJECT_DIR is
	// added per session and OTEL_* variables are dropped.
	Environ []string
	// DialOptions are added to every gRPC hook connection (a stats
	// handler for tracing; a dialer in tests).
	DialOptions []grpc.DialOption
	// OnAsync receives the report of each "async": true hook when it
	// finishes. It may be called from any goroutine; nil drops them.
	OnAsync func(Report)
}

// Runner runs the hooks of the operator's settings (and, when enabled, of
// each session's workspace) for the events the engine fires. It is safe
// for concurrent use. Close it at shutdown; call Forget when a session is
// deleted.
type Runner struct {
	opts Options
	bash string

	mu       sync.Mutex
	conns    map[string]*grpc.ClientConn
	sessions map[string]*sessionHooks
	closed   bool

	asyncCtx    context.Context
	asyncCancel context.CancelFunc
	async       sync.WaitGroup
}

// sessionHooks is one session's view of the hooks.
type sessionHooks struct {
	workspace string
	cfg       *Config
	// once holds the "once": true handlers that already ran.
	once map[string]bool
}

// New builds a Runner. Settings must come from ParseSettings or
// ParseSettingsFile; command hooks need bash on the PATH.
func New(opts Options) (*Runner, error) {
	if opts.DefaultTimeout <= 0 {
		opts.DefaultTimeout = DefaultTimeout
	}
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if opts.Environ == nil {
		opts.Environ = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	}
	if opts.Settings == nil {
		opts.Settings = &Config{}
	}
	bash, err := exec.LookPath("bash")
	if err != nil && (hasCommandHooks(opts.Settings) || opts.ReadWorkspaceSettings) {
		return nil, fmt.Errorf("hooks: command hooks need bash: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Runner{
		opts: opts, bash: bash,
		conns: map[string]*grpc.ClientConn{}, sessions: map[string]*sessionHooks{},
		asyncCtx: ctx, asyncCancel: cancel,
	}, nil
}

func hasCommandHooks(c *Config) bool {
	for _, gs := range c.Groups {
		for _, g := range gs {
			for _, h := range g.Hooks {
				if h.Type == "command" {
					return true
				}
			}
		}
	}
	return false
}

// Enabled reports whether any hook could run: the engine may skip building
// events when it is false.
func (r *Runner) Enabled() bool {
	if r == nil || r.opts.Settings.DisableAllHooks {
		return false
	}
	return r.opts.ReadWorkspaceSettings || len(r.opts.Settings.Groups) > 0
}

// Forget drops what the runner holds for a session: its workspace hooks
// and which "once" hooks ran. Call it after SessionEnd, when the session
// is deleted.
func (r *Runner) Forget(sessionID string) {
	r.mu.Lock()
	delete(r.sessions, sessionID)
	r.mu.Unlock()
}

// Close kills running async hooks, waits for them, and closes the gRPC
// hook connections. Hooks of calls still running are ended by their
// callers' contexts.
func (r *Runner) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.asyncCancel()
	r.async.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	for k, c := range r.conns {
		errs = append(errs, c.Close())
		delete(r.conns, k)
	}
	return errors.Join(errs...)
}

// session returns the session's hooks, reading its workspace settings the
// first time when that is enabled.
func (r *Runner) session(s Session) (*sessionHooks, error) {
	r.mu.Lock()
	sh, ok := r.sessions[s.ID]
	r.mu.Unlock()
	if ok && sh.workspace == s.Workspace {
		return sh, nil
	}
	cfg := r.opts.Settings
	if r.opts.ReadWorkspaceSettings && !cfg.AllowManagedHooksOnly {
		ws, err := loadWorkspace(s.Workspace)
		if err != nil {
			return nil, err
		}
		cfg = Merge(cfg, ws)
	}
	sh = &sessionHooks{workspace: s.Workspace, cfg: cfg, once: map[string]bool{}}
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur, ok := r.sessions[s.ID]; ok && cur.workspace == s.Workspace {
		return cur, nil
	}
	if s.ID != "" {
		r.sessions[s.ID] = sh
	}
	return sh, nil
}

// task is one handler chosen to run for an event.
type task struct {
	group   *Group
	handler *Handler
	timeout time.Duration
}

// choose picks the handlers that run for an event: groups whose matcher
// matches, handlers whose `if` covers the call, each identical handler
// once, "once" handlers only the first time in the session.
func (r *Runner) choose(sh *sessionHooks, in input, te *ToolEvent) []task {
	if sh.cfg.DisableAllHooks {
		return nil
	}
	var tasks []task
	seen := map[string]bool{}
	for _, g := range sh.cfg.Groups[in.HookEventName] {
		if !g.match.matches(in.matchOn) {
			continue
		}
		for _, h := range g.Hooks {
			key := h.key()
			if seen[key] {
				continue
			}
			if h.If != "" && te != nil && !ifMatches(h.If, te) {
				continue
			}
			if h.Once && !r.markOnce(sh, key) {
				continue
			}
			seen[key] = true
			timeout := h.Timeout
			if timeout == 0 {
				timeout = r.opts.DefaultTimeout
			}
			tasks = append(tasks, task{group: g, handler: h, timeout: timeout})
		}
	}
	if in.HookEventName == SessionEnd {
		shareSessionEndBudget(tasks)
	}
	return tasks
}

func (r *Runner) markOnce(sh *sessionHooks, key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if sh.once[key] {
		return false
	}
	sh.once[key] = true
	return true
}

// shareSessionEndBudget gives SessionEnd hooks Claude Code's shared budget:
// 1.5 s, raised to the largest timeout a hook sets, at most 60 s.
func shareSessionEndBudget(tasks []task) {
	budget := sessionEndBudget
	for _, t := range tasks {
		if t.handler.Timeout > budget {
			budget = t.handler.Timeout
		}
	}
	budget = min(budget, sessionEndCeiling)
	for i := range tasks {
		tasks[i].timeout = min(tasks[i].timeout, budget)
	}
}

// ran is one finished hook run.
type ran struct {
	task
	attempt
	started  time.Time
	duration time.Duration
	// async: started in the background, nothing to judge yet.
	async bool
}

// runAll runs the tasks in parallel and returns their runs in task order.
// Async handlers start in the background and come back as StatusAsync.
func (r *Runner) runAll(ctx context.Context, tasks []task, in input) []ran {
	runs := make([]ran, len(tasks))
	var wg sync.WaitGroup
	for i, t := range tasks {
		if t.handler.Async {
			runs[i] = ran{task: t, attempt: attempt{exitCode: -1}, started: time.Now(), async: true}
			r.startAsync(t, in)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i] = r.runOne(ctx, t, in)
		}()
	}
	wg.Wait()
	return runs
}

func (r *Runner) runOne(ctx context.Context, t task, in input) ran {
	start := time.Now()
	var a attempt
	if t.handler.Type == "grpc" {
		a = r.runGRPC(ctx, t.handler, in, t.timeout)
	} else {
		a = r.runCommand(ctx, t.handler, in, t.timeout)
	}
	return ran{task: t, attempt: a, started: start, duration: time.Since(start)}
}

// startAsync runs an async hook on the runner's own context: it outlives
// the call (Claude Code does not wait for it) and dies with Close.
func (r *Runner) startAsync(t task, in input) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.async.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.async.Done()
		run := r.runOne(r.asyncCtx, t, in)
		if r.opts.OnAsync != nil {
			v := judge(run, in.HookEventName)
			r.opts.OnAsync(v.report)
		}
	}()
}
