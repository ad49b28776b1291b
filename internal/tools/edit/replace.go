package edit

import (
	"bytes"
	"strings"

	"github.com/toold/toold/internal/tool"
)

// edited is a file's new content and where its first change lies.
type edited struct {
	content []byte
	first   int // byte offset of the first replacement in content
	newLen  int // length of the replacement as written (CRLF included)
	count   int // occurrences replaced
}

// replace applies one Edit to content. old must not be empty.
func replace(content []byte, old, new string, all bool) (edited, error) {
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
		msg := "String to replace not found in file."
		if hasLinePrefix(old) {
			msg += " old_string seems to start with a line number and a tab from Read's output; those are not part of the file, leave them out."
		}
		return edited{}, tool.Failf("%s", msg)
	case n > 1 && !all:
		return edited{}, tool.Failf("Found %d matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.", n)
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
	return edited{content: out, first: first, newLen: len(new), count: n}, nil
}

// hasLinePrefix reports whether s starts like a line of Read's output:
// optional spaces, digits, a tab.
func hasLinePrefix(s string) bool {
	s = strings.TrimLeft(s, " ")
	digits := len(s) - len(strings.TrimLeft(s, "0123456789"))
	return digits > 0 && digits < len(s) && s[digits] == '\t'
}
