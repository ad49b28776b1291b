package filestate

import (
	"bytes"
	"strings"

	"github.com/toold/toold/internal/tool"
)

// Replaced is a file's content after one exact-string replacement.
type Replaced struct {
	Content []byte
	First   int // byte offset of the first replacement in Content
	NewLen  int // length of the replacement as written (CRLF included)
	Count   int // occurrences replaced
}

// The failure texts of an exact-string replacement. The wording follows
// Claude Code's, which models know how to act on.
const (
	NotFoundMessage   = "String to replace not found in file."
	LinePrefixMessage = " old_string seems to start with a line number and a tab from Read's output; those are not part of the file, leave them out."
)

// Replace applies the Edit rules to content in memory: old must occur
// exactly once, or at least once with all set; a file with CRLF line
// endings matches old and new written with plain newlines. old must not be
// empty. Failures are *tool.Error values of kind KindFailed.
func Replace(content []byte, old, new string, all bool) (Replaced, error) {
	oldB := []byte(old)
	n := bytes.Count(content, oldB)
	if n == 0 && strings.Contains(old, "\n") && !strings.Contains(old, "\r") && bytes.Contains(content, []byte("\r\n")) {
		// Read shows CRLF lines without their \r, so the model writes
		// plain newlines; match and write in the file's own line endings.
		oldB = []byte(strings.ReplaceAll(old, "\n", "\r\n"))
		if !strings.Contains(new, "\r") {
			new = strings.ReplaceAll(new, "\n", "\r\n")
		}
		n = bytes.Count(content, oldB)
	}
	switch {
	case n == 0:
		msg := NotFoundMessage
		if HasLinePrefix(old) {
			msg += LinePrefixMessage
		}
		return Replaced{}, tool.Failf("%s", msg)
	case n > 1 && !all:
		return Replaced{}, tool.Failf("Found %d matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.", n)
	}
	first := bytes.Index(content, oldB)
	var out []byte
	if all {
		out = bytes.ReplaceAll(content, oldB, []byte(new))
	} else {
		out = make([]byte, 0, len(content)-len(oldB)+len(new))
		out = append(out, content[:first]...)
		out = append(out, new...)
		out = append(out, content[first+len(oldB):]...)
	}
	return Replaced{Content: out, First: first, NewLen: len(new), Count: n}, nil
}

// HasLinePrefix reports whether s starts like a line of Read's output:
// optional spaces, digits, a tab.
func HasLinePrefix(s string) bool {
	s = strings.TrimLeft(s, " ")
	digits := len(s) - len(strings.TrimLeft(s, "0123456789"))
	return digits > 0 && digits < len(s) && s[digits] == '\t'
}
