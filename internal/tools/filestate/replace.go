package filestate

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toold/toold/internal/tool"
)

// Replaced is a file's content after one exact-string replacement.
type Replaced struct {
	Content []byte
	Count   int // occurrences replaced
}

// The failure texts of an exact-string replacement. The wording is Claude
// Code's, which models know how to act on; each is followed by a line
// "String: " and old_string as given.
const (
	NotFoundMessage  = "String to replace not found in file."
	NotUniqueMessage = "Found %d matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance."
)

// Replace applies Claude Code's Edit rules to content in memory:
//
//   - a file whose lines mostly end in CRLF is matched and changed with
//     plain newlines (as Read shows it) and written back with CRLF;
//   - old must occur exactly once, or at least once with all set;
//   - when old does not occur as given but does once curly quotes (‘ ’ “ ”)
//     are read as straight ones, on either side, the file's text is
//     replaced and new takes the file's curly quote style;
//   - an empty new that deletes a line's text deletes its newline too.
//
// old must not be empty. Failures are *tool.Error values of kind
// KindNoMatch or KindNotUnique.
func Replace(content []byte, old, new string, all bool) (Replaced, error) {
	crlf := mostlyCRLF(content)
	text := content
	if crlf {
		text = bytes.ReplaceAll(content, []byte("\r\n"), []byte("\n"))
	}
	actual, ok := findActual(text, old)
	if !ok {
		return Replaced{}, tool.Errorf(tool.KindNoMatch, "%s\nString: %s", NotFoundMessage, old)
	}
	n := bytes.Count(text, []byte(actual))
	if n > 1 && !all {
		return Replaced{}, tool.Errorf(tool.KindNotUnique, NotUniqueMessage+"\nString: %s", n, old)
	}
	new = preserveQuoteStyle(old, actual, new)
	if new == "" && !strings.HasSuffix(actual, "\n") && bytes.Contains(text, []byte(actual+"\n")) {
		// Deleting a line's text deletes the line.
		actual += "\n"
		n = bytes.Count(text, []byte(actual))
	}
	var out []byte
	if all {
		out = bytes.ReplaceAll(text, []byte(actual), []byte(new))
	} else {
		first := bytes.Index(text, []byte(actual))
		out = make([]byte, 0, len(text)-len(actual)+len(new))
		out = append(out, text[:first]...)
		out = append(out, new...)
		out = append(out, text[first+len(actual):]...)
		n = 1
	}
	if crlf {
		out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
	}
	return Replaced{Content: out, Count: n}, nil
}

// mostlyCRLF reports whether more of content's line breaks are CRLF than
// bare LF: Claude Code then edits the file as LF text and writes it back
// with CRLF.
func mostlyCRLF(content []byte) bool {
	lf := bytes.Count(content, []byte("\n"))
	crlf := bytes.Count(content, []byte("\r\n"))
	return crlf > lf-crlf
}

// Curly quotes, which models often type straight (or the other way round).
const (
	leftSingle  = '\u2018'
	rightSingle = '\u2019'
	leftDouble  = '\u201c'
	rightDouble = '\u201d'
)

func straightQuote(r rune) rune {
	switch r {
	case leftSingle, rightSingle:
		return '\''
	case leftDouble, rightDouble:
		return '"'
	}
	return r
}

// findActual returns the text of the file that old stands for: old itself
// when the file holds it, else the first text that equals old once curly
// quotes on both sides are read as straight ones.
func findActual(text []byte, old string) (string, bool) {
	if bytes.Contains(text, []byte(old)) {
		return old, true
	}
	normOld := strings.Map(straightQuote, old)
	if normOld == old && !bytes.ContainsAny(text, "\u2018\u2019\u201c\u201d") {
		return "", false
	}
	// Compare rune by rune: a curly quote is three bytes, a straight one.
	want := []rune(normOld)
	if len(want) == 0 {
		return "", false
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRune(text[i:])
		if straightQuote(r) == want[0] {
			if end, ok := matchFrom(text, i, want); ok {
				return string(text[i:end]), true
			}
		}
		i += size
	}
	return "", false
}

// matchFrom reports whether text from byte i reads as want with straight
// quotes, and where that match ends.
func matchFrom(text []byte, i int, want []rune) (int, bool) {
	for _, w := range want {
		if i >= len(text) {
			return 0, false
		}
		r, size := utf8.DecodeRune(text[i:])
		if straightQuote(r) != w {
			return 0, false
		}
		i += size
	}
	return i, true
}

// preserveQuoteStyle gives new the file's curly quotes when the file's
// text (actual) differs from old by its quotes: a straight double quote
// becomes an opening or closing curly one by what precedes it, a straight
// single quote between two letters an apostrophe (’).
func preserveQuoteStyle(old, actual, new string) string {
	if old == actual {
		return new
	}
	double := strings.ContainsAny(actual, "\u201c\u201d")
	single := strings.ContainsAny(actual, "\u2018\u2019")
	if !double && !single {
		return new
	}
	rs := []rune(new)
	var sb strings.Builder
	for i, r := range rs {
		switch {
		case r == '"' && double:
			if opening(rs, i) {
				r = leftDouble
			} else {
				r = rightDouble
			}
		case r == '\'' && single:
			switch {
			case i > 0 && i+1 < len(rs) && unicode.IsLetter(rs[i-1]) && unicode.IsLetter(rs[i+1]):
				r = rightSingle
			case opening(rs, i):
				r = leftSingle
			default:
				r = rightSingle
			}
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// opening reports whether a quote at rs[i] opens a quotation: at the
// start, or after white space, an opening bracket or a dash.
func opening(rs []rune, i int) bool {
	if i == 0 {
		return true
	}
	switch rs[i-1] {
	case ' ', '\t', '\n', '\r', '(', '[', '{', '\u2014', '\u2013':
		return true
	}
	return false
}
