package grep

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// punctOrder is the order of ASCII punctuation and symbols in the root
// collation that JavaScript's String.prototype.localeCompare uses: all of
// them before digits, digits before letters.
const punctOrder = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"

// primary is a rune's weight at the first level of the collation: case
// does not count there.
func primary(r rune) (int, rune) {
	if r >= 0 && r < 0x80 {
		w := asciiPrimary[r]
		return int(w.group), w.weight
	}
	return primarySlow(r)
}

// asciiPrimary is primarySlow of each ASCII rune: paths are mostly ASCII,
// and files_with_matches sorts thousands of them (ties of modification
// time are common: a checkout or an unpacked archive).
var asciiPrimary = func() (t [0x80]struct {
	group  int8
	weight rune
}) {
	for r := range rune(0x80) {
		g, w := primarySlow(r)
		t[r].group, t[r].weight = int8(g), w
	}
	return t
}()

func primarySlow(r rune) (int, rune) {
	switch {
	case unicode.IsSpace(r):
		return 0, r
	case r < 0x80 && strings.ContainsRune(punctOrder, r):
		return 1, rune(strings.IndexRune(punctOrder, r))
	case unicode.IsDigit(r):
		return 3, r
	case unicode.IsLetter(r):
		return 4, unicode.ToLower(r)
	case unicode.IsPunct(r) || unicode.IsSymbol(r):
		return 2, r
	}
	return 5, r
}

// localeCompare approximates localeCompare on file paths: letters compare
// without case first, punctuation before digits before letters, and only
// then does case decide (lower case first), then the bytes.
func localeCompare(a, b string) int {
	// A common prefix weighs the same on both sides at every level: start
	// after it (at the start of the rune it may end inside of).
	k := 0
	for k < len(a) && k < len(b) && a[k] == b[k] {
		k++
	}
	for k > 0 && (k < len(a) && !utf8.RuneStart(a[k]) || k < len(b) && !utf8.RuneStart(b[k])) {
		k--
	}
	for i, j := k, k; i < len(a) || j < len(b); {
		if i >= len(a) {
			return -1
		}
		if j >= len(b) {
			return 1
		}
		ra, na := utf8.DecodeRuneInString(a[i:])
		rb, nb := utf8.DecodeRuneInString(b[j:])
		ga, wa := primary(ra)
		gb, wb := primary(rb)
		if ga != gb {
			return ga - gb
		}
		if wa != wb {
			if wa < wb {
				return -1
			}
			return 1
		}
		i, j = i+na, j+nb
	}
	// Equal but for case: the first lower-case letter wins.
	for i := k; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			la, lb := unicode.IsLower(rune(a[i])), unicode.IsLower(rune(b[i]))
			if la != lb {
				if la {
					return -1
				}
				return 1
			}
			break
		}
	}
	return strings.Compare(a, b)
}
