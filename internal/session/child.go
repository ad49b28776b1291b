package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// MaxChildren bounds the subagents one session may start: the parent's
// stored record lists them, and must stay small.
const MaxChildren = 256

// ErrTooManyChildren: the session has started MaxChildren subagents.
var ErrTooManyChildren = fmt.Errorf("the session has started %d subagents, the most it may", MaxChildren)

// Children makes the child sessions of Agent calls (see
// exec.ChildSessions). A child shares its parent's workspace and
// additional directories, mode, rules of every source, tenant and
// environment, and the worktree it works in, if any; the operator's hooks
// apply to it as to every session. Its
// current directory starts at the parent's and is its own from then on.
type Children struct {
	store     store.Store
	worktrees WorktreeMaker
}

// WorktreeMaker makes the worktree of a child session (an Agent call with
// isolation "worktree") as EnterWorktree makes a session's: by the
// WorktreeCreate hooks when configured, else with git from the
// repository that holds the parent's directory. A *tool.Error is the
// model's to read.
type WorktreeMaker interface {
	MakeWorktree(ctx context.Context, req WorktreeRequest) (ChildWorktree, error)
}

// WorktreeRequest is the worktree a child session asks for.
type WorktreeRequest struct {
	// SessionID is the child's (git runs confined for it); ParentID the
	// parent's, under which the hooks are asked, as Claude Code asks them
	// under its own session for its agents.
	SessionID, ParentID string
	// Name is the worktree's name: agent-<child id>.
	Name string
	// Workspace is the sessions' workspace (the hooks' project
	// directory); Dirs the parent's directories, primary first, which the
	// repository and the worktree must lie in; Cwd the parent's directory.
	Workspace string
	Dirs      []string
	Cwd       string
	Environ   []string
}

// ChildWorktree is the worktree made for a child: its path, the git
// directory the child needs among its directories ("" for a hook's
// folder outside git), its branch, and how the child holds it
// (store.WorktreeMade, WorktreeHook, WorktreeEntered).
type ChildWorktree struct {
	Path, GitDir, Branch, Kind string
}

// AgentWorktreeName is the name a subagent's worktree is made under:
// Claude Code's agent-<agent id>, the agent's id being its child
// session's here.
func AgentWorktreeName(childID string) string { return "agent-" + childID }

// NewChildren returns the child-session maker on st; wm, when not nil,
// makes the worktrees of isolated subagents.
func NewChildren(st store.Store, wm WorktreeMaker) *Children {
	return &Children{store: st, worktrees: wm}
}

// CreateChild stores the child, then records it on the parent; when the
// parent cannot take it (deleted meanwhile, too many children) the child
// is dropped again.
func (c *Children) CreateChild(ctx context.Context, parent *store.Session, at tool.ChildPlace, toolUseID string, spec tool.ChildSpec) (*store.Session, error) {
	if len(parent.Children) >= MaxChildren {
		return nil, ErrTooManyChildren
	}
	id, err := newID()
	if err != nil {
		return nil, err
	}
	p := parent.Clone()
	child := &store.Session{
		ID:             id,
		Workspace:      p.Workspace,
		Mode:           p.Mode,
		Allow:          p.Allow,
		Deny:           p.Deny,
		Ask:            p.Ask,
		AdditionalDirs: p.AdditionalDirs,
		// A parent working in a worktree keeps its subagent there: the
		// worktree is the child's primary directory and policy root too.
		Worktree:         p.Worktree,
		WorktreeGitDir:   p.WorktreeGitDir,
		Cwd:              at.Cwd,
		CreatedAt:        time.Now().UTC(),
		User:             p.User,
		SessionRules:     p.SessionRules,
		Tenant:           p.Tenant,
		Env:              p.Env,
		Parent:           p.ID,
		AgentType:        spec.AgentType,
		AgentDescription: spec.Description,
	}
	if spec.Worktree {
		if c.worktrees == nil {
			return nil, tool.Bare(tool.Errorf(tool.KindFailed, "Cannot create agent worktree: this server makes no worktrees."))
		}
		wt, err := c.worktrees.MakeWorktree(ctx, WorktreeRequest{
			SessionID: id, ParentID: p.ID, Name: AgentWorktreeName(id),
			Workspace: p.Workspace, Dirs: at.Dirs, Cwd: at.Cwd, Environ: at.Environ,
		})
		if err != nil {
			return nil, err
		}
		child.Worktree, child.WorktreeGitDir, child.Cwd = wt.Path, wt.GitDir, wt.Path
		// ExitWorktree in the child leaves, keeps or removes it as the
		// session's own; it returns to the directory the parent was in.
		child.WorktreeKind, child.WorktreeBranch, child.WorktreeReturn = wt.Kind, wt.Branch, at.Cwd
	}
	if err := c.store.CreateSession(ctx, child); err != nil {
		return nil, fmt.Errorf("create the child session: %w", err)
	}
	_, err = c.store.UpdateSession(ctx, p.ID, func(s *store.Session) error {
		if len(s.Children) >= MaxChildren {
			return ErrTooManyChildren
		}
		s.Children = append(s.Children, id)
		return nil
	})
	if err != nil {
		if derr := c.store.DeleteSession(context.WithoutCancel(ctx), id); derr != nil && !errors.Is(derr, store.ErrNotFound) {
			err = errors.Join(err, fmt.Errorf("drop the child session %s: %w", id, derr))
		}
		return nil, fmt.Errorf("record the child on its parent: %w", err)
	}
	return child, nil
}

// Agents lists the parent's children that still exist.
func (c *Children) Agents(ctx context.Context, parent *store.Session) ([]tool.Agent, error) {
	out := make([]tool.Agent, 0, len(parent.Children))
	for _, id := range parent.Children {
		s, err := c.store.GetSession(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			continue // deleted or expired
		}
		if err != nil {
			return nil, err
		}
		out = append(out, tool.Agent{SessionID: s.ID, AgentType: s.AgentType, Description: s.AgentDescription})
	}
	return out, nil
}
