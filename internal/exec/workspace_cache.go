package exec

import (
	"context"
	"log/slog"
	"slices"
	"sync"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/workspace"
)

// workspaceCache keeps each session's open directory handles, so a call
// does not reopen them. An entry is replaced when the session's directories
// change.
type workspaceCache struct {
	owner *workspace.Owner
	log   *slog.Logger
	mu    sync.Mutex
	m     map[string]*wsEntry
}

type wsEntry struct {
	dirs []string
	ws   *workspace.Workspace
}

func newWorkspaceCache(owner *workspace.Owner, log *slog.Logger) *workspaceCache {
	return &workspaceCache{owner: owner, log: log, m: make(map[string]*wsEntry)}
}

func (c *workspaceCache) get(s *store.Session) (*workspace.Workspace, error) {
	dirs := s.Dirs()
	c.mu.Lock()
	if e, ok := c.m[s.ID]; ok {
		if slices.Equal(e.dirs, dirs) {
			c.mu.Unlock()
			// Commands use the paths: a directory swapped for a symlink
			// since it was opened is refused (workspace.OpenStable). Its
			// system calls are made outside the lock, which every batch
			// of every session takes.
			if err := e.ws.Verify(); err != nil {
				return nil, err
			}
			return e.ws, nil
		}
		// Calls still using the old handles keep them open; os.Root
		// handles are closed with the entry only when nothing runs.
		delete(c.m, s.ID)
	}
	defer c.mu.Unlock()
	ws, err := workspace.OpenStable(dirs[0], dirs[1:]...)
	if err != nil {
		return nil, err
	}
	ws.SetOwner(c.owner)
	c.m[s.ID] = &wsEntry{dirs: dirs, ws: ws}
	// What writers killed mid-way left in the session's directories goes,
	// in the background: the sweep takes each file's lock, so it never
	// races a write.
	go SweepLeftovers(context.Background(), c.log, ws.Dirs()...)
	return ws, nil
}

func (c *workspaceCache) drop(id string) {
	c.mu.Lock()
	e, ok := c.m[id]
	delete(c.m, id)
	c.mu.Unlock()
	if ok {
		e.ws.Close()
	}
}

func (c *workspaceCache) closeAll() {
	c.mu.Lock()
	m := c.m
	c.m = make(map[string]*wsEntry)
	c.mu.Unlock()
	for _, e := range m {
		e.ws.Close()
	}
}

// SweepLeftovers removes the temporary and lock files of writes that were
// killed mid-way below dirs (workspace.Sweep), and logs what it did.
func SweepLeftovers(ctx context.Context, log *slog.Logger, dirs ...string) {
	res, err := workspace.Sweep(ctx, dirs...)
	if err != nil && ctx.Err() == nil {
		log.Warn("sweeping leftover temporary files failed", "dirs", dirs, "error", err)
	}
	if res.Temps+res.Locks > 0 || res.Cut {
		log.Info("swept leftovers of interrupted writes", "dirs", dirs, "temporary_files", res.Temps, "lock_files", res.Locks, "in_progress", res.Busy, "cut_short", res.Cut)
	}
}
