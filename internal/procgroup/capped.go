package procgroup

import (
	"bytes"
	"sync"
)

// Capped is a process's output kept up to Limit bytes. When more comes it
// calls Overflow once (typically to kill the group); writes past the limit
// are accepted and dropped, so that the goroutine copying the pipe drains
// it until the group is dead instead of blocking the process.
type Capped struct {
	Limit    int
	Overflow func()

	mu   sync.Mutex
	buf  bytes.Buffer
	over bool
}

func (c *Capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.Limit - c.buf.Len(); room < len(p) {
		c.buf.Write(p[:max(room, 0)])
		if !c.over {
			c.over = true
			if c.Overflow != nil {
				c.Overflow()
			}
		}
		return len(p), nil
	}
	c.buf.Write(p)
	return len(p), nil
}

// Bytes returns a copy of what was kept.
func (c *Capped) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf.Bytes())
}

// String returns what was kept.
func (c *Capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}
