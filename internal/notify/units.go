package notify

import (
	"strings"
	"unicode/utf8"
)

// Claude Code measures and cuts its texts in UTF-16 code units (JavaScript
// string lengths): a character outside the Basic Multilingual Plane counts
// two. These helpers do the same on Go strings, never splitting a
// character: where a cut would fall inside one, it is left out.

// Units is the length of s in UTF-16 code units.
func Units(s string) int {
	n := 0
	for _, r := range s {
		n += runeUnits(r)
	}
	return n
}

func runeUnits(r rune) int {
	if r > 0xFFFF {
		return 2
	}
	return 1
}

// Head is the longest prefix of s of at most n units.
func Head(s string, n int) string {
	used := 0
	for i, r := range s {
		if used+runeUnits(r) > n {
			return s[:i]
		}
		used += runeUnits(r)
	}
	return s
}

// Tail is the longest suffix of s of at most n units.
func Tail(s string, n int) string {
	used := 0
	for i := len(s); i > 0; {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if used+runeUnits(r) > n {
			return s[i:]
		}
		used += runeUnits(r)
		i -= size
	}
	return s
}

// Cut returns s, or, when it is longer than n units, its first n followed
// by mark.
func Cut(s string, n int, mark string) string {
	if Units(s) <= n {
		return s
	}
	return Head(s, n) + mark
}

// TrimJS trims s as JavaScript's String.prototype.trim does: white space
// and line terminators, which take in U+FEFF as well as Unicode's spaces.
func TrimJS(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
			return true
		}
		return 0x2000 <= r && r <= 0x200A
	})
}
