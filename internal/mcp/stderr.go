package mcp

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
)

// stderrTail keeps the end of a stdio server's stderr, which is where a
// server that fails to start says why, and logs it line by line.
type stderrTail struct {
	mu      sync.Mutex
	buf     []byte
	partial []byte
	log     *slog.Logger
}

const stderrKeep = 2048

func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > stderrKeep {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-stderrKeep:]...)
	}
	t.partial = append(t.partial, p...)
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			break
		}
		t.log.Debug("mcp server stderr", "line", string(t.partial[:i]))
		t.partial = t.partial[i+1:]
	}
	if len(t.partial) > stderrKeep {
		t.partial = t.partial[:0]
	}
	return len(p), nil
}

// take returns what was kept, trimmed, and forgets it.
func (t *stderrTail) take() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	t.buf, t.partial = t.buf[:0], t.partial[:0]
	return s
}
