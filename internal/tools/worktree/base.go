package worktree

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Claude Code 2.1.332's timing of the fetch of a fresh base: when origin's
// default branch is known already, it is fetched again only when the last
// fetch is older than a day, and then given 5 s (a slow network does not
// hold up the worktree: the known commit does); when it is not known, the
// fetch gets the ordinary git limit.
const (
	fetchAge       = 24 * time.Hour
	refreshTimeout = 5 * time.Second
)

// headMissing ends Claude Code's refusal when HEAD names no commit.
const headMissing = "git rev-parse returned no commit for HEAD (for example in a new repository, or on a branch without a commit yet), so Claude Code has nothing to base a worktree on. It may also be that the git that Claude Code runs (which may not be the one in your shell) is not working. Running git status in this repository may show more."

// BaseError: the commit a worktree would start from could not be found.
type BaseError struct{ Msg string }

func (e *BaseError) Error() string { return e.Msg }

// baseRef is the base the request's worktree starts from: the operator's
// setting, else (when allowed) the workspace's, else fresh.
func (m *Manager) baseRef(req Request) string {
	if m.opts.BaseRef != "" {
		return m.opts.BaseRef
	}
	if m.opts.WorkspaceSettings && len(req.Dirs) > 0 {
		if r := workspaceBaseRef(req.Dirs[0]); r != "" {
			return r
		}
	}
	return BaseFresh
}

// base is the commit a new worktree of the repository at top starts from,
// as Claude Code 2.1.332 chooses it:
//   - head: the local HEAD;
//   - fresh: origin's default branch (origin/HEAD's target, else main,
//     else master, else main), fetched from origin when the local copy is
//     missing or the last fetch is a day old; when there is no such copy
//     and the fetch fails (no origin, no network), the local HEAD.
func (m *Manager) base(ctx context.Context, req Request, top string) (string, error) {
	if m.baseRef(req) == BaseHead {
		sha := m.commit(ctx, req, top, "HEAD")
		if sha == "" {
			return "", &BaseError{Msg: "Failed to resolve HEAD in " + top + ": " + headMissing}
		}
		return sha, nil
	}
	branch := m.defaultBranch(ctx, req, top)
	ref := "refs/remotes/origin/" + branch
	if sha := m.commit(ctx, req, top, ref); sha != "" {
		if m.fetchedWithin(ctx, req, top, fetchAge) {
			return sha, nil
		}
		// A failed refresh keeps the copy there is.
		m.fetch(ctx, req, top, branch, refreshTimeout)
		if again := m.commit(ctx, req, top, ref); again != "" {
			sha = again
		}
		return sha, nil
	}
	if m.fetch(ctx, req, top, branch, gitTimeout) {
		sha := m.commit(ctx, req, top, ref)
		if sha == "" {
			return "", &BaseError{Msg: fmt.Sprintf("Failed to resolve base branch %q: the fetch from origin succeeded, but git show-ref found no such ref afterwards (for example in a single-branch clone of another branch, or a bare clone without a fetch refspec). To start worktrees from your current HEAD instead, set worktree.baseRef to \"head\" in Claude Code settings. It may also be that the git that Claude Code runs (which may not be the one in your shell) is not working. Running git status in this repository may show more.", "origin/"+branch)}
		}
		return sha, nil
	}
	sha := m.commit(ctx, req, top, "HEAD")
	if sha == "" {
		return "", &BaseError{Msg: `Failed to resolve base branch "HEAD": ` + headMissing}
	}
	return sha, nil
}

// defaultBranch is origin's default branch as Claude Code reads it: the
// branch refs/remotes/origin/HEAD points to when that exists, else main or
// master when origin has them, else "main". A name that could be taken
// for an option is "HEAD".
func (m *Manager) defaultBranch(ctx context.Context, req Request, top string) string {
	res, err := m.git.run(ctx, req.SessionID, req.Dirs, top, req.Environ,
		"for-each-ref", "--format=%(refname) %(symref)", "refs/remotes/origin/")
	if err != nil || res.exit != 0 {
		return "main"
	}
	refs, head := map[string]bool{}, ""
	for _, l := range strings.Split(res.stdout, "\n") {
		name, target, _ := strings.Cut(l, " ")
		if name == "refs/remotes/origin/HEAD" {
			head = strings.TrimPrefix(target, "refs/remotes/origin/")
			continue
		}
		refs[strings.TrimPrefix(name, "refs/remotes/origin/")] = true
	}
	pick := "main"
	switch {
	case head != "" && refs[head]:
		pick = head
	case refs["main"]:
		pick = "main"
	case refs["master"]:
		pick = "master"
	}
	if strings.HasPrefix(pick, "-") {
		return "HEAD"
	}
	return pick
}

// commit is the commit ref names, "" when it names none.
func (m *Manager) commit(ctx context.Context, req Request, top, ref string) string {
	res, err := m.git.run(ctx, req.SessionID, req.Dirs, top, req.Environ, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil || res.exit != 0 {
		return ""
	}
	return strings.TrimSpace(res.stdout)
}

// fetchedWithin reports whether the repository's FETCH_HEAD was written
// less than age ago.
func (m *Manager) fetchedWithin(ctx context.Context, req Request, top string, age time.Duration) bool {
	dir, err := m.revParse(ctx, req, top, "--absolute-git-dir")
	if err != nil {
		return false
	}
	fi, err := os.Lstat(filepath.Join(dir, "FETCH_HEAD"))
	return err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) < age
}

// fetchConfig hardens the fetch of a fresh base. The repository's
// configuration is the session's to write, and a fetch is the one git
// command toold runs that talks to another program: the remote's. So the
// remote helpers that run programs of the configuration's choosing are
// off (ext::, fd::, git:// through core.gitProxy, a configured ssh
// command, credential helpers, an askpass program, the upload-pack
// program), bundle URIs that would send git to other servers are off, and
// nothing prompts. What is left are the file, http(s) and ssh transports,
// run confined like a Bash command: the sandbox's network setting and its
// file grants apply (a file:// origin outside the session's directories
// cannot be read).
var fetchConfig = []string{
	"-c", "protocol.allow=never",
	"-c", "protocol.file.allow=always", "-c", "protocol.https.allow=always",
	"-c", "protocol.http.allow=always", "-c", "protocol.ssh.allow=always",
	"-c", "core.sshCommand=ssh -o BatchMode=yes",
	"-c", "credential.helper=", "-c", "core.askPass=",
	"-c", "transfer.bundleURI=false", "-c", "fetch.bundleURI=",
	"-c", "submodule.recurse=false",
}

// fetch fetches origin's branch into refs/remotes/origin/ (Claude Code's
// `git fetch origin <branch>`), within limit. It reports whether git
// succeeded.
func (m *Manager) fetch(ctx context.Context, req Request, top, branch string, limit time.Duration) bool {
	args := append(append([]string(nil), fetchConfig...),
		"fetch", "--upload-pack=git-upload-pack", "--no-recurse-submodules", "--quiet", "origin", "--end-of-options", branch)
	environ := append(append([]string(nil), req.Environ...), "SSH_ASKPASS_REQUIRE=never", "GIT_PROTOCOL_FROM_USER=0")
	res, err := m.git.runWithin(ctx, limit, req.SessionID, req.Dirs, top, environ, args...)
	return err == nil && res.exit == 0
}
