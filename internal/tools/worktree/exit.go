package worktree

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

type exitTool struct {
	m        *Manager
	sessions Sessions
}

func (t *exitTool) Definition() tool.Definition {
	return tool.Definition{
		Name:         ExitName,
		Description:  exitDescription,
		InputSchema:  json.RawMessage(exitSchema),
		SearchHint:   "leave git worktree keep remove",
		MovesSession: true,
		InputMessages: map[string]string{
			// zod's enum message, which Claude Code also gives for a
			// missing action.
			"action enum":     `Invalid option: expected one of "keep"|"remove"`,
			"action required": `Invalid option: expected one of "keep"|"remove"`,
		},
	}
}

type exitInput struct {
	Action  string `json:"action"`
	Discard bool   `json:"discard_changes"`
}

func (t *exitTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in exitInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for ExitWorktree: %v", err)
	}
	if in.Action != "keep" && in.Action != "remove" {
		return nil, tool.InvalidInputf(`ExitWorktree's action must be "keep" or "remove".`)
	}
	return &exitCall{t: t, in: in}, nil
}

type exitCall struct {
	t  *exitTool
	in exitInput
}

// Traits: like EnterWorktree, no permission is asked (as in Claude Code);
// remove deletes the worktree, so it is declared destructive.
func (c *exitCall) Traits() tool.Traits {
	return tool.Traits{ReadOnly: true, Destructive: c.in.Action == "remove"}
}

func (c *exitCall) Activity() tool.Activity {
	if c.in.Action == "remove" {
		return tool.Activity{Summary: "Exit and remove the worktree"}
	}
	return tool.Activity{Summary: "Exit the worktree"}
}

// noSession is Claude Code's answer when there is nothing to exit.
const noSession = "No-op: there is no active EnterWorktree session to exit. This tool only operates on worktrees created by EnterWorktree in the current session — it will not touch worktrees created manually or in a previous session. No filesystem changes were made."

func (c *exitCall) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	s, err := c.t.sessions.GetSession(ctx, env.SessionID)
	if err != nil {
		return nil, tool.Errorf(tool.KindUnavailable, "The session could not be read: %v", err)
	}
	path := s.Worktree
	if path == "" {
		return nil, tool.InvalidInputf("%s", noSession)
	}
	req := Request{SessionID: env.SessionID, Dirs: env.Files.Dirs(), Cwd: path, Environ: env.Environ}
	back := returnDir(s)
	branch := s.WorktreeBranch
	if branch == "" && s.WorktreeKind == store.WorktreeMade {
		// A session that entered its worktree before the branch was
		// recorded.
		if branch = c.t.m.Branch(ctx, req, path); branch == "" {
			branch = BranchName(filepath.Base(path))
		}
	}
	var files, commits int
	if c.in.Action == "remove" {
		switch s.WorktreeKind {
		case store.WorktreeEntered:
			return nil, tool.InvalidInputf("This session is not the owner of the worktree at “%s” — it either entered a pre-existing worktree via EnterWorktree({path}) or resumed into a checkout whose liveness lock another running Claude Code session still holds — so this tool will not remove it. Use action: \"keep\" to return to “%s”. If no other session is using it, remove it yourself with `git worktree remove`; while a live session's lock is present, git will refuse and name the owner.", path, back)
		case store.WorktreeHook:
			// What a hook made cannot be looked into for work to lose.
			if !c.in.Discard {
				return nil, tool.InvalidInputf("Could not verify worktree state at “%s”. Refusing to remove without explicit confirmation. Confirm with the user, then re-invoke with discard_changes: true to proceed — or use action: \"keep\" to preserve the worktree.", path)
			}
		default:
			files, commits, err = c.t.m.Changes(ctx, req, path)
			if err != nil && !c.in.Discard {
				return nil, tool.Failf("The worktree's changes could not be read, so it was not removed: %v", err)
			}
			if (files > 0 || commits > 0) && !c.in.Discard {
				return nil, tool.InvalidInputf("Worktree has %s. Removing will discard this work permanently. Confirm with the user, then re-invoke with discard_changes: true — or use action: \"keep\" to preserve the worktree.", changeList(files, commits, branch))
			}
		}
	}
	// The session leaves first: a removal that fails then leaves a
	// directory behind, never a session whose directory is gone.
	left, err := c.t.sessions.UpdateSession(context.WithoutCancel(ctx), env.SessionID, func(s *store.Session) error {
		if s.Worktree != path {
			return errMoved
		}
		s.Worktree, s.WorktreeGitDir, s.Cwd = "", "", back
		s.WorktreeKind, s.WorktreeBranch, s.WorktreeReturn = "", "", ""
		return nil
	})
	if err == errMoved {
		return nil, tool.InvalidInputf("%s", noSession)
	}
	if err != nil {
		return nil, tool.Errorf(tool.KindUnavailable, "The session could not leave the worktree: %v", err)
	}
	// The session's directories now are the workspace's; git and the
	// hooks run with those (the worktree lies inside the workspace).
	req.Dirs = append([]string{left.Workspace}, left.AdditionalDirs...)
	wctx := context.WithoutCancel(ctx)
	if c.in.Action == "keep" {
		if s.WorktreeKind == store.WorktreeMade {
			c.t.m.Unlock(wctx, req, path)
		}
		res := tool.Text(fmt.Sprintf("Exited worktree. Your work is preserved at “%s”%s. Session is now back in “%s”.", path, onBranch(branch), back))
		return withMeta(res, path, branch), nil
	}
	if s.WorktreeKind == store.WorktreeHook {
		if !c.t.m.RemoveByHook(wctx, HookRequest{Request: req, Workspace: left.Workspace}, path, s.WorktreeGitDir) {
			res := tool.Text(fmt.Sprintf("Exited worktree but could not remove it. It is kept at “%s”. Session is now back in “%s”.", path, back))
			return withMeta(res, path, branch), nil
		}
		res := tool.Text(fmt.Sprintf("Exited and removed worktree at “%s”. Session is now back in “%s”.", path, back))
		return withMeta(res, path, branch), nil
	}
	if err := c.t.m.Remove(wctx, req, path, branch); err != nil {
		return nil, tool.Bare(tool.Failf("Exited the worktree, but removing it failed: %v. Session is now back in “%s”; the worktree is still at “%s”.", err, back, path))
	}
	discarded := ""
	if c.in.Discard && (files > 0 || commits > 0) {
		discarded = " Discarded " + lost(files, commits) + "."
	}
	res := tool.Text(fmt.Sprintf("Exited and removed worktree at “%s”.%s Session is now back in “%s”.", path, discarded, back))
	return withMeta(res, path, branch), nil
}

func withMeta(res *tool.Result, path, branch string) *tool.Result {
	res.WithMeta("worktree_path", path)
	if branch != "" {
		res.WithMeta("worktree_branch", branch)
	}
	return res
}

// returnDir is where ExitWorktree takes the session: where it was before
// it entered its first worktree (or the nested repository that owns the
// worktree), while that is still a directory of the workspace outside
// the worktree; else the workspace.
func returnDir(s *store.Session) string {
	r := s.WorktreeReturn
	if r == "" {
		return s.Workspace
	}
	ws := realOr(s.Workspace)
	real, err := filepath.EvalSymlinks(r)
	if err != nil || !within(real, ws) || within(real, realOr(s.Worktree)) {
		return s.Workspace
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return s.Workspace
	}
	return r
}

var errMoved = fmt.Errorf("the session left the worktree meanwhile")

// changeList names what a removal would lose, as Claude Code counts it:
// "1 uncommitted file", "2 commits on “worktree-x”".
func changeList(files, commits int, branch string) string {
	var parts []string
	if files > 0 {
		parts = append(parts, plural(files, "uncommitted file"))
	}
	if commits > 0 {
		parts = append(parts, plural(commits, "commit")+" on “"+branch+"”")
	}
	return strings.Join(parts, " and ")
}

// lost names what a removal discarded: "2 uncommitted files", "1 commit".
func lost(files, commits int) string {
	var parts []string
	if files > 0 {
		parts = append(parts, plural(files, "uncommitted file"))
	}
	if commits > 0 {
		parts = append(parts, plural(commits, "commit"))
	}
	return strings.Join(parts, " and ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
