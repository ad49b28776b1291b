package redisstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toold/toold/internal/store"
)

// tasksField is the field of the session's task list in its stamps hash
// (beside the blobs; no path starts with NUL), so that the list expires and
// is deleted with the session's other keys.
const tasksField = "\x00tasks"

func (s *Store) GetTasks(ctx context.Context, id string) (*store.TaskList, error) {
	l, _, err := s.readTasks(ctx, id)
	return l, err
}

// readTasks returns the list and its stored form ("" when there is none).
func (s *Store) readTasks(ctx context.Context, id string) (*store.TaskList, string, error) {
	k, err := s.keys(id)
	if err != nil {
		return nil, "", err
	}
	v, err := s.run(ctx, scriptGetBlob, id, k, tasksField)
	if err != nil {
		return nil, "", err
	}
	r, ok := v.([]any)
	if !ok || len(r) == 0 {
		return nil, "", unexpected(id, v)
	}
	if r[0] == int64(0) {
		return &store.TaskList{}, "", nil
	}
	raw, ok := r[1].(string)
	if len(r) != 2 || !ok {
		return nil, "", unexpected(id, v)
	}
	l := &store.TaskList{}
	if err := json.Unmarshal([]byte(raw), l); err != nil {
		return nil, "", fmt.Errorf("redis: session %s: task list: %w", id, err)
	}
	return l, raw, nil
}

// UpdateTasks reads the list, applies fn and stores the result with a
// compare-and-set (scriptSetTasks), retrying from a fresh read when
// another writer changed the list in between, as UpdateSession does.
func (s *Store) UpdateTasks(ctx context.Context, id string, fn func(*store.TaskList) error) (*store.TaskList, error) {
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
		l, raw, err := s.readTasks(ctx, id)
		if err != nil {
			return nil, err
		}
		if err := fn(l); err != nil {
			return nil, err
		}
		data, err := json.Marshal(l)
		if err != nil {
			return nil, fmt.Errorf("redis: session %s: encode task list: %w", id, err)
		}
		v, err := s.run(ctx, scriptSetTasks, id, k, tasksField, raw, string(data))
		if err != nil {
			return nil, err
		}
		if n, _ := v.(int64); n == 1 {
			return l, nil
		}
	}
	return nil, fmt.Errorf("redis: %w: session %s: task list update lost %d races", store.ErrUnavailable, id, s.opts.UpdateAttempts)
}
