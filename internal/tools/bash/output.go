package bash

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toold/toold/internal/tool"
)

const (
	// maxResultChars is where the result text is cut by default (Claude
	// Code's BASH_MAX_OUTPUT_LENGTH default) and, whatever Options say, how
	// long a result may be before the engine stores it whole and gives the
	// model a preview (Definition.MaxResultChars).
	maxResultChars = 30000
	// maxKeepChars bounds Options.MaxOutputChars.
	maxKeepChars = 4 << 20
	// streamCap is how much of each stream is forwarded as progress.
	streamCap = 1 << 20
	// hardCap is the total output after which the command is killed: past
	// it the output cannot be shown anyway and the command is most likely
	// stuck in a loop (yes, a runaway log).
	hardCap = 64 << 20
)

// capture receives the output of a call from both streams. Each stream is
// written by one goroutine of os/exec; only total is shared.
type capture struct {
	// mu serialises the writers of both streams with moveTo, so that no
	// output is lost or doubled when the command moves to the background.
	mu sync.Mutex
	// sink, once set, receives all further output: the command was moved
	// to the background and the call has returned.
	sink     io.Writer
	total    atomic.Int64
	overflow atomic.Bool
	// onOverflow is called once, from a writer, when total passes hardCap.
	onOverflow func()
	progress   tool.Progress
	out, err   stream
	// keepChars is where the result text is cut; keepBytes is what a
	// stream keeps for it: enough bytes for keepChars characters of up to
	// 4 bytes each. Nothing else of the output is held, so memory stays
	// bounded whatever the command prints.
	keepChars int
	keepBytes int
}

func newCapture(p tool.Progress, keepChars int, onOverflow func()) *capture {
	c := &capture{onOverflow: onOverflow, progress: p, keepChars: keepChars, keepBytes: keepChars * 4}
	c.out = stream{c: c, name: "stdout", forward: p.Stdout}
	c.err = stream{c: c, name: "stderr", forward: p.Stderr}
	return c
}

// stream is an io.Writer for one of stdout and stderr.
type stream struct {
	c       *capture
	name    string
	forward func([]byte)
	// hide is cut from what the stream receives: the cwd trap text, which
	// bash echoes in a syntax error on the command's first line.
	hide     []byte
	head     []byte // the first c.keepBytes bytes
	bytes    int64
	chars    int64
	streamed int
}

func (s *stream) Write(p []byte) (int, error) {
	written := len(p)
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	if s.c.sink != nil {
		if s.hide != nil && bytes.Contains(p, s.hide) {
			p = bytes.ReplaceAll(p, s.hide, nil)
		}
		s.c.sink.Write(p)
		return written, nil
	}
	if s.c.overflow.Load() {
		// Keep draining until the kill lands, so writers do not block.
		return written, nil
	}
	if s.hide != nil && bytes.Contains(p, s.hide) {
		p = bytes.ReplaceAll(p, s.hide, nil)
	}
	n := len(p)
	s.bytes += int64(n)
	s.chars += int64(countChars(p))
	if room := s.c.keepBytes - len(s.head); room > 0 {
		s.head = append(s.head, p[:min(room, n)]...)
	}
	if s.streamed < streamCap {
		k := min(streamCap-s.streamed, n)
		s.forward(p[:k])
		s.streamed += k
		if s.streamed == streamCap {
			s.c.progress.Message(fmt.Sprintf("The command's %s passed 1 MiB; the rest of it is not streamed. The result keeps the first %d characters of the output.", s.name, s.c.keepChars))
		}
	}
	if s.c.total.Add(int64(n)) > hardCap && s.c.overflow.CompareAndSwap(false, true) {
		s.c.onOverflow()
	}
	return written, nil
}

// bufPool holds the read buffers of ReadFrom: without it, os/exec's
// io.Copy allocates 32 KiB per stream and call.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// ReadFrom copies the pipe into the stream with a pooled buffer.
func (s *stream) ReadFrom(r io.Reader) (int64, error) {
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	var total int64
	for {
		n, err := r.Read(buf)
		if n > 0 {
			s.Write(buf[:n])
			total += int64(n)
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// complete reports whether head holds everything the stream received.
func (s *stream) complete() bool { return int64(len(s.head)) == s.bytes }

// countChars counts UTF-8 characters by their first bytes, which works on
// chunks that split a character.
func countChars(p []byte) int {
	n := len(p)
	for _, b := range p {
		if b&0xc0 == 0x80 {
			n--
		}
	}
	return n
}

// text is stdout, then stderr, cut at keepChars characters with a note
// saying how many more there were. It reports whether anything was cut.
func (c *capture) text() (string, bool) {
	out, outMissing := c.out.kept()
	errs, errMissing := c.err.kept()
	sep := 0
	if len(out) > 0 && len(errs) > 0 {
		sep = 1
	}
	total := int64(countChars(out)) + outMissing + int64(sep) + int64(countChars(errs)) + errMissing
	if total <= int64(c.keepChars) {
		if sep == 0 {
			return validUTF8(string(out) + string(errs)), false
		}
		return validUTF8(string(out) + "\n" + string(errs)), false
	}
	// Some stream is over keepChars, or their sum is; either way the
	// kept bytes hold more than keepChars characters (keepBytes is
	// enough for that many), so the cut falls inside them.
	var b strings.Builder
	b.Grow(c.keepBytes)
	b.Write(out)
	if sep == 1 {
		b.WriteByte('\n')
	}
	b.Write(errs)
	joined := b.String()
	cut := cutIndex(joined, c.keepChars)
	return fmt.Sprintf("%s\n\n... [output truncated: %d more characters]",
		validUTF8(joined[:cut]), total-int64(c.keepChars)), true
}

// kept returns what the stream keeps for the result, without trailing
// newlines when it is whole, and how many characters it did not keep.
func (s *stream) kept() ([]byte, int64) {
	if s.complete() {
		h := s.head
		for len(h) > 0 && h[len(h)-1] == '\n' {
			h = h[:len(h)-1]
		}
		return h, 0
	}
	return s.head, s.chars - int64(countChars(s.head))
}

// cutIndex returns the byte index at which s holds n characters.
func cutIndex(s string, n int) int {
	for i := 0; i < len(s); i++ {
		if s[i]&0xc0 != 0x80 {
			if n == 0 {
				return i
			}
			n--
		}
	}
	return len(s)
}

// validUTF8 replaces invalid bytes: results travel in protobuf strings.
func validUTF8(s string) string {
	return strings.ToValidUTF8(s, "\uFFFD")
}

// moveTo sends all further output to the writer sink made by start, which
// receives the output so far (stdout, then stderr, as kept) and returns
// the sink. Under the capture's lock no write falls between the two. When
// start fails, nothing changes.
func (c *capture) moveTo(start func(sofar []byte, text string) (io.Writer, error)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	sofar := make([]byte, 0, len(c.out.head)+len(c.err.head))
	sofar = append(append(sofar, c.out.head...), c.err.head...)
	text, _ := c.text()
	sink, err := start(sofar, text)
	if err != nil {
		return err
	}
	c.sink = sink
	return nil
}

// snapshot is text() under the capture's lock, for a command still
// running.
func (c *capture) snapshot() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.text()
}
