package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/agent"
	"github.com/toold/toold/internal/tools/askuserquestion"
	"github.com/toold/toold/internal/tools/exitplanmode"
	"github.com/toold/toold/internal/tools/listagents"
	"github.com/toold/toold/internal/tools/sendmessage"
	"github.com/toold/toold/internal/tools/worktree"
)

// delegateConfig governs the tools the orchestrator completes (Agent,
// SendMessage, ListAgents, AskUserQuestion, ExitPlanMode). They are off by
// default: an orchestrator that does not answer DelegatedCall events with
// CompleteCall would leave such a call waiting until its timeout.
type delegateConfig struct {
	On      bool
	Timeout time.Duration
}

func addDelegateFlags(fs *flag.FlagSet) func() (delegateConfig, error) {
	on := fs.Bool("delegated-tools", false, "offer Agent (Task), SendMessage, ListAgents, AskUserQuestion and ExitPlanMode, which the orchestrator completes with ToolService.CompleteCall (see docs/delegation.md)")
	timeout := fs.Duration("delegate-timeout", 30*time.Minute, "how long a delegated call waits for CompleteCall before it fails")
	return func() (delegateConfig, error) {
		if *timeout <= 0 {
			return delegateConfig{}, fmt.Errorf("--delegate-timeout %s: want a positive duration", *timeout)
		}
		return delegateConfig{On: *on, Timeout: *timeout}, nil
	}
}

// delegatedTools are the tools the orchestrator completes, when offered.
func (c delegateConfig) tools() []tool.Tool {
	if !c.On {
		return nil
	}
	return []tool.Tool{agent.New(nil), askuserquestion.New(), exitplanmode.New(), listagents.New(), sendmessage.New()}
}

// engineConfig is the engine's DelegateConfig: with Redis, a registry of
// its own whose markers outlive the delegate timeout, so that any replica
// can complete a call that waits on another.
func (c delegateConfig) engineConfig(st store.Store, wm *worktree.Manager) exec.DelegateConfig {
	d := exec.DelegateConfig{Timeout: c.Timeout, Children: session.NewChildren(st, agentWorktrees{wm})}
	if offers := st.Offers(); offers.Pending != nil {
		d.Pending = sharedPending{offers.Pending(c.Timeout + time.Minute)}
	}
	return d
}

// agentWorktrees makes the worktrees of subagents started with isolation
// "worktree" through the path EnterWorktree takes (worktree.Manager.Make):
// the WorktreeCreate hooks when configured, else git under the
// repository's .claude/worktrees/agent-<id>. The worktree stays when the
// subagent ends: ExitWorktree in its session removes it.
type agentWorktrees struct{ m *worktree.Manager }

var _ session.WorktreeMaker = agentWorktrees{}

func (a agentWorktrees) MakeWorktree(ctx context.Context, r session.WorktreeRequest) (session.ChildWorktree, error) {
	req := worktree.HookRequest{
		Request:   worktree.Request{SessionID: r.SessionID, Dirs: r.Dirs, Cwd: r.Cwd, Environ: r.Environ, Name: r.Name},
		Workspace: r.Workspace, HookSessionID: r.ParentID,
	}
	wt, kind, err := a.m.Make(ctx, req)
	if err != nil {
		return session.ChildWorktree{}, worktree.AgentError(err)
	}
	return session.ChildWorktree{Path: wt.Path, GitDir: wt.GitDir, Branch: wt.Branch, Kind: kind}, nil
}
