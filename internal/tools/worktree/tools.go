// Package worktree implements EnterWorktree and ExitWorktree: a worktree
// of the session's repository that the session's tools then work in, and
// the way back.
//
// Decisions, following Claude Code 2.1.332 (recorded with the oracle,
// test/conformance/cases_worktree*.json and host_cases_worktree.json):
//   - a new worktree goes to <repo>/.claude/worktrees/<name> on branch
//     worktree-<name> ("/" in a name becomes "+"), made with git worktree
//     add -B from the base worktree.baseRef names: "fresh" (the default)
//     is origin's default branch, fetched when the local copy is missing
//     or a day old, else the local HEAD; "head" is the local HEAD. It is
//     locked while the session is in it;
//   - with `path` the session enters an existing linked worktree of its
//     repository (or, on first entry, of a repository nested inside it);
//     from a worktree only one under .claude/worktrees. ExitWorktree
//     leaves such a worktree (keep) and never removes it. A path outside
//     the repository's .claude/worktrees needs permission (a safety check
//     no allow rule answers);
//   - with WorktreeCreate hooks configured, the hook makes the worktree
//     (in a repository too) and prints its path; ExitWorktree removes it
//     with the WorktreeRemove hooks, and only with discard_changes, as it
//     cannot tell what would be lost;
//   - a name whose folder exists is resumed (cases_worktree_resume.json):
//     a linked worktree of the repository is taken up as it is, or reset
//     to a fresh base when it has nothing of its own; an orphan is cleared
//     away and made anew; another repository's worktree, a link on the
//     way and anything git refuses are refused. The session owns what it
//     resumed unless another holds its lock (see resume.go);
//   - a subagent's isolation "worktree" comes through the same path
//     (Manager.Make): the hooks when configured, else git, under Claude
//     Code's name agent-<id>.
//
// toold goes further than moving the cwd: while the session is in a
// worktree, the worktree is the session's primary directory
// (store.Session.Worktree), so file containment, the sandbox's write
// grants and the anchor of permission rules are the worktree's, on every
// replica, until ExitWorktree. Whatever Claude Code accepts, the worktree,
// its repository and that repository's git directory must lie inside the
// session's workspace, symlinks resolved, for worktrees made, entered,
// resumed or printed by a hook alike: a tenant's session never reaches
// past its subtree. git runs confined like a Bash command, with hooks and
// the fsmonitor off; the fetch of a fresh base also runs no program the
// repository's configuration names (see fetchConfig).
//
// Not done: the liveness check of another session's lock on a worktree
// entered by path, and what Claude Code does with a subagent's worktree
// when the subagent ends (it removes a clean git one and names a kept one
// in the Agent result; toold keeps it for the child's ExitWorktree).
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
		return nil, tool.InvalidInputf("InputValidationError: [\n  {\n    \"code\": \"custom\",\n    \"path\": [],\n    \"message\": \"Provide at most one of `name` or `path`, not both.\"\n  }\n]")
	}
	c := &enterCall{t: t}
	if in.Name != nil {
		if err := checkName(*in.Name); err != nil {
			return nil, err
		}
		c.name = *in.Name
	}
	if in.Path != nil {
		// An empty path is no path, as in Claude Code: a new worktree.
		c.path = *in.Path
	}
	return c, nil
}

type enterCall struct {
	t          *enterTool
	name, path string
	// managed: path leads into the session repository's own
	// .claude/worktrees (Situate).
	managed bool
}

// Situate is told the session's directory before the call is decided:
// whether path leads into the repository's .claude/worktrees decides
// whether the call needs permission.
func (c *enterCall) Situate(cwd string) {
	if c.path != "" {
		c.managed = managedPath(cwd, c.path)
	}
}

// Traits: EnterWorktree needs no permission in Claude Code to make a
// worktree or to enter one of the repository's .claude/worktrees: it
// writes only below the repository (confined as a Bash command is). A
// path anywhere else moves the session's write access there, which Claude
// Code asks about in every mode but bypassPermissions, whatever the allow
// rules say (a safety check; dontAsk denies it). It runs alone, so that
// two calls of a turn do not race for the session.
func (c *enterCall) Traits() tool.Traits {
	if c.path == "" || c.managed {
		return tool.Traits{ReadOnly: true}
	}
	return tool.Traits{SafetyCheck: true}
}

func (c *enterCall) Activity() tool.Activity {
	switch {
	case c.path != "":
		return tool.Activity{Summary: "Enter worktree " + c.path}
	case c.name != "":
		return tool.Activity{Summary: "Enter worktree " + c.name}
	}
	return tool.Activity{Summary: "Enter a new worktree"}
}

// alreadyIn is Claude Code's refusal of a second worktree.
const alreadyIn = "Already in a worktree session. Pass `path` to switch into another existing worktree, or use ExitWorktree to leave this one before creating a new worktree."

// enterTail ends every EnterWorktree result.
const enterTail = " The session is now working in the worktree. Use ExitWorktree to leave mid-session, or exit the session to be prompted."

func (c *enterCall) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	s, err := c.t.sessions.GetSession(ctx, env.SessionID)
	if err != nil {
		return nil, tool.Errorf(tool.KindUnavailable, "The session could not be read: %v", err)
	}
	if c.path != "" {
		return c.enterPath(ctx, env, s)
	}
	if s.Worktree != "" {
		return nil, tool.InvalidInputf("%s", alreadyIn)
	}
	name := c.name
	if name == "" {
		name = randomName()
	}
	req := Request{SessionID: env.SessionID, Dirs: env.Files.Dirs(), Cwd: env.Cwd, Environ: env.Environ, Name: name}
	wt, kind, err := c.t.m.Make(ctx, HookRequest{Request: req, Workspace: s.Workspace})
	if err != nil {
		return nil, toolError(err)
	}
	_, err = c.t.sessions.UpdateSession(context.WithoutCancel(ctx), env.SessionID, func(s *store.Session) error {
		if s.Worktree != "" {
			return errBusy
		}
		// ExitWorktree returns to where the session is now.
		back := s.Cwd
		s.Worktree, s.WorktreeGitDir, s.Cwd = wt.Path, wt.GitDir, wt.Path
		s.WorktreeKind, s.WorktreeBranch, s.WorktreeReturn = kind, wt.Branch, back
		return nil
	})
	if err != nil {
		// The session did not move: what git made goes again (a hook's
		// worktree is the hook's to remove, a resumed one stays as it
		// was found, let go of).
		switch {
		case kind == store.WorktreeMade && !wt.Resumed:
			c.t.m.Remove(context.WithoutCancel(ctx), req, wt.Path, wt.Branch)
		case kind == store.WorktreeMade:
			c.t.m.Unlock(context.WithoutCancel(ctx), req, wt.Path)
		}
		if err == errBusy {
			return nil, tool.InvalidInputf("%s", alreadyIn)
		}
		return nil, tool.Errorf(tool.KindUnavailable, "The session could not be moved into the worktree: %v", err)
	}
	res := tool.Text(createdText(wt))
	res.WithMeta("worktree_path", wt.Path)
	if wt.Branch != "" {
		res.WithMeta("worktree_branch", wt.Branch)
	}
	return res, nil
}

// enterPath moves the session into the existing worktree at c.path. From
// a worktree EnterWorktree made, the session lets go of that one (it is
// unlocked and left on disk) and ExitWorktree will only leave the new
// one. ExitWorktree returns to where the session was before its first
// worktree, or to the nested repository that owns this one.
func (c *enterCall) enterPath(ctx context.Context, env *tool.Env, s *store.Session) (*tool.Result, error) {
	// git runs with the workspace's directories: the repository's main
	// checkout is out of the session's reach while it is in a worktree.
	dirs := append([]string{s.Workspace}, s.AdditionalDirs...)
	req := Request{SessionID: env.SessionID, Dirs: dirs, Cwd: env.Cwd, Environ: env.Environ}
	wt, err := c.t.m.Enter(ctx, req, c.path, s.Worktree != "")
	if err != nil {
		return nil, toolError(err)
	}
	var left *store.Session
	_, err = c.t.sessions.UpdateSession(context.WithoutCancel(ctx), env.SessionID, func(cur *store.Session) error {
		if cur.Worktree != s.Worktree {
			return errMoved
		}
		left = cur.Clone()
		back := cur.WorktreeReturn
		if cur.Worktree == "" {
			back = cur.Cwd
		}
		if wt.Nested {
			back = wt.Repo
		}
		cur.Worktree, cur.WorktreeGitDir, cur.Cwd = wt.Path, wt.GitDir, wt.Path
		cur.WorktreeKind, cur.WorktreeBranch, cur.WorktreeReturn = store.WorktreeEntered, wt.Branch, back
		return nil
	})
	if err == errMoved {
		return nil, tool.Errorf(tool.KindUnavailable, "The session entered or left a worktree while this call ran; nothing was changed. Call EnterWorktree again.")
	}
	if err != nil {
		return nil, tool.Errorf(tool.KindUnavailable, "The session could not be moved into the worktree: %v", err)
	}
	if left.Worktree != "" && left.Worktree != wt.Path && left.WorktreeKind == store.WorktreeMade {
		// No longer this session's: git may prune it again.
		c.t.m.Unlock(context.WithoutCancel(ctx), req, left.Worktree)
	}
	res := tool.Text("Entered worktree at “" + wt.Path + "”" + onBranch(wt.Branch) + "." + enterTail)
	res.WithMeta("worktree_path", wt.Path)
	if wt.Branch != "" {
		res.WithMeta("worktree_branch", wt.Branch)
	}
	return res, nil
}

// createdText is EnterWorktree's result for a worktree of a name:
// Claude Code's words for a new one, one resumed as it was, and one reset
// to the current base.
func createdText(wt Worktree) string {
	verb, note := "Created", ""
	switch {
	case wt.Reset:
		verb, note = "Reused", " A worktree with this name already existed; its previous work was fully merged upstream, so it was reset to the current base."
	case wt.Resumed:
		verb, note = "Resumed", " A worktree with this name already existed and was resumed as-is — it may carry an earlier session’s commits. Pass a different name if you wanted a fresh worktree."
	}
	return verb + " worktree at “" + wt.Path + "”" + onBranch(wt.Branch) + "." + note + enterTail
}

func onBranch(branch string) string {
	if branch == "" {
		return ""
	}
	return " on branch “" + branch + "”"
}

// toolError is what the model reads of a failure: a tool error as it is,
// anything else bare, as Claude Code's tools throw it.
func toolError(err error) error {
	if te, ok := err.(*tool.Error); ok {
		return te
	}
	return tool.Bare(tool.Failf("%s", err.Error()))
}

var errBusy = fmt.Errorf("already in a worktree")
