// Command toold serves tool calls of AI agents over gRPC.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/toold/toold/internal/auth"
	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/notify"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/sandbox"
	"github.com/toold/toold/internal/server"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/store/redisstore"
	"github.com/toold/toold/internal/telemetry"
)

func main() {
	// Without toold-sandbox beside it, toold runs itself as the sandbox's
	// helper.
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	cfg, err := parseConfig(os.Args[1:], os.Getenv)
	var help errHelp
	switch {
	case errors.As(err, &help):
		fmt.Print(help.text)
		return
	case err != nil:
		fmt.Fprintf(os.Stderr, "toold: %v\n", err)
		os.Exit(2)
	}
	log := newLogger(cfg)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := run(ctx, cfg, log); err != nil {
		var ce configError
		if errors.As(err, &ce) {
			fmt.Fprintf(os.Stderr, "toold: %v\n", err)
			os.Exit(2)
		}
		log.Error("toold stopped", "error", err)
		os.Exit(1)
	}
}

// openStore opens the state store: Redis when --redis-url is set (it must
// answer now: a silent fallback to memory would split state across
// replicas), the in-memory store otherwise.
func openStore(ctx context.Context, cfg *config) (store.Store, string, error) {
	if cfg.RedisURL == "" {
		return memstore.New(), "memory", nil
	}
	rs, err := redisstore.Open(ctx, cfg.RedisURL, redisstore.Options{KeyPrefix: cfg.RedisKeyPrefix, SessionTTL: cfg.SessionTTL})
	if err != nil {
		return nil, "", fmt.Errorf("state store: %w", err)
	}
	return rs, "redis", nil
}

// configError is a configuration problem found while wiring (a settings
// file that does not parse): exit status 2, like a bad flag.
type configError struct{ error }

func (e configError) Unwrap() error { return e.error }

func newLogger(cfg *config) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "json" {
		return slog.New(logHandler(slog.NewJSONHandler(os.Stderr, opts)))
	}
	return slog.New(logHandler(slog.NewTextHandler(os.Stderr, opts)))
}

// run wires toold together, serves until ctx ends, then shuts down in
// order: health NOT_SERVING, graceful stop with a deadline, running calls
// killed, hard stop, store closed last.
func run(ctx context.Context, cfg *config, log *slog.Logger) error {
	// First in, last out: spans of the shutdown are flushed too.
	tel, stopTelemetry, err := startTelemetry(ctx, cfg.Telemetry, log)
	if err != nil {
		return err
	}
	defer stopTelemetry()
	st, storeName, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()

	rt, err := openToolRuntime(cfg, log)
	if err != nil {
		return err
	}
	// Deferred: runs after the server and the engine have stopped.
	defer func() {
		if err := rt.Close(); err != nil {
			log.Warn("closing the sandbox and background shells", "error", err)
		}
	}()
	rt.tasks = st
	rt.agents = st
	rt.sessions = st
	rt.notes = notify.New(st, log)
	// A background command's end is a notification for the model.
	rt.shells.OnEnd(rt.notes.ShellEnded)
	hookRunner, settingsWarnings, err := newHooks(cfg, log, tel)
	if err != nil {
		return err
	}
	defer hookRunner.Close()
	wm, wtWarnings, err := newWorktrees(cfg, rt.sandbox, hookRunner, log, tel)
	if err != nil {
		return err
	}
	rt.worktrees = wm
	settingsWarnings = append(settingsWarnings, wtWarnings...)
	reg, err := builtinTools(rt)
	if err != nil {
		return err
	}
	reg, catalog, err := withToolSearch(reg, cfg.ToolSearch)
	if err != nil {
		return err
	}
	pools, closePools, err := newToolPool(cfg, reg, log)
	if err != nil {
		return err
	}
	defer closePools()
	decider, err := policy.NewEngine(policy.Options{
		PolicyFile:               cfg.Settings,
		Flag:                     policy.Settings{Allow: cfg.AllowedTools, Deny: cfg.DisallowedTools},
		ReadWorkspaceFiles:       cfg.ReadWorkspaceSettings,
		StrictRules:              cfg.StrictRules,
		BareFileRulesCoverFamily: cfg.BareFileRulesCoverFamily,
		Skills:                   rt.skills,
		AutoMode:                 cfg.Classifier.enabled(),
	})
	if err != nil {
		return configError{err}
	}
	for _, w := range decider.StartWarnings() {
		log.Warn("permission rule ignored", "warning", w)
		settingsWarnings = append(settingsWarnings, w)
	}
	ask := exec.AskConfig{
		Timeout:      cfg.PermissionTimeout,
		DenialLimit:  cfg.DenialLimit,
		DenialWindow: cfg.DenialWindow,
	}
	offers := st.Offers()
	if offers.Pending != nil {
		// Any replica may answer a request that another one waits on.
		ask.Pending = sharedPending{offers.Pending(cfg.PermissionTimeout + time.Minute)}
	}
	var cancels exec.CancelBus
	if offers.Cancels != nil {
		// Cancel through any replica reaches the call wherever it runs.
		cancels = offers.Cancels
	}
	aud, err := openAudit(cfg.Audit, log)
	if err != nil {
		return err
	}
	defer aud.close()
	cls, err := newClassifier(cfg, st, log)
	if err != nil {
		return err
	}
	onDecision := aud.onDecision
	if cls != nil {
		defer cls.Close()
		ask.Classifier = cls
		// The classifier is told each session's recent decisions.
		onDecision = bothDecisions(aud.onDecision, cls.Observe)
	}
	rec := newConsoleRecorder(cfg, st, log)
	defer rec.close()
	// A session's deny rules remove tools from its pool (ListTools,
	// ToolSearch), as Claude Code's filterToolsByDenyRules does.
	pools.RemoveDenied(func(sess *store.Session, name string) bool {
		return decider.ToolRemoved(exec.RemovalRequest(sess), name)
	})
	recorder := telemetry.New(tel.Tracer, tel.Meter)
	engine, err := exec.NewEngine(exec.Config{
		Telemetry:       recorder,
		OnDecision:      rec.onDecision(onDecision),
		Interceptors:    aud.interceptors,
		Registry:        reg,
		Tools:           pools,
		Store:           rec.store(st),
		Policy:          decider,
		MaxConcurrency:  cfg.MaxToolConcurrency,
		InputLimits:     cfg.Limits.Input,
		StrictInputJSON: cfg.StrictInputJSON,
		Environ:         exec.ProcessEnviron(),
		FileOwner:       rt.fileOwner(),
		Logger:          log,
		Hooks:           hookRunner,
		Ask:             ask,
		Journal:         exec.JournalConfig{Times: store.CallTimes{Lease: cfg.CallLease, Keep: cfg.ResultTTL}},
		Cancels:         cancels,
		Delegate:        cfg.Delegate.engineConfig(st, rt.worktrees),
	})
	if err != nil {
		return err
	}
	if offers.Cancels != nil {
		stop, err := offers.Cancels.Subscribe(ctx, func(ref store.CallRef) { engine.CancelLocal(ref) })
		if err != nil {
			return fmt.Errorf("subscribing to cancel requests: %w", err)
		}
		defer stop()
	}
	sessions, err := session.NewManager(st, cfg.WorkspaceRoot, engine, decider)
	if err != nil {
		return err
	}
	sessions.SetLifecycle(hookLifecycle{hookRunner, log, recorder.Tracer()})
	sessions.SetLogger(log)
	// With authentication each tenant's workspaces live in its own tree.
	sessions.SetTenantTrees(cfg.Auth.Mode != auth.ModeNone)
	sessions.OnDelete(rt.sessionEnded(log))
	sessions.OnDelete(pools.CloseSession)
	if cls != nil {
		sessions.OnDelete(cls.Forget)
	}
	if cfg.TenantSettings != "" {
		sessions.SetTenantSettings(session.SettingsDir(cfg.TenantSettings))
	}
	if err := checkWorkspaceRoot(rt.sandbox, sessions.Root(), log); err != nil {
		return err
	}
	defer startSweeper(ctx, sessions, cfg.SweepInterval)()
	go exec.SweepLeftovers(ctx, log, sessions.Root())
	tools, err := server.NewToolService(reg, engine, sessions, cfg.MaxCallsPerRequest)
	if err != nil {
		return err
	}
	tools.WithPools(pools)
	tools.WithNotifications(st)
	catalog.session = tools.Definitions
	opts := server.Options{Logger: log, TracerProvider: tel.Tracer, MeterProvider: tel.Meter,
		Info:            server.ServerInfo{Version: version, Store: storeName, Sandbox: rt.sandbox, SettingsWarnings: settingsWarnings},
		AuthMode:        string(cfg.Auth.Mode),
		StreamKeepalive: cfg.StreamKeepalive,
		MaxRecvMsgSize:  cfg.Limits.MaxRequestBytes,
		InputLimits:     cfg.Limits.Input,
		Connections:     cfg.Connections,
	}
	// Authentication, TLS and rate limits; the limiter stops after the
	// server and before the store (deferred calls run in reverse).
	closeLimiter, err := cfg.Auth.apply(&opts, st, cfg.RedisKeyPrefix, log)
	if err != nil {
		return err
	}
	defer closeLimiter()
	sessionService := server.NewSessionService(sessions, engine)
	srv, health := server.New(opts, sessionService, tools)
	stopHealth, err := serveHealth(ctx, cfg.Auth.HealthListen, server.NewHealthOnly(health), log)
	if err != nil {
		return err
	}
	defer stopHealth()
	_, stopPprof, err := servePprof(cfg.PprofListen, log)
	if err != nil {
		return err
	}
	defer stopPprof()

	lis, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return err
	}
	log.Info("toold listening", "addr", lis.Addr().String(), "workspace_root", sessions.Root(), "store", storeName, "tools", len(reg.Tools()), "auth", cfg.Auth.Mode, "tls", opts.TLS != nil)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	stopMCP, err := serveMCP(cfg, opts.Authenticator, engine, sessions, tools, log)
	if err != nil {
		return err
	}
	stopConsole, err := serveConsole(cfg, opts.Authenticator, opts.TLS, st, sessions, sessionService, log)
	if err != nil {
		return err
	}
	if p := offers.Pinger; p != nil {
		go server.WatchHealth(ctx, health, p, 2*time.Second, log)
	}

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "timeout", cfg.ShutdownTimeout)
	health.Shutdown()
	// Watches would hold GracefulStop: their clients resume elsewhere.
	tools.StopWatches()
	drainDelay(cfg.DrainDelay, log)
	stopped := make(chan struct{})
	go func() { srv.GracefulStop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(cfg.ShutdownTimeout):
		log.Warn("shutdown deadline passed; killing running calls")
	}
	stopMCP()
	stopConsole()
	killCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := engine.Shutdown(killCtx); err != nil {
		log.Error("running calls did not stop", "error", err)
	}
	// The stopped calls' results are on their streams now; GracefulStop
	// ends once their handlers have returned, so that each stream closes
	// after its result with a status, not with a cut transport.
	select {
	case <-stopped:
	case <-killCtx.Done():
	}
	engine.Close()
	srv.Stop()
	return nil
}
