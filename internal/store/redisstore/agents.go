package redisstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toold/toold/internal/store"
)

// agentField is the field of an agent task in its session's stamps hash
// (beside the blobs and the task list; no path starts with NUL), so that it
// expires and is deleted with the session's other keys.
func agentField(agentID string) string { return "\x00agent\x00" + agentID }

func (s *Store) GetAgentTask(ctx context.Context, id, agentID string) (*store.AgentTask, error) {
	a, raw, err := s.readAgent(ctx, id, agentID)
	if err != nil {
		return nil, err
	}
	if raw == "" {
		return nil, fmt.Errorf("redis: session %s: agent task %s: %w", id, agentID, store.ErrNotFound)
	}
	return a, nil
}

// readAgent returns the task and its stored form ("" and a zero task when
// there is none).
func (s *Store) readAgent(ctx context.Context, id, agentID string) (*store.AgentTask, string, error) {
	k, err := s.keys(id)
	if err != nil {
		return nil, "", err
	}
	v, err := s.run(ctx, scriptGetBlob, id, k, agentField(agentID))
	if err != nil {
		return nil, "", err
	}
	r, ok := v.([]any)
	if !ok || len(r) == 0 {
		return nil, "", unexpected(id, v)
	}
	if r[0] == int64(0) {
		return &store.AgentTask{}, "", nil
	}
	raw, ok := r[1].(string)
	if len(r) != 2 || !ok {
		return nil, "", unexpected(id, v)
	}
	a := &store.AgentTask{}
	if err := json.Unmarshal([]byte(raw), a); err != nil {
		return nil, "", fmt.Errorf("redis: session %s: agent task %s: %w", id, agentID, err)
	}
	return a, raw, nil
}

// UpdateAgentTask reads the task, applies fn and stores the result with
// the task list's compare-and-set (scriptSetTasks, on the task's own
// field), retrying from a fresh read when another writer changed it in
// between: a report and a stop racing each other are applied one after the
// other, and the second sees the first.
func (s *Store) UpdateAgentTask(ctx context.Context, id, agentID string, fn func(*store.AgentTask) error) (*store.AgentTask, error) {
	k, err := s.keys(id)
	if err != nil {
		return nil, err
	}
	for attempt := range s.opts.UpdateAttempts {
		if attempt > 0 {
			if err := backoff(ctx, attempt); err != nil {
				return nil, unavailable(err)
			}
		}
		a, raw, err := s.readAgent(ctx, id, agentID)
		if err != nil {
			return nil, err
		}
		if err := fn(a); err != nil {
			return nil, err
		}
		data, err := json.Marshal(a)
		if err != nil {
			return nil, fmt.Errorf("redis: session %s: encode agent task: %w", id, err)
		}
		v, err := s.run(ctx, scriptSetTasks, id, k, agentField(agentID), raw, string(data))
		if err != nil {
			return nil, err
		}
		if n, _ := v.(int64); n == 1 {
			return a, nil
		}
	}
	return nil, fmt.Errorf("redis: %w: session %s: agent task update lost %d races", store.ErrUnavailable, id, s.opts.UpdateAttempts)
}
