// Package worktree implements EnterWorktree and ExitWorktree: a git
// worktree of the session's repository that the session's tools then work
// in, and the way back.
//
// Decisions, following Claude Code 2.1.332 (recorded with the oracle,
// test/conformance/cases_worktree.json): the worktree goes to
// <repo>/.claude/worktrees/<name> on a new branch worktree-<name> ("/" in
// a name becomes "+"), made from HEAD and locked while the session is in
// it; the session's directory becomes the worktree. toold goes further
// than moving the cwd: while the session is in a worktree, the worktree is
// the session's primary directory (store.Session.Worktree), so file
// containment, the sandbox's write grants and the anchor of permission
// rules are the worktree's, on every replica, until ExitWorktree. The
// repository, its git directory and the worktree must lie inside the
// session's workspace: a tenant's session never reaches past its subtree.
// git runs confined like a Bash command, with hooks and the fsmonitor off.
// Not done: entering an existing worktree with `path` (refused with a
// clear error), WorktreeCreate/WorktreeRemove hooks, and Claude Code's
// `fresh` base (origin/<default branch>): toold branches from HEAD.
package worktree

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// Tool names.
const (
	EnterName = "EnterWorktree"
	ExitName  = "ExitWorktree"
)

// Sessions is the part of the store the tools change: the session's
// worktree and directory, in one atomic update.
type Sessions interface {
	GetSession(ctx context.Context, id string) (*store.Session, error)
	UpdateSession(ctx context.Context, id string, fn func(*store.Session) error) (*store.Session, error)
}

// New returns EnterWorktree and ExitWorktree, sharing m.
func New(m *Manager, sessions Sessions) (enter, exit tool.Tool) {
	return &enterTool{m: m, sessions: sessions}, &exitTool{m: m, sessions: sessions}
}

type enterTool struct {
	m        *Manager
	sessions Sessions
}

func (t *enterTool) Definition() tool.Definition {
	return tool.Definition{
		Name:         EnterName,
		Description:  enterDescription,
		InputSchema:  json.RawMessage(enterSchema),
		SearchHint:   "git worktree isolate branch",
		MovesSession: true,
	}
}

type enterInput struct {
	Name *string `json:"name"`
	Path *string `json:"path"`
}

func (t *enterTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in enterInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for EnterWorktree: %v", err)
	}
	if in.Name != nil && in.Path != nil {
		return nil, tool.InvalidInputf("InputValidationError: [\n  {\n    \"code\": \"custom\",\n    \"message\": \"Provide either name or path, not both\",\n    \"path\": []\n  }\n]")
	}
	c := &enterCall{t: t}
	if in.Name != nil {
		if err := checkName(*in.Name); err != nil {
			return nil, err
		}
		c.name = *in.Name
	}
	if in.Path != nil {
		c.path = *in.Path
	}
	return c, nil
}

type enterCall struct {
	t          *enterTool
	name, path string
}

// Traits: EnterWorktree needs no permission in Claude Code. It writes
// only below the repository (confined as a Bash command is) and runs
// alone, so that two calls of a turn do not race for the session.
func (c *enterCall) Traits() tool.Traits { return tool.Traits{ReadOnly: true} }

func (c *enterCall) Activity() tool.Activity {
	if c.name != "" {
		return tool.Activity{Summary: "Enter worktree " + c.name}
	}
	return tool.Activity{Summary: "Enter a new worktree"}
}

// alreadyIn is Claude Code's refusal of a second worktree.
const alreadyIn = "Already in a worktree session. Pass `path` to switch into another existing worktree, or use ExitWorktree to leave this one before creating a new worktree."

func (c *enterCall) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	s, err := c.t.sessions.GetSession(ctx, env.SessionID)
	if err != nil {
		return nil, tool.Errorf(tool.KindUnavailable, "The session could not be read: %v", err)
	}
	if c.path != "" {
		if s.Worktree != "" {
			return nil, tool.InvalidInputf("Switching worktrees with `path` is not supported here. Use ExitWorktree to leave this one first.")
		}
		return nil, tool.InvalidInputf("Entering an existing worktree with `path` is not supported here. Omit `path` (and optionally pass `name`) to create a new worktree.")
	}
	if s.Worktree != "" {
		return nil, tool.InvalidInputf("%s", alreadyIn)
	}
	req := Request{SessionID: env.SessionID, Dirs: env.Files.Dirs(), Cwd: env.Cwd, Environ: env.Environ, Name: c.name}
	wt, err := c.t.m.Create(ctx, req)
	if err != nil {
		if te, ok := err.(*tool.Error); ok {
			return nil, te
		}
		return nil, tool.Bare(tool.Failf("%s", err.Error()))
	}
	_, err = c.t.sessions.UpdateSession(context.WithoutCancel(ctx), env.SessionID, func(s *store.Session) error {
		if s.Worktree != "" {
			return errBusy
		}
		s.Worktree, s.WorktreeGitDir, s.Cwd = wt.Path, wt.GitDir, wt.Path
		return nil
	})
	if err != nil {
		// The session did not move: what was made goes again.
		c.t.m.Remove(context.WithoutCancel(ctx), req, wt.Path, wt.Branch)
		if err == errBusy {
			return nil, tool.InvalidInputf("%s", alreadyIn)
		}
		return nil, tool.Errorf(tool.KindUnavailable, "The session could not be moved into the worktree: %v", err)
	}
	res := tool.Text(fmt.Sprintf("Created worktree at “%s” on branch “%s”. The session is now working in the worktree. Use ExitWorktree to leave mid-session, or exit the session to be prompted.", wt.Path, wt.Branch))
	res.WithMeta("worktree_path", wt.Path)
	res.WithMeta("worktree_branch", wt.Branch)
	return res, nil
}

var errBusy = fmt.Errorf("already in a worktree")
