package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/telemetry"
)

// hooksConfig is how hooks run; which hooks run comes from the hooks block
// of --settings (and, when WorkspaceSettings, of each workspace's
// .claude/settings.json and settings.local.json).
type hooksConfig struct {
	// WorkspaceSettings is its own switch, apart from
	// --read-workspace-settings: reading a workspace's permission rules
	// trusts its files to describe limits, running its hooks trusts them
	// with commands toold executes.
	WorkspaceSettings bool
	FailOpen          bool
	Timeout           time.Duration
	MaxOutput         int
}

type hooksFlags struct {
	workspace, failOpen *bool
	timeout             *time.Duration
	maxOutput           *int
}

func addHooksFlags(fs *flag.FlagSet) *hooksFlags {
	return &hooksFlags{
		workspace: fs.Bool("hooks-workspace-settings", false, "also run the hooks of each workspace's .claude/settings.json and settings.local.json (they come from the repository being worked on; only for trusted workspaces)"),
		failOpen:  fs.Bool("hooks-fail-open", false, "let a call through when one of its PreToolUse hooks crashes or times out (Claude Code's behaviour); by default such a call is blocked"),
		timeout:   fs.Duration("hooks-timeout", hooks.DefaultTimeout, "time limit of a hook without a \"timeout\" of its own"),
		maxOutput: fs.Int("hooks-max-output", hooks.DefaultMaxOutputBytes, "bytes kept of a hook's stdout and of its stderr; a hook writing more is killed and counts as failed"),
	}
}

func (f *hooksFlags) config() (hooksConfig, error) {
	c := hooksConfig{WorkspaceSettings: *f.workspace, FailOpen: *f.failOpen, Timeout: *f.timeout, MaxOutput: *f.maxOutput}
	if c.Timeout <= 0 {
		return c, fmt.Errorf("--hooks-timeout %s: want a positive duration", c.Timeout)
	}
	if c.MaxOutput < 1024 {
		return c, fmt.Errorf("--hooks-max-output %d: want 1024 or more", c.MaxOutput)
	}
	return c, nil
}

// newHooks builds the hook runner from the hooks block of the operator's
// settings file. A block that does not parse stops toold (exit 2): the
// operator would otherwise believe a gate in force that is not.
//
// The lines it returns say what of the settings file is not applied.
func newHooks(cfg *config, log *slog.Logger, tel *telemetry.Providers) (*hooks.Runner, []string, error) {
	if tel == nil {
		tel = telemetry.NoProviders()
	}
	tracer := telemetry.New(tel.Tracer, tel.Meter).Tracer()
	var settings *hooks.Config
	if cfg.Settings != "" {
		s, err := hooks.ParseSettingsFile(cfg.Settings)
		if err != nil {
			return nil, nil, configError{err}
		}
		settings = s
		for _, ev := range s.Inert {
			log.Warn("hooks of this event never run in toold", "event", ev, "why", hooks.InertReason(ev), "settings", cfg.Settings)
		}
	}
	warnings := warnSettings(cfg.Settings, settings, log)
	r, err := hooks.New(hooks.Options{
		Settings:              settings,
		ReadWorkspaceSettings: cfg.Hooks.WorkspaceSettings,
		DefaultTimeout:        cfg.Hooks.Timeout,
		FailOpen:              cfg.Hooks.FailOpen,
		MaxOutputBytes:        cfg.Hooks.MaxOutput,
		Environ:               exec.ProcessEnviron(),
		DialOptions: []grpc.DialOption{grpc.WithStatsHandler(otelgrpc.NewClientHandler(
			otelgrpc.WithTracerProvider(tel.Tracer), otelgrpc.WithMeterProvider(tel.Meter),
			otelgrpc.WithPropagators(propagation.TraceContext{}),
		))},
		OnAsync: func(rep hooks.Report) {
			exec.RecordHookRun(context.Background(), log, tracer, rep, slog.Bool("async", true))
		},
	})
	if err != nil {
		return nil, nil, configError{err}
	}
	return r, warnings, nil
}

// hookLifecycle fires SessionStart and SessionEnd for the session manager.
type hookLifecycle struct {
	r      *hooks.Runner
	log    *slog.Logger
	tracer trace.Tracer
}

var _ session.Lifecycle = hookLifecycle{}

func hookSession(s *store.Session) hooks.Session {
	return hooks.Session{ID: s.ID, Workspace: s.Workspace, Cwd: s.Cwd, PermissionMode: s.Mode}
}

// SessionStarted runs the SessionStart hooks (source "startup"). The API
// has no field to return their additionalContext in, so it is logged.
func (h hookLifecycle) SessionStarted(ctx context.Context, s *store.Session) {
	if !h.r.Enabled() {
		return
	}
	out, err := h.r.SessionStart(ctx, hooks.SessionStartEvent{Session: hookSession(s), Source: "startup"})
	h.record(ctx, s, out, err)
	for _, c := range out.AdditionalContext {
		h.log.Info("SessionStart hook context", "session_id", s.ID, "additional_context", c)
	}
}

// SessionEnded runs the SessionEnd hooks (reason "other": the client
// deleted the session) and forgets the session's hooks.
func (h hookLifecycle) SessionEnded(ctx context.Context, s *store.Session) {
	defer h.r.Forget(s.ID)
	if !h.r.Enabled() {
		return
	}
	out, err := h.r.SessionEnd(ctx, hooks.SessionEndEvent{Session: hookSession(s), Reason: "other"})
	h.record(ctx, s, out, err)
}

func (h hookLifecycle) record(ctx context.Context, s *store.Session, out hooks.SessionOutcome, err error) {
	if err != nil {
		h.log.Warn("session hooks could not be run", "session_id", s.ID, "error", err)
	}
	for _, rep := range out.Reports {
		exec.RecordHookRun(ctx, h.log, h.tracer, rep, slog.String("session_id", s.ID))
	}
	for _, m := range out.SystemMessages {
		h.log.Info("hook system message", "session_id", s.ID, "message", m)
	}
}
