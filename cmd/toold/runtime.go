package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/toold/toold/internal/notify"
	"github.com/toold/toold/internal/sandbox"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/filestate"
	"github.com/toold/toold/internal/tools/read"
	"github.com/toold/toold/internal/tools/shells"
	"github.com/toold/toold/internal/tools/skill"
	"github.com/toold/toold/internal/tools/webfetch"
	"github.com/toold/toold/internal/tools/worktree"
	"github.com/toold/toold/internal/workspace"
)

// runtimeFlags are the flags of what tools keep beyond one call: the
// background shells and WebFetch.
type runtimeFlags struct {
	shellDir       *string
	shellOutputCap *byteSize
	maxShells      *int

	fetchAllow    *string
	fetchTimeout  *time.Duration
	fetchMaxBytes *byteSize
	fetchCacheTTL *time.Duration
	fetchKeepHTTP *bool

	requireRead *bool
	multiEdit   *bool
	todoWrite   *bool
	// bashTimeoutKills keeps the kill at the timeout for every command.
	bashTimeoutKills *bool
	readMaxTokens    *int
}

func addRuntimeFlags(fs *flag.FlagSet) *runtimeFlags {
	f := &runtimeFlags{
		shellDir:         fs.String("shell-dir", os.TempDir(), "where background shells keep their output"),
		shellOutputCap:   new(byteSize),
		maxShells:        fs.Int("max-background-shells", shells.DefaultMaxShells, "background shells one session keeps, running or ended"),
		fetchAllow:       fs.String("webfetch-allow-cidr", "", "comma-separated CIDR prefixes or addresses WebFetch may reach although they are loopback, private or link-local"),
		fetchTimeout:     fs.Duration("webfetch-timeout", webfetch.DefaultTimeout, "time limit of one WebFetch call"),
		fetchMaxBytes:    new(byteSize),
		fetchCacheTTL:    fs.Duration("webfetch-cache-ttl", webfetch.DefaultCacheTTL, "how long a fetched page is served from the cache (0: no cache)"),
		fetchKeepHTTP:    fs.Bool("webfetch-keep-http", false, "fetch http URLs as they are instead of upgrading them to https"),
		requireRead:      fs.Bool("require-read-before-write", false, "Write, Edit and MultiEdit refuse to change an existing file the model has not read in the session, or that changed on disk since it read it (Claude Code writes a file never read, and edits a changed one)"),
		bashTimeoutKills: fs.Bool("bash-timeout-kills", false, "kill every Bash command at its timeout (Claude Code kills only a command whose first word is sleep, and moves any other to the background, where it keeps running)"),
		readMaxTokens:    fs.Int("read-max-tokens", 0, "cap a text Read at this many estimated tokens (four characters each), as Claude Code does when the Messages API cannot count them: over it a read with a limit is refused and one without is cut to the lines that fit in 85% of the cap; 0 (the default) applies no cap, as Claude Code with a working API returns files its count allows"),
		multiEdit:        fs.Bool("multiedit", false, "offer the MultiEdit tool (several edits of one file in one call, all or nothing), which Claude Code 2.1.332 does not have"),
		todoWrite:        fs.Bool("todowrite", false, "offer TodoWrite instead of the task list tools (TaskCreate, TaskGet, TaskList, TaskUpdate), as Claude Code does with CLAUDE_CODE_ENABLE_TASKS=0; without it TodoWrite is deferred (listed by name only, loaded with ToolSearch) and still runs when called"),
	}
	*f.shellOutputCap = shells.DefaultMaxOutputBytes
	*f.fetchMaxBytes = webfetch.DefaultMaxBytes
	fs.Var(f.shellOutputCap, "shell-output-cap", "output kept per background shell; past it the oldest part is dropped")
	fs.Var(f.fetchMaxBytes, "webfetch-max-bytes", "largest response body WebFetch reads")
	return f
}

// runtimeConfig is the checked form of runtimeFlags.
type runtimeConfig struct {
	Shells   shells.Options
	WebFetch webfetch.Options
	// Files is the read-before-write rule of the file tools.
	Files filestate.Policy
	// MultiEdit offers the MultiEdit tool.
	MultiEdit bool
	// TodoWrite offers TodoWrite in place of the task list tools.
	TodoWrite bool
	// BashTimeoutKills kills every Bash command at its timeout.
	BashTimeoutKills bool
	// Read configures the Read tool.
	Read read.Options
}

func (f *runtimeFlags) config() (runtimeConfig, error) {
	allow, err := webfetch.ParseCIDRs(splitList(*f.fetchAllow))
	if err != nil {
		return runtimeConfig{}, fmt.Errorf("--webfetch-allow-cidr: %w", err)
	}
	switch {
	case *f.shellOutputCap < 1<<10 || *f.shellOutputCap > 1<<40:
		return runtimeConfig{}, fmt.Errorf("--shell-output-cap %s: want 1KiB..1TiB", f.shellOutputCap)
	case *f.maxShells < 1 || *f.maxShells > 10000:
		return runtimeConfig{}, fmt.Errorf("--max-background-shells %d: want 1..10000", *f.maxShells)
	case *f.fetchTimeout <= 0:
		return runtimeConfig{}, fmt.Errorf("--webfetch-timeout %s: want a positive duration", *f.fetchTimeout)
	case *f.fetchMaxBytes < 1<<10 || *f.fetchMaxBytes > 1<<30:
		return runtimeConfig{}, fmt.Errorf("--webfetch-max-bytes %s: want 1KiB..1GiB", f.fetchMaxBytes)
	case *f.readMaxTokens < 0:
		return runtimeConfig{}, fmt.Errorf("--read-max-tokens %d: want 0 (no cap) or more", *f.readMaxTokens)
	case *f.fetchCacheTTL < 0:
		return runtimeConfig{}, fmt.Errorf("--webfetch-cache-ttl %s: want 0 (no cache) or a positive duration", *f.fetchCacheTTL)
	}
	ttl := *f.fetchCacheTTL
	if ttl == 0 {
		ttl = -1 // webfetch: negative turns the cache off
	}
	return runtimeConfig{
		Shells: shells.Options{Dir: *f.shellDir, MaxOutputBytes: int64(*f.shellOutputCap), MaxShells: *f.maxShells},
		WebFetch: webfetch.Options{
			AllowCIDRs: allow, Timeout: *f.fetchTimeout, MaxBytes: int64(*f.fetchMaxBytes),
			CacheTTL: ttl, KeepHTTP: *f.fetchKeepHTTP,
		},
		Files:     filestate.Policy{RequireRead: *f.requireRead},
		MultiEdit: *f.multiEdit,
		TodoWrite: *f.todoWrite,
		Read:      read.Options{MaxTokens: *f.readMaxTokens},

		BashTimeoutKills: *f.bashTimeoutKills,
	}, nil
}

// toolRuntime is what the built-in tools hold across calls and sessions:
// the sandbox that runs every command, the background shells and
// WebFetch's connections and page cache.
type toolRuntime struct {
	sandbox  *sandbox.Launcher
	shells   *shells.Registry
	webfetch *webfetch.Tool
	files    filestate.Policy
	multi    bool
	// todoWrite: TodoWrite in place of the task list tools.
	todoWrite bool
	// tasks keeps each session's task list: the state store.
	tasks store.TaskLists
	// agents keeps each session's background agents: the state store.
	agents store.AgentTasks
	// delegated are the tools the orchestrator completes, if offered.
	delegated []tool.Tool
	read      read.Options
	// bashTimeoutKills: Options.TimeoutKills of the Bash tool.
	bashTimeoutKills bool
	// skills is what the Skill tool and the permission check read.
	skills *skill.Catalog
	// worktrees makes the sessions' git worktrees; sessions is the store
	// the worktree tools move a session in (both set once the store and
	// the hooks are open).
	worktrees *worktree.Manager
	sessions  worktree.Sessions
	// notes queues the background tasks' notifications for the
	// orchestrator, in the state store (set once the store is open).
	notes *notify.Queue
}

func openToolRuntime(cfg *config, log *slog.Logger) (*toolRuntime, error) {
	launcher, err := newLauncher(cfg.Sandbox, log)
	if err != nil {
		return nil, err
	}
	reg, err := shells.New(cfg.Runtime.Shells)
	if err != nil {
		launcher.Close()
		return nil, err
	}
	return &toolRuntime{sandbox: launcher, shells: reg, webfetch: webfetch.New(cfg.Runtime.WebFetch),
		files: cfg.Runtime.Files, multi: cfg.Runtime.MultiEdit, read: cfg.Runtime.Read, delegated: cfg.Delegate.tools(), todoWrite: cfg.Runtime.TodoWrite,
		bashTimeoutKills: cfg.Runtime.BashTimeoutKills,
		skills:           cfg.Skills.catalog()}, nil
}

// fileOwner is who owns what the file tools create: the sandbox user
// when commands run as one, so that they can change those files.
func (r *toolRuntime) fileOwner() *workspace.Owner {
	st := r.sandbox.Status()
	if !r.sandbox.Enabled() || !st.UserSwitch {
		return nil
	}
	return &workspace.Owner{UID: st.UID, GID: st.GID}
}

// sessionEnded releases what a deleted session still holds: its shells
// first (they run under the sandbox), then its sandbox directory, then
// its cached pages.
func (r *toolRuntime) sessionEnded(log *slog.Logger) func(string) {
	return func(id string) {
		if err := errors.Join(r.shells.CloseSession(id), r.sandbox.CloseSession(id)); err != nil {
			log.Warn("releasing a deleted session's commands", "session", id, "error", err)
		}
		r.webfetch.DropSession(id)
	}
}

// Close kills what still runs and removes the runtime's files; on
// shutdown, after the engine has stopped the calls.
func (r *toolRuntime) Close() error {
	return errors.Join(r.shells.Close(), r.sandbox.Close(), r.webfetch.Close())
}
