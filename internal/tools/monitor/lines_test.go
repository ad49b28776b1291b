package monitor

import (
	"strings"
	"testing"
)

func TestLinesAsClaudeCodeMakesEvents(t *testing.T) {
	for _, c := range []struct {
		name   string
		chunks []string
		want   string
	}{
		{"trimmed, blank lines dropped", []string{"  a \t\r\n\n\r\n\u00a0b\ufeff\n"}, "a\nb"},
		{"a line split across chunks", []string{"hel", "lo\nwor", "ld\n"}, "hello\nworld"},
		{"a multi-byte character split across chunks", []string{"caf\xc3", "\xa9\n"}, "café"},
		{"invalid bytes", []string{"a\xffb\n"}, "a\ufffdb"},
		{"the partial line counts at the end", []string{"a\nb"}, "a\nb"},
		{"a long line", []string{strings.Repeat("x", 600) + "\n"}, strings.Repeat("x", 500) + "...(truncated)"},
		// 500 units: 250 characters outside the BMP.
		{"a long line counts UTF-16 units", []string{strings.Repeat("😀", 300) + "\n"}, strings.Repeat("😀", 250) + "...(truncated)"},
	} {
		l := newLines()
		for _, p := range c.chunks {
			l.feed([]byte(p))
		}
		if got := l.take(true); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestLinesBatchIsCut(t *testing.T) {
	l := newLines()
	var all []string
	for i := range 3000 {
		line := strings.Repeat("n", i%7+1)
		all = append(all, line)
		l.feed([]byte(line + "\n"))
	}
	want := strings.Join(all, "\n")[:3000] + "\n...(truncated)"
	if got := l.take(false); got != want {
		t.Fatalf("batch of %d chars, want %d", len(got), len(want))
	}
	// The next batch starts empty; lines dropped past the cut stay
	// dropped.
	if got := l.take(false); got != "" {
		t.Fatalf("after the cut: %q", got)
	}
	if l.stdoutBytes() == 0 {
		t.Fatal("standard output not counted")
	}
}

func TestLinesSignalABatch(t *testing.T) {
	l := newLines()
	l.feed([]byte("\n  \npartial"))
	select {
	case <-l.ready:
		t.Fatal("a batch was signalled with no complete line")
	default:
	}
	l.feed([]byte(" line\nmore\n"))
	select {
	case <-l.ready:
	default:
		t.Fatal("no signal for the first line of a batch")
	}
	if got := l.take(false); got != "partial line\nmore" {
		t.Fatalf("batch %q", got)
	}
}

// Of a line without its newline, the last 1 MiB is kept (and the line
// then cut to its first 500 units), as Claude Code does.
func TestLinesKeepTheLastMiBOfAHugeLine(t *testing.T) {
	l := newLines()
	l.feed([]byte("early\n"))
	l.take(false)
	l.feed([]byte(strings.Repeat("c", 100) + strings.Repeat("a", 1<<20-100)))
	l.feed([]byte(strings.Repeat("b", 10) + "\n"))
	// The kept MiB ends in the b's and the newline, so it lost the first
	// 11 c's; its line's first 500 units are the other c's and a's.
	if got := l.take(true); got != strings.Repeat("c", 89)+strings.Repeat("a", 411)+"...(truncated)" {
		t.Fatalf("huge line %q...", got[:40])
	}
	if len(l.partial) != 0 {
		t.Fatalf("partial kept: %d bytes", len(l.partial))
	}
}
