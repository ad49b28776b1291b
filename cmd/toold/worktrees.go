package main

import (
	"context"
	"log/slog"
	"os"
	"strings"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/sandbox"
	"github.com/toold/toold/internal/telemetry"
	"github.com/toold/toold/internal/tools/worktree"
)

// newWorktrees builds the Manager of EnterWorktree, ExitWorktree and
// subagents' worktrees: git confined by the sandbox, worktree.baseRef of
// the operator's settings file (a bad value stops toold, exit 2), and the
// WorktreeCreate and WorktreeRemove hooks of the hook runner. The lines it
// returns say what of the file's "worktree" object is not applied.
func newWorktrees(cfg *config, launcher *sandbox.Launcher, r *hooks.Runner, log *slog.Logger, tel *telemetry.Providers) (*worktree.Manager, []string, error) {
	opts := worktree.Options{Sandbox: launcher, WorkspaceSettings: cfg.ReadWorkspaceSettings}
	var warnings []string
	if cfg.Settings != "" {
		data, err := os.ReadFile(cfg.Settings)
		if err != nil {
			return nil, nil, configError{err}
		}
		s, ignored, err := worktree.ParseSettings(data)
		if err != nil {
			return nil, nil, configError{err}
		}
		opts.BaseRef = s.BaseRef
		if len(ignored) > 0 {
			log.Warn("worktree settings toold does not use are ignored", "settings", cfg.Settings, "keys", ignored)
			warnings = append(warnings, "ignored keys: "+strings.Join(ignored, ", "))
		}
	}
	if r != nil && r.Enabled() {
		opts.Hooks = r
		if tel == nil {
			tel = telemetry.NoProviders()
		}
		tracer := telemetry.New(tel.Tracer, tel.Meter).Tracer()
		opts.OnHook = func(ctx context.Context, sessionID string, rep hooks.Report) {
			exec.RecordHookRun(ctx, log, tracer, rep, slog.String("session_id", sessionID))
		}
	}
	return worktree.NewManager(opts), warnings, nil
}
