package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/sandbox"
)

// Options configure the worktree tools and Manager. The zero value runs git
// from PATH as toold's user.
type Options struct {
	// Sandbox confines git as the session's Bash commands are confined.
	Sandbox *sandbox.Launcher
	// GitPath is the git binary; empty: looked up in PATH.
	GitPath string
	// BashPath is the shell the sandbox starts git through; empty:
	// /bin/bash.
	BashPath string
	// BaseRef is the operator's worktree.baseRef: BaseFresh, BaseHead, or
	// "" (the workspace's setting when WorkspaceSettings, else fresh).
	BaseRef string
	// WorkspaceSettings reads worktree.baseRef from each workspace's
	// .claude/settings.local.json and settings.json when BaseRef is "".
	WorkspaceSettings bool
	// Hooks runs the WorktreeCreate and WorktreeRemove hooks; nil: none.
	Hooks Hooks
	// OnHook receives the report of each worktree hook that ran (for the
	// log and the trace); nil drops them.
	OnHook func(ctx context.Context, sessionID string, r hooks.Report)
}

// Manager makes and removes git worktrees of sessions' repositories. The
// EnterWorktree tool uses it, and so can anything else that gives a
// session a worktree of its own (a subagent's isolation).
type Manager struct {
	git     gitRunner
	opts    Options
	initErr error
}

// NewManager returns a Manager. A missing git does not fail it: each use
// then reports the problem.
func NewManager(opts Options) *Manager {
	m := &Manager{git: gitRunner{git: opts.GitPath, bash: opts.BashPath, sandbox: opts.Sandbox}, opts: opts}
	if m.git.git == "" {
		p, err := exec.LookPath("git")
		if err != nil {
			m.initErr = fmt.Errorf("git was not found on the server: %w", err)
		}
		m.git.git = p
	}
	if m.git.bash == "" {
		m.git.bash = "/bin/bash"
	}
	return m
}

// Request says for whom and where a worktree is made.
type Request struct {
	SessionID string
	// Dirs are the session's directories, primary (its workspace) first.
	// The repository and everything git writes must lie inside the
	// primary one.
	Dirs []string
	// Cwd is where the repository is looked for (the session's
	// directory).
	Cwd string
	// Environ is the environment git runs with.
	Environ []string
	// Name is the worktree's name; empty: a generated one.
	Name string
}

// Worktree is a worktree Create made.
type Worktree struct {
	// Path is the worktree's directory: <repo>/.claude/worktrees/<name>.
	Path string
	// Branch is the branch it was made on: worktree-<name>.
	Branch string
	// Repo is the main checkout's top directory.
	Repo string
	// GitDir is the repository's git directory (git rev-parse
	// --git-common-dir), where git in the worktree writes objects and
	// refs: the session needs it among its directories.
	GitDir string
	// Resumed: the worktree of the name existed and was taken up as it
	// was (see resume); Reset: and moved to the current base first.
	Resumed, Reset bool
	// Guest: someone else holds the resumed worktree's lock, so the
	// session may leave it but not remove it.
	Guest bool
}

// ErrNotRepo: the session's directory is in no git repository.
var ErrNotRepo = errors.New("Cannot create a worktree: not in a git repository and no WorktreeCreate hooks are configured. Configure WorktreeCreate/WorktreeRemove hooks in settings.json to use worktree isolation with other VCS systems.")

// OutsideError: the repository, its git directory or the worktree's place
// is not inside the session's workspace, so a worktree there would let the
// session reach files it may not.
type OutsideError struct {
	What, Path string
	// Enter: the refusal of EnterWorktree's path, not of a new worktree.
	Enter bool
}

func (e *OutsideError) Error() string {
	if e.Enter {
		return fmt.Sprintf("Cannot enter worktree: the %s (%s) is outside the session's workspace.", e.What, e.Path)
	}
	return fmt.Sprintf("Cannot create a worktree: the %s (%s) is outside the session's workspace.", e.What, e.Path)
}

// GitError is a git command that failed: "Failed to <Op>: <Stderr>", or
// Msg when set.
type GitError struct {
	Op     string
	Stderr string
	Msg    string
}

func (e *GitError) Error() string {
	if e.Msg != "" {
		return e.Msg
	}
	msg := "Failed to " + e.Op
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}

// Create makes a worktree of the repository that holds req.Cwd, under the
// repository's .claude/worktrees/, on branch worktree-<name> (reset to the
// base when it exists, as Claude Code's git worktree add -B does) from the
// base worktree.baseRef chooses (see base), records that base in the
// worktree's records (CLAUDE_BASE), and locks it (git worktree lock)
// while a session works in it. When the worktree's folder exists it is
// resumed instead, or refused, as Claude Code does (see resume). The
// repository, its git directory and the worktree must all be inside the
// session's primary directory.
func (m *Manager) Create(ctx context.Context, req Request) (Worktree, error) {
	if m.initErr != nil {
		return Worktree{}, m.initErr
	}
	name := req.Name
	if name == "" {
		name = randomName()
	} else if err := checkName(name); err != nil {
		return Worktree{}, err
	}
	if len(req.Dirs) == 0 {
		return Worktree{}, errors.New("the session has no directory")
	}
	primary, err := filepath.EvalSymlinks(req.Dirs[0])
	if err != nil {
		return Worktree{}, err
	}
	top, err := m.revParse(ctx, req, req.Cwd, "--show-toplevel")
	if err != nil {
		return Worktree{}, err
	}
	if !within(top, primary) {
		return Worktree{}, &OutsideError{What: "git repository", Path: top}
	}
	common, err := m.revParse(ctx, req, top, "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return Worktree{}, err
	}
	if !within(common, primary) {
		return Worktree{}, &OutsideError{What: "repository's git directory", Path: common}
	}
	wt := Worktree{Path: filepath.Join(top, ".claude", "worktrees", dirName(name)), Branch: BranchName(name), Repo: top, GitDir: common}
	// git makes the missing directories; none that exists may be a link
	// (a .claude pointing elsewhere would put the worktree there).
	exists := false
	for _, d := range []string{filepath.Join(top, ".claude"), filepath.Join(top, ".claude", "worktrees"), wt.Path} {
		fi, err := os.Lstat(d)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return Worktree{}, err
		case fi.Mode()&os.ModeSymlink != 0:
			rel, _ := filepath.Rel(top, d)
			return Worktree{}, &LinkError{Rel: rel}
		case !fi.IsDir():
			return Worktree{}, &OutsideError{What: "worktree directory", Path: d + " (not a plain directory)"}
		case d == wt.Path:
			exists = true
		}
	}
	if exists {
		resumed, err := m.resume(ctx, req, &wt)
		if err != nil {
			return Worktree{}, err
		}
		if resumed {
			return wt, nil
		}
	}
	base, err := m.base(ctx, req, top)
	if err != nil {
		return Worktree{}, err
	}
	res, err := m.git.run(ctx, req.SessionID, req.Dirs, top, req.Environ, "worktree", "add", "--no-track", "-B", wt.Branch, wt.Path, base+"^{commit}")
	if err != nil {
		return Worktree{}, err
	}
	if res.exit != 0 {
		return Worktree{}, addError(name, wt, res.stderr)
	}
	// The checks above ran before git; what git made must still be a
	// real directory inside the workspace.
	if real, err := filepath.EvalSymlinks(wt.Path); err != nil || real != wt.Path || !within(real, primary) {
		m.remove(ctx, req, wt)
		return Worktree{}, &OutsideError{What: "new worktree", Path: wt.Path}
	}
	// Locked, as Claude Code locks it, so that `git worktree prune`
	// leaves it alone while a session works in it. A worktree the lock
	// failed on works as well.
	m.git.run(ctx, req.SessionID, req.Dirs, top, req.Environ, "worktree", "lock", "--reason", lockReasonOwn, wt.Path)
	m.writeBase(wt, base)
	return wt, nil
}

// addError words a failed git worktree add as Claude Code does: a branch
// checked out in another worktree, a folder in the way, anything else.
func addError(name string, wt Worktree, stderr string) error {
	said := strings.TrimSpace(stderr)
	switch {
	case checkedOut.MatchString(said):
		return &GitError{Msg: fmt.Sprintf("branch %q for worktree %q is already checked out elsewhere in this repository. Pass a different --worktree name.", wt.Branch, name)}
	case alreadyExists.MatchString(said):
		return &GitError{Msg: fmt.Sprintf("worktree %q already exists at %s but cannot be reused (%s). Remove that directory (with `git worktree remove` if it's a registered worktree, or by deleting it if it's a stray directory) or pass a different --worktree name.", name, wt.Path, said)}
	}
	return &GitError{Op: "create worktree", Stderr: said}
}

var (
	checkedOut    = regexp.MustCompile(`(?m)^fatal: '.*' is already (?:checked out|used by worktree) at '`)
	alreadyExists = regexp.MustCompile(`(?m)^fatal: .* already exists`)
)

// Changes counts what removing a worktree would lose: files with changes
// not committed (untracked ones included), and commits: those made since
// the base recorded for it (CLAUDE_BASE, as Claude Code counts them from
// the commit its session started from, so that a worktree from a fresh
// base, or one reset to it, counts none of origin's), else those on its
// branch that no other branch holds.
func (m *Manager) Changes(ctx context.Context, req Request, path string) (files, commits int, err error) {
	if m.initErr != nil {
		return 0, 0, m.initErr
	}
	res, err := m.git.run(ctx, req.SessionID, req.Dirs, path, req.Environ, "status", "--porcelain")
	if err != nil {
		return 0, 0, err
	}
	if res.exit != 0 {
		return 0, 0, &GitError{Op: "read the worktree's status", Stderr: res.stderr}
	}
	for _, l := range strings.Split(res.stdout, "\n") {
		if l != "" {
			files++
		}
	}
	if common, err := m.revParse(ctx, req, path, "--path-format=absolute", "--git-common-dir"); err == nil {
		if base := m.readBase(Worktree{Path: path, GitDir: common}); base != "" {
			res, err := m.git.run(ctx, req.SessionID, req.Dirs, path, req.Environ, "rev-list", "--count", base+"..HEAD", "--")
			if err == nil && res.exit == 0 {
				commits, _ = strconv.Atoi(strings.TrimSpace(res.stdout))
				return files, commits, nil
			}
		}
	}
	branch := m.Branch(ctx, req, path)
	if branch == "" {
		return files, 0, nil
	}
	res, err = m.git.run(ctx, req.SessionID, req.Dirs, path, req.Environ, "rev-list", "--count", "HEAD", "--not", "--exclude="+branch, "--branches")
	if err != nil {
		return files, 0, err
	}
	if res.exit == 0 {
		commits, _ = strconv.Atoi(strings.TrimSpace(res.stdout))
	}
	return files, commits, nil
}

// Branch is the branch checked out in the worktree at path ("" when
// detached or unknown).
func (m *Manager) Branch(ctx context.Context, req Request, path string) string {
	res, err := m.git.run(ctx, req.SessionID, req.Dirs, path, req.Environ, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil || res.exit != 0 {
		return ""
	}
	return strings.TrimSpace(res.stdout)
}

// Unlock lets git prune the worktree again: the session no longer works
// in it.
func (m *Manager) Unlock(ctx context.Context, req Request, path string) {
	if m.initErr == nil {
		m.git.run(ctx, req.SessionID, req.Dirs, repoOf(path), req.Environ, "worktree", "unlock", path)
	}
}

// Remove deletes the worktree at path, changes and all, and its branch
// unless git refuses (another worktree has it checked out).
func (m *Manager) Remove(ctx context.Context, req Request, path, branch string) error {
	if m.initErr != nil {
		return m.initErr
	}
	return m.remove(ctx, req, Worktree{Path: path, Branch: branch, Repo: repoOf(path)})
}

func (m *Manager) remove(ctx context.Context, req Request, wt Worktree) error {
	m.git.run(ctx, req.SessionID, req.Dirs, wt.Repo, req.Environ, "worktree", "unlock", wt.Path)
	res, err := m.git.run(ctx, req.SessionID, req.Dirs, wt.Repo, req.Environ, "worktree", "remove", "--force", "--force", wt.Path)
	if err != nil {
		return err
	}
	if res.exit != 0 {
		return &GitError{Op: "remove worktree", Stderr: res.stderr}
	}
	if wt.Branch != "" {
		m.git.run(ctx, req.SessionID, req.Dirs, wt.Repo, req.Environ, "branch", "-D", wt.Branch)
	}
	return nil
}

// repoOf is the main checkout of a worktree Create made:
// <repo>/.claude/worktrees/<name>.
func repoOf(path string) string { return filepath.Dir(filepath.Dir(filepath.Dir(path))) }

// revParse runs git rev-parse in dir and returns its one line of output,
// symlinks resolved. Outside a repository it is ErrNotRepo.
func (m *Manager) revParse(ctx context.Context, req Request, dir string, args ...string) (string, error) {
	res, err := m.git.run(ctx, req.SessionID, req.Dirs, dir, req.Environ, append([]string{"rev-parse"}, args...)...)
	if err != nil {
		return "", err
	}
	if res.exit != 0 {
		if strings.Contains(res.stderr, "not a git repository") {
			return "", ErrNotRepo
		}
		return "", &GitError{Op: "find the git repository", Stderr: res.stderr}
	}
	p := strings.TrimSpace(res.stdout)
	if !filepath.IsAbs(p) {
		return "", &GitError{Op: "find the git repository", Stderr: "git printed " + strconv.Quote(p)}
	}
	return filepath.EvalSymlinks(p)
}

// within reports whether p is root or below it (both clean and
// symlink-free).
func within(p, root string) bool {
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}
