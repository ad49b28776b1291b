package grep

import (
	"bytes"
	"regexp/syntax"
	"strings"
)

// prefilter holds literals of which every match of a pattern contains at
// least one (TODO for TODO:.*, both of TODO|FIXME), so that the regexp
// only runs on lines holding one: Go's regexp has no fast path for
// alternations or case-insensitive text, ripgrep's has.
type prefilter struct {
	needles []*needle
	// unicodeFold: a case-insensitive needle holds k or s, which also
	// match the Kelvin sign and the long s. A text holding either is
	// searched without the prefilter.
	unicodeFold bool
}

// maxNeedles bounds the literals scanned for; more and the regexp alone
// is the better scan.
const maxNeedles = 8

type literal struct {
	runes []rune
	fold  bool
}

func newPrefilter(re *syntax.Regexp) *prefilter {
	lits := requiredLiterals(re)
	if len(lits) == 0 {
		return nil
	}
	p := &prefilter{}
	for _, l := range lits {
		n := newNeedle(l)
		if n == nil {
			return nil
		}
		p.needles = append(p.needles, n)
		p.unicodeFold = p.unicodeFold || (n.fold && bytes.ContainsAny(n.lit, "ks"))
	}
	return p
}

// requiredLiterals returns literals one of which every match of re
// contains, or nil.
func requiredLiterals(re *syntax.Regexp) []literal {
	switch re.Op {
	case syntax.OpLiteral:
		return []literal{{re.Rune, re.Flags&syntax.FoldCase != 0}}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []literal
		for _, sub := range re.Sub {
			if l := requiredLiterals(sub); l != nil && shortest(l) > shortest(best) {
				best = l
			}
		}
		return best
	case syntax.OpAlternate:
		var all []literal
		for _, sub := range re.Sub {
			l := requiredLiterals(sub)
			if l == nil {
				return nil
			}
			all = append(all, l...)
		}
		if len(all) > maxNeedles {
			return nil
		}
		return all
	}
	return nil
}

func shortest(lits []literal) int {
	if len(lits) == 0 {
		return 0
	}
	n := len(lits[0].runes)
	for _, l := range lits[1:] {
		n = min(n, len(l.runes))
	}
	return n
}

// usable reports whether the prefilter can stand in for the regexp on text.
func (p *prefilter) usable(text []byte) bool {
	if p == nil {
		return false
	}
	return !p.unicodeFold || (!bytes.Contains(text, kelvin) && !bytes.Contains(text, longS))
}

var (
	kelvin = []byte("\u212a")
	longS  = []byte("\u017f")
)

// scanner walks one text from start to end.
func (p *prefilter) scanner(text []byte) *litScan {
	l := &litScan{p: p, text: text, next: make([]int, len(p.needles)), cases: make([][2]int, len(p.needles))}
	for i := range l.next {
		l.next[i] = -2 // not looked for yet
		l.cases[i] = [2]int{-2, -2}
	}
	return l
}

// litScan remembers where each needle, and each case of the byte a
// case-insensitive needle is found by, occurs next, so that nothing is
// looked for twice over the same stretch of text.
type litScan struct {
	p    *prefilter
	text []byte
	next []int // offset of a needle's next occurrence; -1: none left
	// cases holds the offsets of the next lower- and upper-case rare byte
	// of each case-insensitive needle.
	cases [][2]int
}

// from returns the offset of the first occurrence of any needle at or
// after pos, or -1.
func (l *litScan) from(pos int) int {
	best := -1
	for i, n := range l.p.needles {
		if l.next[i] == -1 {
			continue
		}
		if l.next[i] < pos {
			l.next[i] = l.find(i, n, pos)
			if l.next[i] < 0 {
				continue
			}
		}
		if best < 0 || l.next[i] < best {
			best = l.next[i]
		}
	}
	return best
}

func (l *litScan) find(i int, n *needle, pos int) int {
	if !n.fold {
		if j := bytes.Index(l.text[pos:], n.lit); j >= 0 {
			return pos + j
		}
		return -1
	}
	size := len(n.lit)
	for {
		c := l.rare(i, n, pos+n.rare)
		if c < 0 {
			return -1
		}
		at := c - n.rare
		if at+size <= len(l.text) && equalFoldASCII(l.text[at:at+size], n.lit) {
			return at
		}
		pos = at + 1
	}
}

// rare returns the offset of the next occurrence at or after from of the
// rare byte of needle i, in either case, or -1.
func (l *litScan) rare(i int, n *needle, from int) int {
	c := &l.cases[i]
	if n.lo == n.up {
		c[1] = -1 // one case only
	}
	for k, b := range [2]byte{n.lo, n.up} {
		if c[k] == -1 || c[k] >= from {
			continue
		}
		if from >= len(l.text) {
			c[k] = -1
		} else if j := bytes.IndexByte(l.text[from:], b); j >= 0 {
			c[k] = from + j
		} else {
			c[k] = -1
		}
	}
	switch {
	case c[0] < 0:
		return c[1]
	case c[1] < 0:
		return c[0]
	}
	return min(c[0], c[1])
}

// needle is one literal to find. Case-insensitive ones must be ASCII: the
// scan looks for their rarest byte, in both cases, and compares around
// each hit.
type needle struct {
	lit  []byte // lower-cased when fold
	fold bool
	// rare is the index in lit of the byte scanned for; lo and up are its
	// two cases (equal for a non-letter).
	rare   int
	lo, up byte
}

func newNeedle(l literal) *needle {
	s := string(l.runes)
	if !l.fold {
		return &needle{lit: []byte(s)}
	}
	for _, r := range l.runes {
		if r >= 0x80 {
			return nil
		}
	}
	n := &needle{lit: []byte(strings.ToLower(s)), fold: true}
	for i, c := range n.lit {
		if byteRank(c) < byteRank(n.lit[n.rare]) {
			n.rare = i
		}
	}
	n.lo = n.lit[n.rare]
	n.up = n.lo
	if 'a' <= n.lo && n.lo <= 'z' {
		n.up = n.lo - 'a' + 'A'
	}
	return n
}

// equalFoldASCII compares s with the lower-case lit.
func equalFoldASCII(s, lit []byte) bool {
	for i, c := range s {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lit[i] {
			return false
		}
	}
	return true
}

// byteRank orders bytes from rare to common in source code and prose, a
// rough version of the heuristic ripgrep's memchr crate uses: the lower
// the rank, the fewer false hits a scan for that byte stops at.
func byteRank(c byte) int {
	const common = " etaoinsrlcdhupmfg_.,()=;\"'/\n\t-:{}*[]0123456789bwyvkxjqz" // most common first
	if i := strings.IndexByte(common, c); i >= 0 {
		return 200 - i
	}
	return 0
}
