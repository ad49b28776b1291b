package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// Hooks runs the WorktreeCreate and WorktreeRemove hooks; *hooks.Runner
// implements it.
type Hooks interface {
	WorktreeCreate(ctx context.Context, e hooks.WorktreeCreateEvent) (hooks.WorktreeCreateOutcome, error)
	WorktreeRemove(ctx context.Context, e hooks.WorktreeRemoveEvent) (hooks.WorktreeRemoveOutcome, error)
}

var _ Hooks = (*hooks.Runner)(nil)

// HookError is a WorktreeCreate hook that made no worktree the session can
// use, worded as Claude Code words it.
type HookError struct{ Msg string }

func (e *HookError) Error() string { return e.Msg }

// HookRequest is a worktree hook's view of the session.
type HookRequest struct {
	Request
	// Workspace is the session's workspace: the hooks run there and find
	// it in $CLAUDE_PROJECT_DIR.
	Workspace string
	// HookSessionID is the session_id the hooks read; "": SessionID. A
	// subagent's worktree is asked for under its parent's, as Claude Code
	// asks under its own session for its agents (recorded).
	HookSessionID string
}

func (r HookRequest) session() hooks.Session {
	id := r.HookSessionID
	if id == "" {
		id = r.SessionID
	}
	return hooks.Session{ID: id, Workspace: r.Workspace, Cwd: r.Cwd}
}

// Make gives the session a worktree of the name req.Name (a generated one
// when empty): the WorktreeCreate hooks' when any is in force, else one
// git makes, or the existing one of that name resumed (Create). kind says
// which, as the session records it: store.WorktreeHook,
// store.WorktreeMade, or store.WorktreeEntered for a resumed worktree
// whose lock another holds (the session may leave it, not remove it).
// EnterWorktree and a subagent's isolation both come here.
func (m *Manager) Make(ctx context.Context, req HookRequest) (wt Worktree, kind string, err error) {
	if req.Name == "" {
		req.Name = randomName()
	} else if err := checkName(req.Name); err != nil {
		return Worktree{}, "", err
	}
	wt, ran, err := m.CreateByHook(ctx, req, req.Name)
	if ran {
		return wt, store.WorktreeHook, err
	}
	if err == nil {
		wt, err = m.Create(ctx, req.Request)
	}
	if err != nil {
		return Worktree{}, "", err
	}
	if wt.Guest {
		return wt, store.WorktreeEntered, nil
	}
	return wt, store.WorktreeMade, nil
}

// CreateByHook asks the WorktreeCreate hooks for the worktree named name.
// ran is false when no such hook is in force for the session: the caller
// makes the worktree with git then. When a hook answered, its path is
// checked as Claude Code checks it (a directory, not a link, and, inside a
// git repository, a checkout of its own) and as toold does (inside the
// session's workspace, its git directory too).
func (m *Manager) CreateByHook(ctx context.Context, req HookRequest, name string) (wt Worktree, ran bool, err error) {
	if m.opts.Hooks == nil {
		return Worktree{}, false, nil
	}
	out, err := m.opts.Hooks.WorktreeCreate(ctx, hooks.WorktreeCreateEvent{Session: req.session(), Name: name})
	m.record(ctx, req.SessionID, out.Reports)
	if err != nil {
		return Worktree{}, true, fmt.Errorf("the WorktreeCreate hooks could not be run: %w", err)
	}
	if !out.Ran {
		return Worktree{}, false, nil
	}
	if out.Path == "" {
		if len(out.Failures) > 0 {
			return Worktree{}, true, &HookError{Msg: "WorktreeCreate hook failed: " + strings.Join(out.Failures, "; ")}
		}
		return Worktree{}, true, &HookError{Msg: "WorktreeCreate hook failed: hook succeeded but returned no worktree path (command: echo the path to stdout; http/callback: return hookSpecificOutput.worktreePath)"}
	}
	wt, err = m.hookWorktree(ctx, req.Request, out.Path)
	return wt, true, err
}

// hookWorktree checks the path a WorktreeCreate hook printed (relative
// paths are the session directory's) and returns the worktree it names.
func (m *Manager) hookWorktree(ctx context.Context, req Request, printed string) (Worktree, error) {
	p := printed
	if !filepath.IsAbs(p) {
		p = filepath.Join(req.Cwd, p)
	}
	p = filepath.Clean(p)
	refuse := func(why string) error {
		return &HookError{Msg: "Refusing to use " + p + " as an isolation worktree: " + why}
	}
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return Worktree{}, &HookError{Msg: `Path "` + p + `" does not exist`}
	case err != nil:
		return Worktree{}, &HookError{Msg: `Path "` + p + `" cannot be examined: ` + err.Error()}
	case fi.Mode()&os.ModeSymlink != 0:
		return Worktree{}, refuse("it is a symbolic link, so the tree it would isolate into cannot be pinned down, so its git identity could not be verified. Isolation is refused rather than assumed — recreate the worktree (or remove the corrupt .git entry) and retry.")
	case !fi.IsDir():
		return Worktree{}, refuse("git could not be run to resolve it, so its git identity could not be verified. Isolation is refused rather than assumed — recreate the worktree (or remove the corrupt .git entry) and retry.")
	}
	primary, err := filepath.EvalSymlinks(req.Dirs[0])
	if err != nil {
		return Worktree{}, err
	}
	if real, err := filepath.EvalSymlinks(p); err != nil || real != p {
		return Worktree{}, refuse("a folder on the way to it is a symbolic link, so the tree it would isolate into cannot be pinned down. The WorktreeCreate hook has to print the folder's real path.")
	}
	if !within(p, primary) {
		return Worktree{}, &OutsideError{What: "worktree the WorktreeCreate hook made", Path: p}
	}
	top, err := m.revParse(ctx, req, p, "--show-toplevel")
	switch {
	case errors.Is(err, ErrNotRepo):
		// Another version control system's tree, or a plain folder.
		return Worktree{Path: p}, nil
	case err != nil:
		return Worktree{}, err
	case top != p:
		return Worktree{}, refuse("git resolves its working tree to " + top + " (a core.worktree redirect, or a checkout discovered above it), so commands run there would write outside the worktree. Remove the redirect, restore the worktree's own .git, or recreate the worktree, then retry.")
	}
	common, err := m.revParse(ctx, req, p, "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return Worktree{}, err
	}
	if !within(common, primary) {
		return Worktree{}, &OutsideError{What: "git directory of the worktree the WorktreeCreate hook made", Path: common}
	}
	return Worktree{Path: p, GitDir: common}, nil
}

// RemoveByHook removes a worktree a WorktreeCreate hook made (the session
// was in it: req.Cwd) with the WorktreeRemove hooks, and reports whether
// it is gone: every hook exited 0, or one failed and nothing is left at
// path. With no WorktreeRemove hook in force, a git worktree (gitDir set)
// is removed with git worktree remove, its branch kept, as Claude Code
// falls back to git; any other tree is left: toold does not delete what a
// hook made by means it does not know.
func (m *Manager) RemoveByHook(ctx context.Context, req HookRequest, path, gitDir string) bool {
	if m.opts.Hooks != nil {
		out, err := m.opts.Hooks.WorktreeRemove(ctx, hooks.WorktreeRemoveEvent{Session: req.session(), Path: path})
		m.record(ctx, req.SessionID, out.Reports)
		if err != nil {
			return false
		}
		if out.Ran {
			if len(out.Failures) == 0 {
				return true
			}
			_, err = os.Lstat(path)
			return errors.Is(err, os.ErrNotExist)
		}
	}
	if gitDir == "" || m.initErr != nil {
		return false
	}
	res, err := m.git.run(ctx, req.SessionID, req.Dirs, req.Dirs[0], req.Environ, "--git-dir="+gitDir, "worktree", "remove", "--force", "--force", path)
	return err == nil && res.exit == 0
}

func (m *Manager) record(ctx context.Context, session string, reports []hooks.Report) {
	if m.opts.OnHook == nil {
		return
	}
	for _, r := range reports {
		m.opts.OnHook(ctx, session, r)
	}
}

// AgentError is what the model reads when a subagent's worktree could not
// be made, as Claude Code 2.1.332 words it (recorded): outside a
// repository without hooks "Cannot create agent worktree: ...", a failed
// hook or a refused folder in the same words as for EnterWorktree, bare
// as Claude Code throws them.
func AgentError(err error) error {
	var te *tool.Error
	switch {
	case errors.As(err, &te):
		return te
	case errors.Is(err, ErrNotRepo):
		return tool.Bare(tool.Errorf(tool.KindFailed, "Cannot create agent worktree: not in a git repository and no WorktreeCreate hooks are configured. Configure WorktreeCreate/WorktreeRemove hooks in settings.json to use worktree isolation with other VCS systems."))
	}
	var (
		he *HookError
		le *LinkError
		re *ResumeError
		oe *OutsideError
		ge *GitError
		be *BaseError
	)
	if errors.As(err, &he) || errors.As(err, &le) || errors.As(err, &re) || errors.As(err, &oe) || errors.As(err, &ge) || errors.As(err, &be) {
		return tool.Bare(tool.Errorf(tool.KindFailed, "%s", err.Error()))
	}
	return tool.Bare(tool.Errorf(tool.KindFailed, "Cannot create agent worktree: %v", err))
}
