package exec

import (
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
	mu    sync.Mutex
	m     map[string]*wsEntry
}

type wsEntry struct {
	dirs []string
	ws   *workspace.Workspace
}

func newWorkspaceCache(owner *workspace.Owner) *workspaceCache {
	return &workspaceCache{owner: owner, m: make(map[string]*wsEntry)}
}

func (c *workspaceCache) get(s *store.Session) (*workspace.Workspace, error) {
	dirs := append([]string{s.Workspace}, s.AdditionalDirs...)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[s.ID]; ok {
		if slices.Equal(e.dirs, dirs) {
			// Commands use the paths: a directory swapped for a symlink
			// since it was opened is refused (workspace.OpenStable).
			if err := e.ws.Verify(); err != nil {
				return nil, err
			}
			return e.ws, nil
		}
		// Calls still using the old handles keep them open; os.Root
		// handles are closed with the entry only when nothing runs.
		delete(c.m, s.ID)
	}
	ws, err := workspace.OpenStable(s.Workspace, s.AdditionalDirs...)
	if err != nil {
		return nil, err
	}
	ws.SetOwner(c.owner)
	c.m[s.ID] = &wsEntry{dirs: dirs, ws: ws}
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
