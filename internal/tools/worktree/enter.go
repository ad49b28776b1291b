package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// EnterError is EnterWorktree's refusal of a path, worded as Claude Code
// 2.1.332 words it.
type EnterError struct{ Msg string }

func (e *EnterError) Error() string { return e.Msg }

func enterf(format string, args ...any) error {
	return &EnterError{Msg: fmt.Sprintf(format, args...)}
}

// Entered is an existing worktree Enter found.
type Entered struct {
	Worktree
	// Nested: the worktree belongs to a repository nested inside the
	// session's repository (Repo); ExitWorktree returns there.
	Nested bool
}

// Enter checks that path (relative paths are req.Cwd's) names an existing
// linked worktree the session may enter, as Claude Code 2.1.332 checks it:
//   - it is a registered worktree (git worktree list, not prunable) of
//     the repository of the session's directory, or of a repository
//     nested inside that one;
//   - it is neither that repository's main working tree nor the session's
//     directory;
//   - when the session is in a worktree already (inWorktree), or the path
//     lies under the repository's .claude/worktrees/, it must be a linked
//     worktree there, and .claude/worktrees must be a real directory.
//
// toold adds containment: the worktree, its repository and that
// repository's git directory must lie inside the session's workspace
// (req.Dirs[0]), symlinks resolved, and the worktree's .git must lead into
// that git directory. git runs only on what passed those checks.
func (m *Manager) Enter(ctx context.Context, req Request, path string, inWorktree bool) (Entered, error) {
	if m.initErr != nil {
		return Entered{}, m.initErr
	}
	if len(req.Dirs) == 0 {
		return Entered{}, errors.New("the session has no directory")
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(req.Cwd, abs)
	}
	abs = filepath.Clean(abs)
	primary, err := filepath.EvalSymlinks(req.Dirs[0])
	if err != nil {
		return Entered{}, err
	}
	top, err := m.revParse(ctx, req, req.Cwd, "--show-toplevel")
	if errors.Is(err, ErrNotRepo) {
		return Entered{}, enterf("Cannot enter an existing worktree: the current directory is not in a git repository.")
	}
	if err != nil {
		return Entered{}, err
	}
	if !within(top, primary) {
		return Entered{}, &OutsideError{What: "git repository", Path: top, Enter: true}
	}
	// The repository's main working tree: the session may be in one of
	// its linked worktrees.
	root, err := m.mainWorktree(ctx, req, top)
	if err != nil {
		return Entered{}, err
	}
	if !within(root, primary) {
		return Entered{}, &OutsideError{What: "git repository", Path: root, Enter: true}
	}
	target, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return Entered{}, enterf("Cannot enter worktree: %s: %s", abs, realpathError(err, abs))
	}
	cwd, err := filepath.EvalSymlinks(req.Cwd)
	if err != nil {
		return Entered{}, err
	}
	switch target {
	case root:
		return Entered{}, enterf("Cannot enter worktree: %s is the main working tree, not a linked worktree.", abs)
	case cwd:
		return Entered{}, enterf("Cannot enter worktree: %s is the current working directory.", abs)
	}
	managedDir := filepath.Join(root, ".claude", "worktrees")
	managed := inWorktree || within(abs, managedDir)
	if managed {
		real, err := filepath.EvalSymlinks(managedDir)
		if err != nil {
			return Entered{}, enterf("Cannot enter worktree: %s does not exist, so %s cannot be a worktree managed by Claude Code.", managedDir, abs)
		}
		if real != managedDir {
			return Entered{}, enterf("Cannot enter worktree: %s resolves to %s; the managed worktrees directory must not be a symlink.", managedDir, real)
		}
		if !strictlyWithin(target, managedDir) {
			return Entered{}, enterf("Cannot enter worktree: %s is not under %s. Switching from this session is limited to worktrees managed by Claude Code (created under .claude/worktrees/ of this repository).", abs, managedDir)
		}
	}
	if !within(target, primary) {
		return Entered{}, &OutsideError{What: "worktree", Path: target, Enter: true}
	}
	admin, linked := worktreeAdmin(target)
	// A .git that leads out of the workspace is never followed: git is
	// not run in such a worktree.
	adminInside := admin == "" || within(admin, primary)
	if managed && (!linked || filepath.Dir(admin) != realOr(filepath.Join(root, ".git", "worktrees"))) {
		return Entered{}, enterf("Cannot enter worktree: %s is not a linked worktree of %s.", abs, root)
	}
	// The repository that owns the worktree: the session's, or one
	// nested inside it (a workspace of several repositories).
	owner, nested := root, false
	if linked && adminInside {
		if r, err := m.mainWorktree(ctx, req, target); err == nil && strictlyWithin(r, root) {
			owner, nested = r, true
		}
	}
	list, err := m.worktreeList(ctx, req, owner)
	if err != nil {
		return Entered{}, err
	}
	var found *listed
	for i := range list {
		if realOr(list[i].path) == target {
			found = &list[i]
			break
		}
	}
	switch {
	case found == nil:
		return Entered{}, enterf("Cannot enter worktree: %s is not a registered worktree of %s. Run 'git -C %s worktree list' to see registered worktrees.", abs, owner, owner)
	case found.prunable:
		return Entered{}, enterf("Cannot enter worktree: %s is marked prunable by git (its directory or administrative files are missing or broken).", abs)
	case !linked || !adminInside:
		return Entered{}, enterf("Cannot enter worktree: %s is not a linked worktree of %s.", abs, owner)
	}
	common, err := m.revParse(ctx, req, owner, "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return Entered{}, err
	}
	if !within(common, primary) {
		return Entered{}, &OutsideError{What: "repository's git directory", Path: common, Enter: true}
	}
	if !within(admin, common) {
		// Registered here, but its .git leads to another repository's
		// records: git in it would work on that one.
		return Entered{}, enterf("Cannot enter worktree: %s is not a linked worktree of %s.", abs, owner)
	}
	return Entered{Worktree: Worktree{Path: target, Branch: found.branch, Repo: owner, GitDir: common}, Nested: nested}, nil
}

// worktreeAdmin reads a linked worktree's .git file ("gitdir: <dir>") and
// returns the administrative directory it names, symlinks resolved, and
// whether that directory names the worktree back (its gitdir file leads
// to dir/.git), as git's own records of a linked worktree do. A .git
// directory (a repository of its own) or no .git is not linked.
func worktreeAdmin(dir string) (admin string, linked bool) {
	dotgit := filepath.Join(dir, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	b, err := readSmall(dotgit)
	if err != nil {
		return "", false
	}
	line := strings.TrimSpace(string(b))
	if !strings.HasPrefix(line, "gitdir:") {
		return "", false
	}
	to := strings.TrimSpace(strings.TrimPrefix(line, "gitdir:"))
	if !filepath.IsAbs(to) {
		to = filepath.Join(dir, to)
	}
	admin, err = filepath.EvalSymlinks(to)
	if err != nil {
		return "", false
	}
	back := filepath.Join(admin, "gitdir")
	if fi, err := os.Lstat(back); err != nil || !fi.Mode().IsRegular() {
		return admin, false
	}
	b, err = readSmall(back)
	if err != nil {
		return admin, false
	}
	named := strings.TrimSpace(string(b))
	if !filepath.IsAbs(named) {
		named = filepath.Join(admin, named)
	}
	return admin, realOr(named) == dotgit
}

// listed is one entry of git worktree list --porcelain.
type listed struct {
	path, branch string
	prunable     bool
}

func (m *Manager) worktreeList(ctx context.Context, req Request, dir string) ([]listed, error) {
	res, err := m.git.run(ctx, req.SessionID, req.Dirs, dir, req.Environ, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, err
	}
	if res.exit != 0 {
		return nil, &GitError{Op: "list the worktrees of " + dir, Stderr: res.stderr}
	}
	var out []listed
	for _, f := range strings.Split(res.stdout, "\x00") {
		switch {
		case strings.HasPrefix(f, "worktree "):
			out = append(out, listed{path: strings.TrimPrefix(f, "worktree ")})
		case len(out) == 0:
		case strings.HasPrefix(f, "branch "):
			out[len(out)-1].branch = strings.TrimPrefix(strings.TrimPrefix(f, "branch "), "refs/heads/")
		case f == "prunable" || strings.HasPrefix(f, "prunable "):
			out[len(out)-1].prunable = true
		}
	}
	return out, nil
}

// mainWorktree is the main working tree of the repository that holds dir
// (the first entry git worktree list gives), symlinks resolved.
func (m *Manager) mainWorktree(ctx context.Context, req Request, dir string) (string, error) {
	list, err := m.worktreeList(ctx, req, dir)
	if err != nil {
		return "", err
	}
	if len(list) == 0 {
		return "", &GitError{Op: "find the main working tree of " + dir}
	}
	return filepath.EvalSymlinks(list[0].path)
}

// realpathError words a failed realpath as Node does, which is what
// Claude Code quotes: "ENOENT: no such file or directory, realpath '/x'".
func realpathError(err error, path string) string {
	code, text := "EIO", "i/o error"
	for _, e := range []struct {
		errno      syscall.Errno
		code, text string
	}{
		{syscall.ENOENT, "ENOENT", "no such file or directory"},
		{syscall.ENOTDIR, "ENOTDIR", "not a directory"},
		{syscall.EACCES, "EACCES", "permission denied"},
		{syscall.ELOOP, "ELOOP", "too many symbolic links encountered"},
		{syscall.ENAMETOOLONG, "ENAMETOOLONG", "name too long"},
	} {
		if errors.Is(err, e.errno) {
			code, text = e.code, e.text
			break
		}
	}
	return fmt.Sprintf("%s: %s, realpath '%s'", code, text, path)
}

// realOr is p with symlinks resolved, or p when it cannot be.
func realOr(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// strictlyWithin reports whether p lies below root (not root itself).
func strictlyWithin(p, root string) bool {
	return strings.HasPrefix(p, root+string(filepath.Separator))
}

// readSmall reads a git pointer file, at most 4 KiB of it.
func readSmall(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, err := f.Read(buf)
	if n == 0 && err != nil {
		return nil, err
	}
	return buf[:n], nil
}
