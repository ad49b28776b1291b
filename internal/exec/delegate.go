package exec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/tool"
)

// Delegated calls (tool.Definition.Delegated) are finished by the
// orchestrator. They reuse the permission asks' machinery: the waiting
// call opens a request in the same PendingRequests registry (shared
// through Redis, so CompleteCall may reach any replica), under an id
// derived from its tool_use_id, and the completion arrives as that
// request's Answer. The registry delivers one answer per request, which
// makes a second CompleteCall an error; the journal stores the result
// once, as for any call.

// DelegateConfig governs delegated calls.
type DelegateConfig struct {
	// Pending holds the delegated calls waiting for their completion
	// (default: Ask.Pending). With Redis, give it a registry whose markers
	// outlive Timeout.
	Pending PendingRequests
	// Timeout is how long a delegated call waits for CompleteCall before
	// it fails (default 30 minutes: a subagent may work for long).
	Timeout time.Duration
	// Children creates and lists child sessions (subagents'); nil: a
	// delegation that needs one fails in-band.
	Children ChildSessions
}

func (d *DelegateConfig) defaults(ask PendingRequests) {
	if d.Pending == nil {
		d.Pending = ask
	}
	if d.Timeout <= 0 {
		d.Timeout = 30 * time.Minute
	}
}

// ChildSessions makes and finds the child sessions of a session.
// session.Manager implements it.
type ChildSessions interface {
	// CreateChild stores a child of parent for the call toolUseID, with
	// the parent's mode, rules, directories and environment, its current
	// directory at. A spec asking for a worktree makes it from at's
	// repository.
	CreateChild(ctx context.Context, parent *store.Session, at tool.ChildPlace, toolUseID string, spec tool.ChildSpec) (*store.Session, error)
	// Agents lists parent's children that still exist, oldest first.
	Agents(ctx context.Context, parent *store.Session) ([]tool.Agent, error)
}

// Delegation is the event that hands a call to the orchestrator.
type Delegation struct {
	Tool  string
	Input map[string]any
	// ChildSessionID is the session created for a subagent;
	// TargetSessionID the one a message is for; ParentSessionID the
	// calling session's parent, if it is a subagent's.
	ChildSessionID  string
	TargetSessionID string
	ParentSessionID string
	Agents          []tool.Agent
	Timeout         time.Duration
	// AdditionalContext is what the SubagentStart hooks add to the
	// subagent's context.
	AdditionalContext []string
}

// ErrNoDelegatedCall: no call of the session waits for CompleteCall under
// that tool_use_id (never delegated, timed out, or its client went away).
var ErrNoDelegatedCall = errors.New("no delegated call waits for a completion")

// ErrCallCompleted: the call has its result already (a second
// CompleteCall).
var ErrCallCompleted = errors.New("the call has its result already")

// delegationID is the pending-request id of a delegated call: derived from
// the tool_use_id, so that any replica finds it from what CompleteCall
// names, and in the shape the registries accept.
func delegationID(toolUseID string) string {
	h := sha256.Sum256([]byte(toolUseID))
	return "dlg_" + hex.EncodeToString(h[:12])
}

// delegated hands the call to the orchestrator and waits for its
// completion. runTool calls it in place of the tool's Run.
func (e *Engine) delegated(ctx context.Context, c *Call, env *tool.Env) (*tool.Result, error) {
	d, ok := c.Invocation.(tool.Delegator)
	if !ok {
		return nil, fmt.Errorf("tool %s is declared delegated but its invocation is not a tool.Delegator", c.ToolName())
	}
	if c.unclaimed {
		return nil, errNeedsClaim
	}
	cfg := e.cfg.Delegate
	agents, err := e.agents(ctx, c.Session)
	if err != nil {
		return nil, tool.Errorf(tool.KindUnavailable, "The session's agents could not be listed, so %s did not run: %v", c.ToolName(), err)
	}
	del, err := d.Delegate(ctx, env, c.Session.Parent, agents)
	if err != nil {
		return nil, err
	}
	if del.Result != nil {
		return del.Result, nil
	}
	if c.streamless {
		// The delegation could not reach the orchestrator.
		return nil, errNeedsStream
	}
	answers, done, err := cfg.Pending.Open(ctx, c.Session.ID, delegationID(c.ToolUseID))
	if err != nil {
		return nil, tool.Errorf(tool.KindUnavailable, "%s could not be handed to the orchestrator: %v", c.ToolName(), err)
	}
	defer done()
	var extra []string
	if del.Child != nil {
		if err := e.spawn(ctx, c, env, del); err != nil {
			return nil, err
		}
		extra = e.subagentStarted(ctx, c, del)
	}
	c.Sink.Emit(Event{ToolUseID: c.ToolUseID, Delegation: &Delegation{
		Tool: c.ToolName(), Input: c.Args,
		ChildSessionID: del.ChildSessionID, TargetSessionID: del.TargetSessionID,
		ParentSessionID: c.Session.Parent, Agents: del.Agents, Timeout: cfg.Timeout,
		AdditionalContext: extra,
	}})
	timer := time.NewTimer(cfg.Timeout)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		return nil, tool.Errorf(tool.KindTimeout, "%s was not completed: the orchestrator gave no result within %s.", c.ToolName(), cfg.Timeout)
	case ans, ok := <-answers:
		if !ok || ans.Completion == nil {
			return nil, tool.Errorf(tool.KindUnavailable, "%s was not completed: the answer that came is not a completion.", c.ToolName())
		}
		return e.completed(ctx, c, env, d, del, *ans.Completion)
	}
}

// spawn creates the child session a delegation asks for.
func (e *Engine) spawn(ctx context.Context, c *Call, env *tool.Env, del *tool.Delegation) error {
	ch := e.cfg.Delegate.Children
	if ch == nil {
		return tool.Errorf(tool.KindUnavailable, "%s cannot start a subagent: this server makes no child sessions.", c.ToolName())
	}
	child, err := ch.CreateChild(ctx, c.Session, tool.ChildPlace{Cwd: env.Cwd, Dirs: env.Files.Dirs(), Environ: env.Environ}, c.ToolUseID, *del.Child)
	var te *tool.Error
	if errors.As(err, &te) {
		return err // the child's own refusal (no repository for a worktree)
	}
	if err != nil {
		return tool.Errorf(tool.KindUnavailable, "The subagent's session could not be created: %v", err)
	}
	del.ChildSessionID = child.ID
	return nil
}

// completed applies a completion: the tool shapes the result, and a mode
// it asks for becomes the session's before the result is reported, so
// that the model's next call already runs in it.
func (e *Engine) completed(ctx context.Context, c *Call, env *tool.Env, d tool.Delegator, del *tool.Delegation, comp tool.Completion) (*tool.Result, error) {
	e.subagentStopped(ctx, c, del, comp)
	out, err := d.Complete(ctx, env, del, comp)
	if err != nil {
		return nil, err
	}
	if comp.Launched && !out.Result.IsError {
		if err := e.launched(ctx, c, del); err != nil {
			return nil, err
		}
	}
	if out.Mode != "" && out.Mode != c.Session.Mode {
		_, err := e.cfg.Store.UpdateSession(ctx, c.Session.ID, func(s *store.Session) error {
			s.Mode = out.Mode
			return nil
		})
		if err != nil {
			return nil, tool.Errorf(tool.KindUnavailable, "The session's mode could not be changed to %s: %v", out.Mode, err)
		}
		e.sessions.drop(c.Session.ID)
	}
	return out.Result, nil
}

func (e *Engine) agents(ctx context.Context, s *store.Session) ([]tool.Agent, error) {
	if e.cfg.Delegate.Children == nil || len(s.Children) == 0 {
		return nil, nil
	}
	return e.cfg.Delegate.Children.Agents(ctx, s)
}

// CompleteCall completes a delegated call of the session, on whichever
// replica it waits. ErrCallCompleted when the call has its result already;
// ErrNoDelegatedCall when no such call waits. A final completion
// (comp.Final) is the report of a background agent the call launched
// (agent_report.go).
func (e *Engine) CompleteCall(ctx context.Context, sessionID, toolUseID string, comp tool.Completion) error {
	if err := e.checkOwner(ctx, sessionID); err != nil {
		return err
	}
	if comp.Final {
		return e.reportAgent(ctx, sessionID, toolUseID, comp)
	}
	err := e.cfg.Delegate.Pending.Resolve(ctx, sessionID, delegationID(toolUseID), Answer{Completion: &comp})
	if !errors.Is(err, ErrNoPendingRequest) {
		return err
	}
	ref := store.CallRef{SessionID: sessionID, ToolUseID: toolUseID}
	if _, st, _, rerr := e.cfg.Store.ReadEvents(ctx, ref, 1<<62, 0); rerr == nil && st == store.CallDone {
		return fmt.Errorf("call %s of session %s: %w", toolUseID, sessionID, ErrCallCompleted)
	}
	return fmt.Errorf("call %s of session %s: %w", toolUseID, sessionID, ErrNoDelegatedCall)
}
