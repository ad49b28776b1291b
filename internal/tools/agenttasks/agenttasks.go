// Package agenttasks keeps the background agents of a session as tasks:
// an Agent call launched in the background is a task (its id the agent's,
// the child session's) until the orchestrator reports the subagent's end
// (ToolService.CompleteCall with final) or TaskStop stops it. The state is
// in the store, so that the report given through one replica is read with
// TaskOutput on another, and ends the task exactly once.
package agenttasks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/toold/toold/internal/store"
)

var (
	// ErrNotFound: the session has no background agent of that id.
	ErrNotFound = errors.New("no background agent of that id")
	// ErrEnded: the agent's task has ended already (reported, or stopped);
	// Task says how.
	ErrEnded = errors.New("the background agent has ended already")
	// ErrWrongCall: the report names another Agent call than the one that
	// launched the agent.
	ErrWrongCall = errors.New("the agent was not launched by that call")
)

// EndedError is ErrEnded with the task as it ended.
type EndedError struct{ Task *store.AgentTask }

func (e *EndedError) Error() string {
	return fmt.Sprintf("agent %s is %s: %v", e.Task.ID, e.Task.State, ErrEnded)
}
func (e *EndedError) Unwrap() error { return ErrEnded }

// Launch records a background agent as a running task of the session. A
// launch of an id that is already a task changes nothing (a replayed
// completion).
func Launch(ctx context.Context, st store.AgentTasks, sessionID string, t store.AgentTask) error {
	_, err := st.UpdateAgentTask(ctx, sessionID, t.ID, func(a *store.AgentTask) error {
		if a.ID != "" {
			return nil
		}
		*a = t
		a.State = store.AgentRunning
		return nil
	})
	return err
}

// Report is the orchestrator's word on how a background agent ended.
type Report struct {
	// ToolUseID is the Agent call that launched it: it must match.
	ToolUseID string
	Text      string
	Failed    bool
	Usage     *store.AgentTaskUsage
}

// Finish ends a running agent's task with its report, once: a second
// report, or one after a stop, is an *EndedError and changes nothing.
func Finish(ctx context.Context, st store.AgentTasks, sessionID, agentID string, r Report, now time.Time) (*store.AgentTask, error) {
	return end(ctx, st, sessionID, agentID, func(a *store.AgentTask) error {
		if r.ToolUseID != "" && r.ToolUseID != a.ToolUseID {
			return fmt.Errorf("agent %s, call %s: %w", agentID, r.ToolUseID, ErrWrongCall)
		}
		a.State, a.Report, a.Usage, a.Ended = store.AgentCompleted, r.Text, r.Usage, now
		if r.Failed {
			a.State = store.AgentFailed
		}
		return nil
	})
}

// Stop ends a running agent's task as killed (TaskStop): from then on a
// report of it is refused, which is how the orchestrator learns of the
// stop if it has not seen TaskStop's result.
func Stop(ctx context.Context, st store.AgentTasks, sessionID, agentID string, now time.Time) (*store.AgentTask, error) {
	return end(ctx, st, sessionID, agentID, func(a *store.AgentTask) error {
		a.State, a.Ended = store.AgentKilled, now
		return nil
	})
}

func end(ctx context.Context, st store.AgentTasks, sessionID, agentID string, fn func(*store.AgentTask) error) (*store.AgentTask, error) {
	var ended *store.AgentTask
	a, err := st.UpdateAgentTask(ctx, sessionID, agentID, func(a *store.AgentTask) error {
		switch {
		case a.ID == "":
			return fmt.Errorf("%w: %s", ErrNotFound, agentID)
		case a.State != store.AgentRunning:
			ended = a.Clone()
			return &EndedError{Task: ended}
		}
		return fn(a)
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, agentID)
	}
	return a, err
}

// Get returns the session's agent task; ErrNotFound when there is none.
func Get(ctx context.Context, st store.AgentTasks, sessionID, agentID string) (*store.AgentTask, error) {
	a, err := st.GetAgentTask(ctx, sessionID, agentID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, agentID)
	}
	return a, err
}

// Poll intervals of Wait: a report may arrive through any replica, so the
// waiting reads the store, first often, then less.
const (
	pollFirst = 20 * time.Millisecond
	pollMax   = 500 * time.Millisecond
)

// Wait returns the agent's task once it has ended, or as it is when wait
// has passed (timedOut). A wait of 0 reads once.
func Wait(ctx context.Context, st store.AgentTasks, sessionID, agentID string, wait time.Duration) (a *store.AgentTask, timedOut bool, err error) {
	deadline := time.Now().Add(wait)
	interval := pollFirst
	for {
		a, err := Get(ctx, st, sessionID, agentID)
		if err != nil || a.State != store.AgentRunning {
			return a, false, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return a, wait > 0, nil
		}
		t := time.NewTimer(min(interval, left))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, false, ctx.Err()
		case <-t.C:
		}
		interval = min(2*interval, pollMax)
	}
}
