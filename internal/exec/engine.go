package exec

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/strictjson"
	"github.com/toold/toold/internal/telemetry"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/workspace"
)

// Config is what the engine is built from.
type Config struct {
	Registry *tool.Registry
	// Tools, when set, finds the tools of a session beyond the registry
	// (its MCP tools).
	Tools  ToolSource
	Store  store.Store
	Policy policy.Decider
	// MaxConcurrency bounds how many concurrency-safe calls of one batch
	// run at once (default 10, as Claude Code's).
	MaxConcurrency int
	// MaxResultChars cuts a result's text blocks (default 100000).
	MaxResultChars int
	// InputLimits bound the nesting and the values of a call's JSON input
	// (zero fields: strictjson's defaults); an input over them is an
	// invalid-input result, refused before it is decoded.
	InputLimits strictjson.Limits
	// StrictInputJSON refuses input text with a duplicate key, or that is
	// not a JSON object, as invalid. By default it is read as Claude Code
	// reads it: the last of duplicate keys wins, and a value that is not
	// an object is spread into one (see lenientObject).
	StrictInputJSON bool
	// Environ is the environment of every process a call starts.
	Environ []string
	// FileOwner, when set, owns what the file tools create in a session's
	// directories (the sandbox user, so that its commands can change them).
	FileOwner *workspace.Owner
	// Interceptors run after the policy stage, around the tool (audit,
	// quotas), outermost first; the PostToolUse hooks are inside them.
	Interceptors []Interceptor
	// Hooks, when set, runs Claude Code's hooks around each call: see
	// hooks_stage.go for where each event fires.
	Hooks HookRunner
	// Ask governs permission requests and denial tracking.
	Ask AskConfig
	// Asker, when set, answers the calls the policy leaves at ask instead
	// of PersonAsk: the seam for an automatic judge.
	Asker Asker
	// Capabilities are what Policy can do beyond deciding; nil: what it
	// declares (CapabilitiesOf).
	Capabilities *PolicyCapabilities
	// Delegate governs the calls the orchestrator completes.
	Delegate DelegateConfig
	// Journal governs exactly-once calls and stored events.
	Journal JournalConfig
	// Cancels, when set, carries Cancel's requests to every replica (see
	// CancelBus); its subscriber must call CancelLocal.
	Cancels CancelBus
	Logger  *slog.Logger
	// Telemetry records a span and a latency sample per call stage and
	// the call metrics (nil: nothing is recorded).
	Telemetry *telemetry.Recorder
	// OnDecision, when set, is told every permission decision (the audit
	// log), after the policy stage made it and before the call runs.
	OnDecision func(ctx context.Context, c *Call, dec policy.Decision)
}

// Engine executes batches of tool calls.
type Engine struct {
	cfg Config
	callPath
	caps     PolicyCapabilities
	files    *workspaceCache
	active   *activeCalls
	leases   *leases
	sessions *sessionCache
	owners   *owners
	cancels  *callCancels
	// schemas re-validates input that a hook rewrote.
	schemas *schemas
	workers *callWorkers
}

// NewEngine compiles every tool's schema and assembles the call path.
func NewEngine(cfg Config) (*Engine, error) {
	if cfg.Registry == nil || cfg.Store == nil || cfg.Policy == nil {
		return nil, errors.New("exec: Registry, Store and Policy are required")
	}
	if cfg.MaxConcurrency <= 0 {
		cfg.MaxConcurrency = 10
	}
	if cfg.MaxResultChars <= 0 {
		cfg.MaxResultChars = 100_000
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.InputLimits = cfg.InputLimits.WithDefaults()
	cfg.Ask.defaults()
	cfg.Delegate.defaults(cfg.Ask.Pending)
	cfg.Journal.defaults()
	sch, err := compileSchemas(cfg.Registry, cfg.InputLimits)
	if err != nil {
		return nil, err
	}
	caps := CapabilitiesOf(cfg.Policy)
	if cfg.Capabilities != nil {
		caps = *cfg.Capabilities
	}
	e := &Engine{cfg: cfg, caps: caps, files: newWorkspaceCache(cfg.FileOwner, cfg.Logger), active: newActiveCalls(), sessions: newSessionCache(100_000), owners: newOwners(100_000), cancels: newCallCancels(), workers: newCallWorkers()}
	e.leases = newLeases(e)
	sch.strictJSON = cfg.StrictInputJSON
	e.schemas = sch

	e.callPath = newCallPath(&e.cfg, sch, caps, e.delegated)
	return e, nil
}

// Execute runs one batch for a session and reports to sink. It returns an
// error only when the batch cannot start at all (no such session, state
// unavailable, a tool_use_id reused for another call: store.ErrCallConflict);
// every call's own failure is an in-band result.
//
// Starting the batch is one store step: it reads the session and claims
// every call. A call another request already ran is replayed from the
// journal; one running elsewhere is followed; only the claimed ones run.
// A batch of repeatable calls (reads) on a session this replica has seen
// skips that step: it runs on the cached session and each call is
// recorded after it ran, if the session has not changed meanwhile.
func (e *Engine) Execute(ctx context.Context, sessionID string, reqs []Request, sink Sink) error {
	if err := e.checkOwner(ctx, sessionID); err != nil {
		return err
	}
	var prep *prepared
	if sess := e.sessions.get(sessionID); sess != nil {
		rest, p, err := e.unclaimed(ctx, sess, reqs, sink)
		if err != nil || len(rest) == 0 {
			return err
		}
		reqs, prep = rest, p
	}
	return e.claimed(ctx, sessionID, reqs, sink, prep)
}

// prepared is a batch whose calls were prepared (looked up, validated,
// parsed, analysed) on a session as it was at ETag sess.ETag.
type prepared struct {
	sess  *store.Session
	calls []*Call
	errs  []error
}

// reusable reports whether the preparation still holds for sess: the
// session has not changed since (its rules, its tools, its directories).
func (p *prepared) reusable(sess *store.Session) bool {
	return p != nil && p.sess.ETag != "" && p.sess.ETag == sess.ETag && p.sess.ID == sess.ID
}

// claimed runs a batch the regular way: claim, then run or follow. prep,
// when it holds for the claimed session, is the batch already prepared.
func (e *Engine) claimed(ctx context.Context, sessionID string, reqs []Request, sink Sink, prep *prepared) error {
	owner := e.newOwner()
	claims := make([]store.Claim, len(reqs))
	for i, r := range reqs {
		claims[i] = store.Claim{ToolUseID: r.ToolUseID, Fingerprint: fingerprint(r)}
	}
	sess, claimed, err := e.cfg.Store.BeginCalls(ctx, sessionID, owner, claims, e.cfg.Journal.Times)
	if err != nil {
		e.storeFailed(ctx, "begin_calls", err)
		return err
	}
	e.sessions.put(sess)
	ctx, done := e.active.add(ctx, sessionID)
	defer done()
	files, err := e.files.get(sess)
	if err != nil {
		e.releaseAll(ctx, sessionID, owner, reqs, claimed)
		return fmt.Errorf("%w: %w", ErrWorkspace, err)
	}

	calls := make([]*Call, len(reqs))
	prepErr := make([]error, len(reqs))
	streamless := isStreamless(sink)
	reuse := prep.reusable(sess) && len(prep.calls) == len(reqs)
	for i, r := range reqs {
		var c *Call
		if reuse {
			// Prepared once already, on this very session.
			c, prepErr[i] = prep.calls[i], prep.errs[i]
			c.Session, c.Files, c.Sink, c.unclaimed = sess, files, sink, false
		} else {
			c = &Call{Request: r, Session: sess, Files: files, Sink: sink}
			_, prepErr[i] = e.prepare(ctx, c)
		}
		c.streamless = streamless
		calls[i] = c
		if claimed[i].Owned() {
			ref := store.CallRef{SessionID: sessionID, ToolUseID: r.ToolUseID}
			e.leases.add(owner, ref)
			// Cancellable from the claim on, also while it waits its turn.
			var stop func()
			c.runCtx, stop = e.cancels.track(ctx, ref)
			defer stop()
		}
	}
	groups := partition(calls, prepErr, claimed)
	for n, g := range groups {
		i := g[0]
		switch {
		case !claimed[i].Owned():
			e.runOrFollow(ctx, calls[i], prepErr[i], owner)
		case len(g) == 1:
			e.one(ctx, calls[i], prepErr[i], owner)
		default:
			e.concurrently(ctx, calls, g, owner)
		}
		for _, i := range g {
			if c := calls[i]; c.needsStream {
				// What follows would run out of the model's order.
				e.releaseRest(ctx, calls, claimed, owner, g[len(g)-1]+1)
				return &NeedsStreamError{ToolUseID: c.ToolUseID, Tool: c.ToolName(), Delegated: c.Def.Delegated}
			}
		}
		if movedSession(calls, prepErr, g) {
			e.prepareAgain(ctx, sessionID, calls, prepErr, claimed, groups[n+1:])
		}
	}
	return nil
}

// movedSession reports whether a call of group g changes the session's
// directories or mode (tool.Definition.MovesSession) and ran.
func movedSession(calls []*Call, prepErr []error, g []int) bool {
	for _, i := range g {
		if prepErr[i] == nil && calls[i].Def.MovesSession {
			return true
		}
	}
	return false
}

// prepareAgain prepares the calls of the groups still to run on the
// session as a call of the batch left it (an EnterWorktree moves the
// session into its worktree: the calls after it work there, as in Claude
// Code, whose calls of one turn run in order). A call that cannot be
// prepared again gets that error as its result.
func (e *Engine) prepareAgain(ctx context.Context, sessionID string, calls []*Call, prepErr []error, claimed []store.ClaimResult, rest [][]int) {
	if len(rest) == 0 {
		return
	}
	e.sessions.drop(sessionID)
	sess, err := e.cfg.Store.GetSession(ctx, sessionID)
	var files *workspace.Workspace
	if err == nil {
		files, err = e.files.get(sess)
	}
	for _, g := range rest {
		for _, i := range g {
			if !claimed[i].Owned() {
				continue
			}
			old := calls[i]
			if err != nil {
				prepErr[i] = fmt.Errorf("%w: %w", ErrWorkspace, err)
				continue
			}
			c := &Call{Request: old.Request, Session: sess, Files: files, Sink: old.Sink, runCtx: old.runCtx, streamless: old.streamless}
			_, prepErr[i] = e.prepare(ctx, c)
			calls[i] = c
		}
	}
}

// releaseAll gives back the claims of a batch that could not start.
func (e *Engine) releaseAll(ctx context.Context, sessionID, owner string, reqs []Request, claimed []store.ClaimResult) {
	ctx = context.WithoutCancel(ctx)
	for i, r := range reqs {
		if claimed[i].Owned() {
			ref := store.CallRef{SessionID: sessionID, ToolUseID: r.ToolUseID}
			if err := e.cfg.Store.ReleaseCall(ctx, ref, owner); err != nil {
				e.cfg.Logger.Error("releasing a call failed", "session_id", sessionID, "tool_use_id", r.ToolUseID, "error", err)
			}
		}
	}
}

// ErrWorkspace wraps a failure to open a session's directories.
var ErrWorkspace = errors.New("session workspace unavailable")

func (e *Engine) concurrently(ctx context.Context, calls []*Call, idx []int, owner string) {
	e.bounded(len(idx), func(k int) { e.one(ctx, calls[idx[k]], nil, owner) })
}

// bounded runs fn(0) ... fn(n-1), at most MaxConcurrency at once, and
// returns when all have. A single one runs on the caller's goroutine.
func (e *Engine) bounded(n int, fn func(int)) {
	if n == 1 {
		fn(0)
		return
	}
	sem := make(chan struct{}, e.cfg.MaxConcurrency)
	var wg sync.WaitGroup
	for k := range n {
		sem <- struct{}{}
		wg.Add(1)
		e.workers.run(func() {
			defer func() { <-sem; wg.Done() }()
			fn(k)
		})
	}
	wg.Wait()
}

// one runs a single call the batch owns to its result event, through the
// call's log. A call whose preparation failed reports that failure without
// running.
func (e *Engine) one(ctx context.Context, c *Call, prepErr error, owner string) {
	if c.runCtx == nil {
		var stop func()
		c.runCtx, stop = e.cancels.track(ctx, store.CallRef{SessionID: c.Session.ID, ToolUseID: c.ToolUseID})
		defer stop()
	}
	// A cancelled batch context cancels its children one by one: a call
	// whose own context is not cancelled yet must not start in between.
	outer := ctx
	ctx = c.runCtx
	c.started = time.Now()
	log := e.newCallLog(c.Session.ID, c.ToolUseID, owner, c.Sink)
	c.Sink, c.log = log, log
	var res *tool.Result
	err := prepErr
	if err == nil {
		switch {
		case ctx.Err() != nil:
			err = ctx.Err()
		case outer.Err() != nil:
			err = outer.Err()
		default:
			res, err = e.safeRun(ctx, c)
		}
	}
	if errors.Is(err, errNeedsStream) {
		c.needsStream = true
		log.abandon(ctx)
		return
	}
	res = e.shapeCall(ctx, c, log, res, err)
	dur := time.Since(c.started)
	if res.IsError {
		e.cfg.Logger.LogAttrs(ctx, slog.LevelInfo, "tool call failed",
			slog.String("session_id", c.Session.ID), slog.String("tool_use_id", c.ToolUseID),
			slog.String("tool", c.ToolName()), slog.String("kind", res.Kind.String()), slog.Duration("duration", dur))
	}
	if cwd := log.cwd(); cwd != "" {
		// Later calls of the batch start where this one left off; the
		// cached session is out of date.
		c.Session.Cwd = cwd
		e.sessions.drop(c.Session.ID)
	}
	e.persisted(ctx, c, res, func(ctx context.Context) bool {
		// A call cancelled before it started is released so that a retry
		// runs it, unless Cancel named it: then it stays cancelled.
		release := res.Kind == tool.KindCancelled && !cancelRequested(ctx)
		log.finish(ctx, Event{ToolUseID: c.ToolUseID, Result: &Outcome{Result: res, Duration: dur}}, release)
		return true
	})
}

// safeRun keeps a panicking tool from taking the batch (and the server)
// down: the call gets an internal error result.
func (e *Engine) safeRun(ctx context.Context, c *Call) (res *tool.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			e.cfg.Logger.Error("tool panicked", "tool", c.ToolName(), "tool_use_id", c.ToolUseID, "panic", p)
			res, err = nil, tool.Errorf(tool.KindInternal, "The tool failed unexpectedly; the error has been logged.")
		}
	}()
	return e.run(ctx, c)
}

// partition groups call indexes: consecutive concurrency-safe calls form
// one group, every other call is a group of its own. A call the batch does
// not own (replayed or followed) is a group of its own too, so that what
// follows it waits for its result as it would have waited for its run.
func partition(calls []*Call, prepErr []error, claimed []store.ClaimResult) [][]int {
	var groups [][]int
	for i, c := range calls {
		safe := claimed[i].Owned() && prepErr[i] == nil && c.Invocation != nil && c.Invocation.Traits().ConcurrencySafe
		n := len(groups)
		if safe && n > 0 && groupSafe(calls, prepErr, groups[n-1]) {
			groups[n-1] = append(groups[n-1], i)
			continue
		}
		groups = append(groups, []int{i})
	}
	return groups
}

func groupSafe(calls []*Call, prepErr []error, g []int) bool {
	i := g[0]
	return prepErr[i] == nil && calls[i].Invocation != nil && calls[i].Invocation.Traits().ConcurrencySafe
}

// CancelSession cancels every running call of the session and waits (up to
// the context's deadline) until they have finished, so that their processes
// are gone when it returns. The session's workspace handles are released.
func (e *Engine) CancelSession(ctx context.Context, sessionID string) error {
	err := e.active.cancel(ctx, sessionID, ErrSessionDeleted)
	e.files.drop(sessionID)
	e.sessions.drop(sessionID)
	if f := e.caps.Forgetter; f != nil {
		f.Forget(sessionID)
	}
	return err
}

// Close stops the engine's background work (lease renewal); call it after
// Shutdown.
func (e *Engine) Close() { e.leases.close() }

// Shutdown cancels every running call and waits for them, bounded by ctx.
func (e *Engine) Shutdown(ctx context.Context) error {
	err := e.active.cancel(ctx, "", ErrShuttingDown)
	e.files.closeAll()
	return err
}
