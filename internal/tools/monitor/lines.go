package monitor

import (
	"bytes"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/toold/toold/internal/notify"
)

// Claude Code 2.1.332's rules for turning a monitor's standard output into
// events, which lines does the same (lengths in UTF-16 code units, as
// Claude Code counts them):
const (
	// maxLine: a line is cut to its first 500 units, lineCut marking it.
	maxLine = 500
	lineCut = "...(truncated)"
	// maxBatch: the lines of one notification, joined by newlines, are
	// cut to their first 3000 units, batchCut marking it; lines that
	// come while a batch is past that are dropped.
	maxBatch = 3000
	batchCut = "\n...(truncated)"
	// maxPartial: of a line still without its newline, the last 1 MiB
	// is kept.
	maxPartial = 1 << 20
)

// lines collects a monitor's standard output into batches of lines. Each
// line is trimmed (as JavaScript's trim does) and an empty one dropped.
// It is fed from the shell's copy goroutine, which must never wait long,
// and read by the monitor's watch; it keeps at most one batch and one
// partial line, however fast the command writes.
type lines struct {
	mu      sync.Mutex
	partial []byte
	batch   []string
	units   int // of the batch joined by newlines
	stdout  int64
	// ready gets a value (without blocking) when a batch starts.
	ready chan struct{}
}

func newLines() *lines { return &lines{ready: make(chan struct{}, 1)} }

// feed takes a piece of standard output.
func (l *lines) feed(p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stdout += int64(len(p))
	if len(l.partial)+len(p) > maxPartial {
		// As Claude Code: the last 1 MiB of what is pending, complete
		// lines in the part dropped included.
		all := append(l.partial, p...)
		cut := len(all) - maxPartial
		for cut < len(all) && !utf8.RuneStart(all[cut]) {
			cut++
		}
		l.partial, p = nil, all[cut:]
	}
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.partial = append(l.partial, p...)
			return
		}
		line := append(l.partial, p[:i]...)
		l.partial, p = nil, p[i+1:]
		if l.units <= maxBatch {
			l.add(string(line))
		}
	}
}

// add appends a complete line to the batch; the caller holds mu.
func (l *lines) add(raw string) {
	line := notify.TrimJS(validUTF8(raw))
	if line == "" {
		return
	}
	line = notify.Cut(line, maxLine, lineCut)
	if len(l.batch) == 0 {
		select {
		case l.ready <- struct{}{}:
		default:
		}
	} else {
		l.units++ // the newline that joins it
	}
	l.batch = append(l.batch, line)
	l.units += notify.Units(line)
}

// take returns the batch so far as one event text ("" when empty) and
// starts a new one. At the end (last) the partial line counts as a line.
func (l *lines) take(last bool) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if last && len(l.partial) > 0 {
		l.add(string(l.partial))
		l.partial = nil
	}
	text := notify.Cut(strings.Join(l.batch, "\n"), maxBatch, batchCut)
	l.batch, l.units = nil, 0
	return text
}

// stdoutBytes is how much standard output the command wrote.
func (l *lines) stdoutBytes() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stdout
}

// validUTF8 replaces each byte that is not part of valid UTF-8 with U+FFFD,
// as a JavaScript decoder of the output does.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
