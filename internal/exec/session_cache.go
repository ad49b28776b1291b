package exec

import (
	"sync"

	"github.com/toold/toold/internal/store"
)

// sessionCache keeps each session as this replica last read it, with its
// ETag, so that a repeatable call can run without reading the session
// first: the store checks the ETag when the call is recorded, and a call
// that ran on a changed session is run again, on the new one.
type sessionCache struct {
	mu  sync.Mutex
	m   map[string]*store.Session
	max int
}

func newSessionCache(max int) *sessionCache {
	return &sessionCache{m: make(map[string]*store.Session), max: max}
}

// get returns a copy, which the caller may change.
func (c *sessionCache) get(id string) *store.Session {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.m[id]; s != nil {
		return s.Clone()
	}
	return nil
}

func (c *sessionCache) put(s *store.Session) {
	if s.ETag == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[s.ID]; !ok && len(c.m) >= c.max {
		// Any entry will do: a miss costs one round trip, once.
		for id := range c.m {
			delete(c.m, id)
			break
		}
	}
	c.m[s.ID] = s.Clone()
}

func (c *sessionCache) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, id)
}
