package monitor

import (
	"bytes"
	"sync"
)

// maxEventBytes bounds the events one call returns; the rest stays in the
// monitor's output file.
const maxEventBytes = 30000

// events collects a monitor's standard output as lines: each complete line
// is an event. It is fed from the shell's copy goroutine and read by the
// call; it keeps at most maxEventBytes of lines and a partial line of at
// most the same, counting what it leaves out.
type events struct {
	mu      sync.Mutex
	partial []byte
	lines   []byte
	omitted int64
	// first is closed at the first complete line.
	first     chan struct{}
	firstOnce sync.Once
}

func newEvents() *events { return &events{first: make(chan struct{})} }

// feed takes a piece of standard output. It never blocks for long: the
// shell's output must keep flowing.
func (e *events) feed(p []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			room := max(0, maxEventBytes-len(e.partial))
			e.partial = append(e.partial, p[:min(len(p), room)]...)
			e.omitted += int64(len(p) - min(len(p), room))
			return
		}
		line := append(e.partial, p[:i+1]...)
		e.partial = e.partial[:0:0]
		p = p[i+1:]
		if len(e.lines)+len(line) <= maxEventBytes {
			e.lines = append(e.lines, line...)
		} else {
			e.omitted += int64(len(line))
		}
		e.firstOnce.Do(func() { close(e.first) })
	}
}

// take returns the lines so far (without the last newline) and how many
// bytes of lines were left out.
func (e *events) take() (string, int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return string(bytes.TrimSuffix(e.lines, []byte("\n"))), e.omitted
}
