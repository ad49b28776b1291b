package edit

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/toold/toold/internal/tools/filestate"
)

const (
	// contextLines are shown before and after the changed lines.
	contextLines = 4
	// maxSnippetLines bounds the snippet when new_string is long.
	maxSnippetLines = 60
)

// writeSnippet appends the numbered lines around the first change, as Read
// would show them, so the model can check the result without a new Read.
func writeSnippet(sb *strings.Builder, ed filestate.Replaced) {
	out := ed.Content
	if len(out) == 0 {
		sb.WriteString(" The file is now empty.")
		return
	}
	startLine := 1 + bytes.Count(out[:ed.First], []byte("\n"))
	endLine := startLine
	if ed.NewLen > 0 {
		endLine += bytes.Count(out[ed.First:ed.First+ed.NewLen-1], []byte("\n"))
	}
	from := max(1, startLine-contextLines)
	to := endLine + contextLines
	cut := false
	if to-from+1 > maxSnippetLines {
		to, cut = from+maxSnippetLines-1, true
	}

	// Walk back from the change to the start of line `from`.
	off := bytes.LastIndexByte(out[:ed.First], '\n') + 1
	for range startLine - from {
		off = bytes.LastIndexByte(out[:off-1], '\n') + 1
	}

	sb.WriteString(" Here's the result of running `cat -n` on a snippet of the edited file:\n")
	n := from
	for ; n <= to && off < len(out); n++ {
		end := bytes.IndexByte(out[off:], '\n')
		if end < 0 {
			end = len(out) - off
		}
		if n > from {
			sb.WriteByte('\n')
		}
		filestate.WriteLine(sb, n, out[off:off+end])
		off += end + 1
	}
	if cut && off < len(out) {
		fmt.Fprintf(sb, "\n[Snippet cut after line %d; Read the file to see the rest of the change.]", n-1)
	}
}
