package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
)

// Resuming a worktree by name, as Claude Code 2.1.332 does when
// EnterWorktree (or a subagent's isolation) is given a name whose folder
// under .claude/worktrees exists (recorded with the oracle,
// test/conformance/cases_worktree_resume.json):
//   - the folder is a linked worktree of the repository (its .git file
//     names records under the repository's .git/worktrees whose HEAD
//     names a commit): it is resumed as it is, whatever branch it has
//     checked out, and the session owns it unless another holds its lock;
//   - with a fresh base, a resumed worktree that is clean, on its branch,
//     and has nothing of its own (its HEAD is still the base it was made
//     from, or its upstream is gone and origin's default branch has all of
//     its commits) is reset to origin's default branch first;
//   - a .git file that names records git no longer has is an orphan: the
//     folder is deleted and made anew, unless the records would have been
//     another repository's or its branch holds commits no remote has;
//   - a .git file that names another repository's records is refused;
//   - anything else in the way (a plain folder, a repository of its own)
//     is left to git worktree add, which refuses it.

// baseFile is where the commit a worktree was made from (or last reset
// to) is recorded, in the worktree's records under .git/worktrees: Claude
// Code's name for it, so that either one can tell whether a worktree the
// other made has work of its own.
const baseFile = "CLAUDE_BASE"

// LinkError: a folder on the way to a new worktree is a symbolic link,
// which could send git's checkout anywhere. Claude Code's words.
type LinkError struct{ Rel string }

func (e *LinkError) Error() string {
	return "Cannot create worktree: " + e.Rel + " in the repository is a symlink. A repository-committed symlink at .claude, .claude/worktrees, or .claude/worktrees/<name> could redirect worktree creation outside the repository. Remove the symlink and retry."
}

// ResumeError is a folder of the worktree's name that cannot be resumed
// or made anew, worded as Claude Code words it.
type ResumeError struct{ Msg string }

func (e *ResumeError) Error() string { return e.Msg }

// pointer reads the .git file of a linked worktree at dir: the records
// directory it names, absolute and clean (not resolved). ok is false when
// dir has no .git, or one that is not a plain file (a link, a directory:
// a repository of its own), or not a gitdir line.
func pointer(dir string) (admin string, ok bool) {
	fi, err := os.Lstat(filepath.Join(dir, ".git"))
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	b, err := readNoFollow(filepath.Join(dir, ".git"))
	if err != nil {
		return "", false
	}
	line := strings.TrimSpace(string(b))
	if !strings.HasPrefix(line, "gitdir:") {
		return "", false
	}
	to := strings.TrimSpace(strings.TrimPrefix(line, "gitdir:"))
	if to == "" {
		return "", false
	}
	if !filepath.IsAbs(to) {
		to = filepath.Join(dir, to)
	}
	return filepath.Clean(to), true
}

// resume looks at the folder wt.Path that exists already. resumed: it is
// a worktree of the repository, now wt's (Resumed, maybe Reset, maybe
// Guest). Not resumed and no error: the caller goes on to make it (an
// orphan was cleared away, or git is left to refuse what is there).
func (m *Manager) resume(ctx context.Context, req Request, wt *Worktree) (resumed bool, err error) {
	admin, ok := pointer(wt.Path)
	if !ok {
		return false, nil
	}
	records := filepath.Join(wt.GitDir, "worktrees")
	// The records' folder must be the repository's own (a link to it
	// counts as it, as Claude Code compares the folders themselves).
	own := filepath.Dir(admin) == records || realOr(filepath.Dir(admin)) == records
	fi, err := os.Lstat(admin)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if !own {
			return false, &ResumeError{Msg: "The folder " + wt.Path + " is a leftover worktree whose .git file points to another location, so it was left as is. Remove it if it has no work to keep, or choose a different worktree name."}
		}
		return false, m.clearOrphan(ctx, req, *wt)
	case !own || err == nil && !strictlyWithin(realOr(admin), records):
		// Another repository's records, or a link from the repository's
		// to records elsewhere: git in the worktree would work on those.
		return false, &ResumeError{Msg: "The worktree directory at " + wt.Path + " belongs to a different repository. Remove it if it has no work to keep, or choose a different worktree name."}
	case err != nil || !fi.IsDir():
		return false, nil
	}
	// The records lie in the repository's git directory, inside the
	// workspace. git follows their commondir to the objects and refs it
	// works on: that must be the repository's own, or git in the
	// worktree would work on another's (toold's check, not Claude
	// Code's). Then git may run in the worktree.
	if !commonIs(realOr(admin), wt.GitDir) {
		return false, &ResumeError{Msg: "The worktree directory at " + wt.Path + " belongs to a different repository. Remove it if it has no work to keep, or choose a different worktree name."}
	}
	head := m.commit(ctx, req, wt.Path, "HEAD")
	if head == "" {
		return false, nil
	}
	// A core.worktree in the worktree's configuration would send its
	// checkout elsewhere (toold's check, as for a hook's folder).
	if top, err := m.revParse(ctx, req, wt.Path, "--show-toplevel"); err != nil || top != wt.Path {
		if err != nil {
			return false, err
		}
		return false, &ResumeError{Msg: "Refusing to resume " + wt.Path + ": git resolves its working tree to " + top + " (a core.worktree redirect), so commands run there would write outside the worktree. Remove the redirect or choose a different worktree name."}
	}
	wt.Resumed = true
	if m.baseRef(req) == BaseFresh {
		wt.Reset = m.resetToBase(ctx, req, *wt, head)
	}
	wt.Guest = !m.lock(ctx, req, *wt)
	return true, nil
}

// commonIs reports whether the worktree records at admin name common as
// their repository's git directory (their commondir file, relative to
// admin as git reads it).
func commonIs(admin, common string) bool {
	b, err := readNoFollow(filepath.Join(admin, "commondir"))
	if err != nil {
		return false
	}
	c := strings.TrimSpace(string(b))
	if c == "" {
		return false
	}
	if !filepath.IsAbs(c) {
		c = filepath.Join(admin, c)
	}
	return realOr(c) == common
}

// readNoFollow reads a small git pointer file that must not be a link
// (at most 4 KiB of it).
func readNoFollow(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("not a plain file")
	}
	buf := make([]byte, 4096)
	n, err := f.Read(buf)
	if n == 0 && err != nil {
		return nil, err
	}
	return buf[:n], nil
}

// resetToBase moves a resumed worktree to origin's default branch when
// that is safe, as Claude Code's fast resume does: the branch there has
// moved, the worktree is on its own branch with nothing uncommitted
// (untracked files count), it has nothing of its own (its HEAD is the
// recorded base, or its upstream branch is gone and origin's default
// branch holds all its commits), and no live session holds its lock. It
// reports whether the worktree was reset.
func (m *Manager) resetToBase(ctx context.Context, req Request, wt Worktree, head string) bool {
	target := m.commit(ctx, req, wt.Repo, "refs/remotes/origin/"+m.defaultBranch(ctx, req, wt.Repo))
	if target == "" || target == head {
		return false
	}
	if m.Branch(ctx, req, wt.Path) != wt.Branch {
		return false
	}
	res, err := m.git.run(ctx, req.SessionID, req.Dirs, wt.Path, req.Environ, "status", "--porcelain")
	if err != nil || res.exit != 0 || strings.TrimSpace(res.stdout) != "" {
		return false
	}
	if m.readBase(wt) != head && !m.mergedUpstream(ctx, req, wt) {
		return false
	}
	if reason, locked := m.lockReason(ctx, req, wt); locked && heldByLive(reason) {
		return false
	}
	res, err = m.git.run(ctx, req.SessionID, req.Dirs, wt.Path, req.Environ, "reset", "--hard", "--quiet", target, "--")
	if err != nil || res.exit != 0 {
		return false
	}
	m.writeBase(wt, target)
	return true
}

// mergedUpstream reports whether the worktree's branch tracked an
// upstream that is gone and origin's default branch holds every commit of
// it (cherry-picks count): Claude Code's test that its work was merged.
func (m *Manager) mergedUpstream(ctx context.Context, req Request, wt Worktree) bool {
	upstream := ""
	res, err := m.git.run(ctx, req.SessionID, req.Dirs, wt.Repo, req.Environ, "symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD")
	if err == nil && res.exit == 0 {
		upstream = strings.TrimSpace(res.stdout)
	}
	for _, b := range []string{"origin/main", "origin/master"} {
		if upstream == "" && m.commit(ctx, req, wt.Repo, b) != "" {
			upstream = b
		}
	}
	if upstream == "" || strings.HasPrefix(upstream, "-") {
		return false
	}
	res, err = m.git.run(ctx, req.SessionID, req.Dirs, wt.Path, req.Environ, "symbolic-ref", "-q", "HEAD")
	ref := strings.TrimSpace(res.stdout)
	if err != nil || res.exit != 0 || !strings.HasPrefix(ref, "refs/heads/") {
		return false
	}
	res, err = m.git.run(ctx, req.SessionID, req.Dirs, wt.Path, req.Environ, "for-each-ref", "--format=%(upstream:track,nobracket)", ref)
	if err != nil || res.exit != 0 || strings.TrimSpace(res.stdout) != "gone" {
		return false
	}
	res, err = m.git.run(ctx, req.SessionID, req.Dirs, wt.Path, req.Environ, "rev-list", "--cherry-pick", "--right-only", "--no-merges", "--max-count=1", upstream+"...HEAD", "--")
	return err == nil && res.exit == 0 && strings.TrimSpace(res.stdout) == ""
}

// clearOrphan deletes the folder of a worktree whose records git no longer
// has, so that it can be made anew, as Claude Code does; it refuses when
// the repository's remotes cannot be listed or the worktree's branch
// holds commits that no remote has (with no remote at all it deletes).
func (m *Manager) clearOrphan(ctx context.Context, req Request, wt Worktree) error {
	refuse := func(what string, res gitResult) error {
		said := strings.TrimSpace(res.stderr)
		if said == "" {
			said = "nothing"
		}
		return &ResumeError{Msg: fmt.Sprintf("Orphaned worktree dir at %s but %s failed (git said %s) — refusing to self-heal. Remove %s manually if it has no work to keep.", wt.Path, what, said, wt.Path)}
	}
	remotes, err := m.git.run(ctx, req.SessionID, req.Dirs, wt.Repo, req.Environ, "remote")
	if err != nil {
		return err
	}
	if remotes.exit != 0 {
		return refuse("`git remote`", remotes)
	}
	branch, err := m.git.run(ctx, req.SessionID, req.Dirs, wt.Repo, req.Environ, "rev-parse", "--verify", "--quiet", "--end-of-options", wt.Branch)
	if err != nil {
		return err
	}
	if branch.exit != 0 && strings.TrimSpace(branch.stderr) != "" {
		return refuse("rev-parse on "+wt.Branch, branch)
	}
	if strings.TrimSpace(remotes.stdout) != "" && branch.exit == 0 {
		res, err := m.git.run(ctx, req.SessionID, req.Dirs, wt.Repo, req.Environ, "rev-list", "--max-count=1", wt.Branch, "--not", "--remotes", "--")
		if err != nil {
			return err
		}
		if res.exit != 0 {
			return refuse("rev-list on "+wt.Branch, res)
		}
		if strings.TrimSpace(res.stdout) != "" {
			return &ResumeError{Msg: fmt.Sprintf("Orphaned worktree dir at %s but branch %s has unpushed commits — refusing to self-heal. Push or delete the branch, then retry.", wt.Path, wt.Branch)}
		}
	}
	// Through a handle on the repository's top: no link swapped in on
	// the way (.claude, .claude/worktrees) can lead the removal out of it,
	// and the folder itself, were it a link now, is removed as a link.
	root, err := os.OpenRoot(wt.Repo)
	if err == nil {
		var rel string
		if rel, err = filepath.Rel(wt.Repo, wt.Path); err == nil {
			err = root.RemoveAll(rel)
		}
		root.Close()
	}
	if err != nil {
		code := ""
		var errno syscall.Errno
		if errors.As(err, &errno) {
			code = " (" + errnoName(errno) + ")"
		}
		return &ResumeError{Msg: fmt.Sprintf("Cannot self-heal orphaned worktree at %s: it could not be removed%s. Remove manually to proceed.", wt.Path, code)}
	}
	return nil
}

func errnoName(e syscall.Errno) string {
	switch e {
	case syscall.EACCES:
		return "EACCES"
	case syscall.EPERM:
		return "EPERM"
	case syscall.EBUSY:
		return "EBUSY"
	case syscall.EROFS:
		return "EROFS"
	case syscall.ENOTEMPTY:
		return "ENOTEMPTY"
	}
	return "EIO"
}

// lockReason is the reason git records for the worktree's lock; locked is
// false when it is not locked.
func (m *Manager) lockReason(ctx context.Context, req Request, wt Worktree) (reason string, locked bool) {
	res, err := m.git.run(ctx, req.SessionID, req.Dirs, wt.Repo, req.Environ, "worktree", "list", "--porcelain", "-z")
	if err != nil || res.exit != 0 {
		return "", false
	}
	in := false
	for _, f := range strings.Split(res.stdout, "\x00") {
		switch {
		case strings.HasPrefix(f, "worktree "):
			in = realOr(strings.TrimPrefix(f, "worktree ")) == wt.Path
		case in && (f == "locked" || strings.HasPrefix(f, "locked ")):
			return strings.TrimSpace(strings.TrimPrefix(f, "locked")), true
		}
	}
	return "", false
}

// lockBy is the form of Claude Code's lock reasons: "claude session <name>
// (pid <pid> start <time>)".
var lockBy = regexp.MustCompile(`^claude (?:agent|session) .{1,255} \(pid (\d{1,10})(?: start (.{1,255}))?\)$`)

// lockReasonOwn is the reason toold locks a worktree with while a session
// works in it.
const lockReasonOwn = "claude session"

// heldByLive reports whether a lock reason says a live session holds the
// worktree: toold's own lock (toold cannot tell which of its sessions, or
// whether that session still works there), or Claude Code's whose process
// is alive on this machine.
func heldByLive(reason string) bool {
	if reason == lockReasonOwn {
		return true
	}
	mm := lockBy.FindStringSubmatch(reason)
	if mm == nil {
		return false
	}
	pid, err := strconv.Atoi(mm[1])
	return err == nil && pid > 0 && pid != os.Getpid() && alive(pid)
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// lock locks a worktree the session works in, and reports whether the
// session owns it, as Claude Code decides: it owns it when the lock was
// taken, or the worktree's lock cannot be read, or the lock is Claude
// Code's of a process that is gone (then it is taken over); a lock of
// anyone else (a person's, another session's) makes the session a guest,
// which ExitWorktree will not let remove the worktree.
func (m *Manager) lock(ctx context.Context, req Request, wt Worktree) (owner bool) {
	try := func() bool {
		res, err := m.git.run(ctx, req.SessionID, req.Dirs, wt.Repo, req.Environ, "worktree", "lock", "--reason", lockReasonOwn, wt.Path)
		return err == nil && res.exit == 0
	}
	if try() {
		return true
	}
	reason, locked := m.lockReason(ctx, req, wt)
	if !locked {
		return true
	}
	if !lockBy.MatchString(reason) || heldByLive(reason) {
		return false
	}
	m.git.run(ctx, req.SessionID, req.Dirs, wt.Repo, req.Environ, "worktree", "unlock", wt.Path)
	try()
	return true
}

// adminRel is the worktree's records directory relative to the
// repository's git directory, "" when its .git does not lead there.
func adminRel(wt Worktree) string {
	admin, ok := pointer(wt.Path)
	if !ok {
		return ""
	}
	admin = realOr(admin)
	rel, err := filepath.Rel(wt.GitDir, admin)
	if err != nil || filepath.Dir(rel) != "worktrees" {
		return ""
	}
	return rel
}

// readBase is the commit recorded as the worktree's base, "" when none
// is.
func (m *Manager) readBase(wt Worktree) string {
	rel := adminRel(wt)
	if rel == "" {
		return ""
	}
	root, err := os.OpenRoot(wt.GitDir)
	if err != nil {
		return ""
	}
	defer root.Close()
	b, err := root.ReadFile(filepath.Join(rel, baseFile))
	if err != nil || len(b) > 128 {
		return ""
	}
	sha := strings.TrimSpace(string(b))
	if !isSHA(sha) {
		return ""
	}
	return sha
}

// writeBase records sha as the worktree's base, owned as the worktree's
// records are. The write goes through a handle on the git directory: a
// link planted in the records cannot lead it elsewhere. A worktree
// whose base could not be recorded is only not reset on a later resume.
func (m *Manager) writeBase(wt Worktree, sha string) {
	rel := adminRel(wt)
	if rel == "" || !isSHA(sha) {
		return
	}
	root, err := os.OpenRoot(wt.GitDir)
	if err != nil {
		return
	}
	defer root.Close()
	fi, err := root.Lstat(rel)
	if err != nil || !fi.IsDir() {
		return
	}
	name := filepath.Join(rel, baseFile)
	root.Remove(name)
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return
	}
	f.WriteString(sha)
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		f.Chown(int(st.Uid), int(st.Gid))
	}
	f.Close()
}

func isSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
