package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"
)

// A session can end without DeleteSession: in Redis it expires after its
// idle TTL, and with the memory store a restart forgets every session.
// Nothing then releases what it held, so the sweep does: for each fresh
// workspace toold noted (fresh_workspace.go) whose session no longer
// exists, it runs what a delete runs on this replica (stop its calls, the
// OnDelete functions: shells, the sandbox's per-session directory) and
// removes the directory. It asks the store without refreshing anything,
// so it keeps no session alive, and it works on a volume shared by
// replicas, since the store is shared too.
//
// A note younger than SweepMinAge is left alone: Create notes and makes
// the directory just before it stores the session.

// SweepMinAge is how old a fresh workspace's note must be before the sweep
// may remove the workspace.
const SweepMinAge = 10 * time.Minute

// Sweep releases what the sessions that ended without a delete left, and
// returns how many it swept.
func (m *Manager) Sweep(ctx context.Context) (int, error) {
	notes := filepath.Join(m.root, freshNotes)
	entries, err := os.ReadDir(notes)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		id := e.Name()
		if CheckID(id) != nil {
			continue
		}
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() || m.now().Sub(fi.ModTime()) < SweepMinAge {
			continue
		}
		alive, err := m.store.SessionExists(ctx, id)
		if err != nil {
			return n, err
		}
		if alive {
			continue
		}
		stopCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err = m.calls.CancelSession(stopCtx, id)
		cancel()
		if err != nil {
			return n, err
		}
		for _, fn := range m.onDelete {
			fn(id)
		}
		m.removeFresh(id)
		m.log.Info("sweep: released a session that ended without a delete", "session", id)
		n++
	}
	return n, nil
}

// RunSweeper sweeps at start and then every interval until ctx ends; run
// it in its own goroutine. Failures are logged and retried next time.
func (m *Manager) RunSweeper(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if _, err := m.Sweep(ctx); err != nil && ctx.Err() == nil {
			m.log.Warn("sweep of ended sessions failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
