package shell

import (
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// word is one shell word after quote removal.
type word struct {
	// s is the word after quote removal when lit, else its source text.
	s string
	// lit: bash does nothing to the word but remove quotes. Quote
	// splicing (r''m, \rm, "rm") and ANSI-C quoting ($'\x72m') are
	// resolved, since bash runs exactly the resulting name; expansions,
	// globs, brace expansion and tilde expansion are not.
	lit bool
	// splits: the word may become several words (unquoted expansion,
	// glob, brace expansion), one of which may be an option.
	splits bool
}

// word removes quotes from x, or returns its source text when bash would
// expand it.
func (w *walker) word(x *syntax.Word) word {
	if x == nil || len(x.Parts) == 0 {
		return word{lit: true}
	}
	raw := word{s: w.fix(w.text(x.Pos(), x.End()))}
	if hasBraceExpansion(x) || hasTilde(x) {
		raw.splits = maySplit(x)
		return raw
	}
	lit, ok := w.literal(x)
	if !ok {
		raw.splits = maySplit(x)
		return raw
	}
	return word{s: lit, lit: true}
}

// literal removes quotes from x when it holds nothing else.
func (w *walker) literal(x *syntax.Word) (string, bool) {
	if len(x.Parts) == 1 {
		// The common plain word needs no copy.
		switch p := x.Parts[0].(type) {
		case *syntax.Lit:
			if !strings.ContainsAny(p.Value, `\*?[`) {
				return w.fix(p.Value), true
			}
		case *syntax.SglQuoted:
			if !p.Dollar {
				return w.fix(p.Value), true
			}
		}
	}
	var b strings.Builder
	bracket := -1 // where an unquoted [ was written
	for _, part := range x.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if !unquotedLit(&b, w.fix(p.Value), &bracket) {
				return "", false
			}
		case *syntax.SglQuoted:
			if !p.Dollar {
				b.WriteString(w.fix(p.Value))
			} else if s, ok := ansiC(w.fix(p.Value)); ok {
				b.WriteString(s)
			} else {
				return "", false
			}
		case *syntax.DblQuoted:
			if p.Dollar {
				// $"..." is translated through the locale's message
				// catalogue.
				return "", false
			}
			for _, dp := range p.Parts {
				lit, ok := dp.(*syntax.Lit)
				if !ok {
					return "", false
				}
				doubleQuotedLit(&b, w.fix(lit.Value))
			}
		default:
			return "", false
		}
	}
	s := b.String()
	if bracket >= 0 && strings.IndexByte(s[bracket:], ']') >= 0 {
		// [...] is a glob pattern; a lone [ (the test command) is not.
		return "", false
	}
	return s, true
}

// maySplit reports whether x may expand to several words: an unquoted
// expansion (other than $#, $?, $$ and $!, which hold numbers), a glob
// character (escaped ones too: the answer only needs to be safe), or a
// brace expansion.
func maySplit(x *syntax.Word) bool {
	bracket := false
	for _, p := range x.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "*?") {
				return true
			}
			if i := strings.IndexByte(p.Value, '['); i >= 0 {
				bracket = true
				if strings.IndexByte(p.Value[i:], ']') >= 0 {
					return true
				}
			} else if bracket && strings.IndexByte(p.Value, ']') >= 0 {
				return true
			}
		case *syntax.ParamExp:
			if !numericParam(p) {
				return true
			}
		case *syntax.CmdSubst, *syntax.ExtGlob:
			return true
		case *syntax.DblQuoted:
			// "$@" and "${a[@]}" expand to one word per element.
			for _, dp := range p.Parts {
				if pe, ok := dp.(*syntax.ParamExp); ok && (pe.Param != nil && pe.Param.Value == "@" || pe.Index != nil) {
					return true
				}
			}
		}
	}
	return hasBraceExpansion(x)
}

// numericParam reports $#, $?, $$ and $!, which always expand to a
// number.
func numericParam(p *syntax.ParamExp) bool {
	if p.Param == nil || p.Index != nil || p.Exp != nil || p.Slice != nil || p.Repl != nil || p.Excl || p.Length {
		return false
	}
	switch p.Param.Value {
	case "#", "?", "$", "!":
		return true
	}
	return false
}

// hasBraceExpansion reports whether bash would brace-expand x ({a,b},
// {1..3}); a lone {} (find -exec) is not expanded.
func hasBraceExpansion(x *syntax.Word) bool {
	for _, p := range x.Parts {
		if lit, ok := p.(*syntax.Lit); ok && strings.IndexByte(lit.Value, '{') >= 0 {
			cp := *x
			if !syntax.SplitBraces(&cp) {
				return false
			}
			for _, p := range cp.Parts {
				if _, ok := p.(*syntax.BraceExp); ok {
					return true
				}
			}
			return false
		}
	}
	return false
}

// hasTilde reports an unquoted ~ that bash expands: at the start of the
// word, or after = or : in a word that looks like an assignment (bash
// expands echo a=~ and x=a:~, verified on bash 5.2).
func hasTilde(x *syntax.Word) bool {
	first, ok := x.Parts[0].(*syntax.Lit)
	if !ok {
		return false
	}
	if strings.HasPrefix(first.Value, "~") {
		return true
	}
	eq := strings.IndexByte(first.Value, '=')
	if eq <= 0 || !syntax.ValidName(strings.TrimSuffix(first.Value[:eq], "+")) {
		return false
	}
	for _, p := range x.Parts {
		if lit, ok := p.(*syntax.Lit); ok && strings.IndexByte(lit.Value, '~') >= 0 {
			return true
		}
	}
	return false
}

// unquotedLit removes backslash escapes and refuses unescaped glob
// characters. The first unescaped [ is recorded in bracket: it is a
// pattern only if a ] follows.
func unquotedLit(b *strings.Builder, s string, bracket *int) bool {
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch ch {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
				continue
			}
		case '[':
			if *bracket < 0 {
				*bracket = b.Len()
			}
		case '*', '?':
			return false
		}
		b.WriteByte(ch)
	}
	return true
}

// doubleQuotedLit removes the escapes bash removes inside double quotes.
func doubleQuotedLit(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\", s[i+1]) >= 0 {
			i++
			ch = s[i]
		}
		b.WriteByte(ch)
	}
}

// ansiC decodes the body of $'...' as bash does
// (https://www.gnu.org/software/bash/manual/bash.html#ANSI_002dC-Quoting).
// \u and \U escapes of non-ASCII characters are refused: bash prints them
// in the locale's encoding, or as the escape itself when the locale cannot
// represent them, so their result depends on the environment. A NUL ends
// the string, as in bash.
func ansiC(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch != '\\' || i+1 == len(s) {
			b.WriteByte(ch)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n, j := digits(s, i, 3, 8)
			b.WriteByte(byte(n))
			i = j - 1
		case 'x', 'u', 'U':
			max := 2
			if e == 'u' {
				max = 4
			} else if e == 'U' {
				max = 8
			}
			n, j := digits(s, i+1, max, 16)
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			i = j - 1
			switch {
			case e == 'x':
				b.WriteByte(byte(n))
			case n < utf8.RuneSelf:
				b.WriteByte(byte(n))
			default:
				return "", false
			}
		case 'c':
			if i+1 == len(s) {
				b.WriteString(`\c`)
				continue
			}
			i++
			c := s[i]
			if c >= 'a' && c <= 'z' {
				c -= 'a' - 'A'
			}
			b.WriteByte(c & 0x1f)
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	out := b.String()
	if nul := strings.IndexByte(out, 0); nul >= 0 {
		out = out[:nul]
	}
	return out, true
}

// digits reads up to max digits in base from s[i:] and returns their
// value and the index after them.
func digits(s string, i, max int, base uint32) (uint32, int) {
	var n uint32
	j := i
	for ; j < len(s) && j-i < max; j++ {
		d := uint32(36)
		switch c := s[j]; {
		case c >= '0' && c <= '9':
			d = uint32(c - '0')
		case c >= 'a' && c <= 'f':
			d = uint32(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = uint32(c-'A') + 10
		}
		if d >= base {
			break
		}
		n = n*base + d
	}
	return n, j
}
