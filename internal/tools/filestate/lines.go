package filestate

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxLineChars is the longest line shown whole; longer lines are cut to
// this many characters (runes) and end with LineCutMarker.
const MaxLineChars = 2000

// MaxLineBytes is enough bytes to hold more than MaxLineChars runes
// whatever they are, so a reader that keeps this much of a long line can
// still tell that it must be cut.
const MaxLineBytes = 4*MaxLineChars + utf8.UTFMax

// LineCutMarker ends a line that was cut. It is outside the file's text, so
// the model must not copy it into an Edit.
const LineCutMarker = "... [line truncated]"

// WriteLine writes one line of a `cat -n` view, exactly as
// fmt.Sprintf("%6d\t%s", n, line) would, without a newline. A trailing
// carriage return is dropped (CRLF files read like LF ones), a line longer
// than MaxLineChars is cut, and invalid UTF-8 is replaced by U+FFFD, since
// results travel as protobuf strings.
func WriteLine(sb *strings.Builder, n int, line []byte) {
	var num [20]byte
	digits := strconv.AppendInt(num[:0], int64(n), 10)
	for i := len(digits); i < 6; i++ {
		sb.WriteByte(' ')
	}
	sb.Write(digits)
	sb.WriteByte('\t')

	if l := len(line); l > 0 && line[l-1] == '\r' {
		line = line[:l-1]
	}
	cut := false
	if len(line) > MaxLineChars {
		if i := runeOffset(line, MaxLineChars); i < len(line) {
			line, cut = line[:i], true
		}
	}
	writeValid(sb, line)
	if cut {
		sb.WriteString(LineCutMarker)
	}
}

// runeOffset returns the byte offset of the n-th rune of b, or len(b).
func runeOffset(b []byte, n int) int {
	for i := 0; i < len(b); n-- {
		if n == 0 {
			return i
		}
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return len(b)
}

func writeValid(sb *strings.Builder, b []byte) {
	if utf8.Valid(b) {
		sb.Write(b)
		return
	}
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			sb.WriteRune(utf8.RuneError)
		} else {
			sb.Write(b[:size])
		}
		b = b[size:]
	}
}
