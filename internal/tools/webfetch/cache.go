package webfetch

import (
	"container/list"
	"sync"
	"time"
)

// cache keeps fetched pages for a while, bounded in total size, evicting
// the least recently used first. Entries are per session: one session's
// fetches neither show in, nor can be timed from, another's.
type cache struct {
	ttl      time.Duration
	maxBytes int64
	now      func() time.Time

	mu    sync.Mutex
	size  int64
	order *list.List // of *cacheEntry, most recently used at the front
	byKey map[cacheKey]*list.Element
}

type cacheKey struct {
	session string
	url     string
}

type cacheEntry struct {
	key     cacheKey
	page    page
	expires time.Time
}

func newCache(ttl time.Duration, maxBytes int64, now func() time.Time) *cache {
	return &cache{ttl: ttl, maxBytes: maxBytes, now: now, order: list.New(), byKey: map[cacheKey]*list.Element{}}
}

func (c *cache) get(k cacheKey) (page, bool) {
	if c.ttl <= 0 {
		return page{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[k]
	if !ok {
		return page{}, false
	}
	e := el.Value.(*cacheEntry)
	if !c.now().Before(e.expires) {
		c.remove(el)
		return page{}, false
	}
	c.order.MoveToFront(el)
	return e.page, true
}

func (c *cache) put(k cacheKey, p page) {
	n := p.cost()
	if c.ttl <= 0 || n > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[k]; ok {
		c.remove(el)
	}
	c.byKey[k] = c.order.PushFront(&cacheEntry{key: k, page: p, expires: c.now().Add(c.ttl)})
	c.size += n
	for c.size > c.maxBytes {
		c.remove(c.order.Back())
	}
}

// dropSession forgets every page a session fetched.
func (c *cache) dropSession(session string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, el := range c.byKey {
		if k.session == session {
			c.remove(el)
		}
	}
}

func (c *cache) remove(el *list.Element) {
	e := c.order.Remove(el).(*cacheEntry)
	delete(c.byKey, e.key)
	c.size -= e.page.cost()
}
