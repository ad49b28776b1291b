package shell

import "unicode/utf8"

// checkChars refuses characters on which bash and a reader (a person, or
// a program matching rules) may disagree (security.md R10): CR, which bash
// does not treat as a blank (§1 #6); NUL and other C0 and C1 controls; DEL;
// invisible and direction-changing characters; spaces other than the
// ASCII space and tab, which bash does not split on; invalid UTF-8. Only
// the first few are reported.
func checkChars(a *Analysis, src string) {
	reported := 0
	for i := 0; i < len(src); {
		c := src[i]
		if c >= 0x20 && c < 0x7f || c == '\t' || c == '\n' {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(src[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			a.unprovable("invalid UTF-8 at byte %d", i)
			reported++
		case suspiciousRune(r):
			a.unprovable("character %U at byte %d is a control, invisible or unusual space character", r, i)
			reported++
		}
		if reported == 3 {
			return
		}
		i += size
	}
}

// suspiciousRune reports the characters checkChars refuses.
func suspiciousRune(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20 || (r >= 0x7f && r <= 0xa0): // C0, DEL, C1, NBSP
		return true
	case r == 0xad, r == 0x34f, r == 0x61c, r == 0x115f, r == 0x1160, r == 0x1680, r == 0x180e:
		return true // soft hyphen, grapheme joiner, Arabic letter mark, Hangul fillers, ogham space, Mongolian separator
	case r >= 0x2000 && r <= 0x200f: // spaces, zero-width characters, LRM/RLM
		return true
	case r >= 0x2028 && r <= 0x202f: // line/paragraph separators, bidi embeddings and overrides, narrow NBSP
		return true
	case r >= 0x205f && r <= 0x206f: // math space, word joiner, invisible operators, bidi isolates
		return true
	case r == 0x3000, r == 0x3164, r == 0xfeff, r == 0xffa0, r == 0xfffd:
		return true
	case r >= 0xfe00 && r <= 0xfe0f, r >= 0xe0000 && r <= 0xe0fff: // variation selectors, tags
		return true
	case r >= 0xfff9 && r <= 0xfffb: // interlinear annotation
		return true
	}
	return false
}
