package filestate

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// WriteNumbered writes one line of Read's view as Claude Code gives it:
// the line number, unpadded, a tab, then the line whole, without a
// newline. A trailing carriage return is dropped (CRLF files read like LF
// ones) and invalid UTF-8 is replaced as a UTF-8 decoder replaces it (one
// U+FFFD for each maximal ill-formed subsequence), since results travel
// as protobuf strings.
func WriteNumbered(sb *strings.Builder, n int, line []byte) {
	var num [20]byte
	sb.Write(strconv.AppendInt(num[:0], int64(n), 10))
	sb.WriteByte('\t')
	if l := len(line); l > 0 && line[l-1] == '\r' {
		line = line[:l-1]
	}
	WriteDecoded(sb, line)
}

// WriteDecoded writes b as text, replacing each maximal ill-formed
// subsequence of UTF-8 with one U+FFFD, as the WHATWG decoder does.
func WriteDecoded(sb *strings.Builder, b []byte) {
	if utf8.Valid(b) {
		sb.Write(b)
		return
	}
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r != utf8.RuneError || size > 1 {
			sb.Write(b[:size])
			b = b[size:]
			continue
		}
		sb.WriteRune(utf8.RuneError)
		b = b[illFormedLen(b):]
	}
}

// illFormedLen is the length of the maximal ill-formed subsequence at the
// start of b (which does not start a valid rune): a lead byte followed by
// as many continuation bytes as could still begin a valid sequence.
func illFormedLen(b []byte) int {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		need, hi = 2, 0x9F
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	i := 1
	for ; i <= need && i < len(b); i++ {
		if b[i] < lo || b[i] > hi {
			break
		}
		lo, hi = 0x80, 0xBF
	}
	return i
}
