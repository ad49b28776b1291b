package grep

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/toold/toold/internal/tool"
)

// pattern is a compiled search pattern for the built-in engine, with
// ripgrep's semantics: ^ and $ match at line boundaries, and unless
// multiline is on a match never crosses a newline (ripgrep removes \n from
// every class of the pattern rather than searching line by line).
type pattern struct {
	re *regexp.Regexp
	// spans is set when matches may cross lines: multiline mode with a
	// pattern that can match a newline. The file is then searched as one
	// text, as ripgrep's multi-line searcher does.
	spans bool
	// pre, when set, finds the lines that can match before the regexp
	// runs on them.
	pre *prefilter
}

func compilePattern(expr string, ignoreCase, multiline bool) (*pattern, error) {
	flags := syntax.Perl &^ syntax.OneLine
	if ignoreCase {
		flags |= syntax.FoldCase
	}
	if multiline {
		flags |= syntax.DotNL
	}
	tree, err := syntax.Parse(unicodeClasses(expr), flags)
	if err != nil {
		return nil, tool.InvalidInputf("regex parse error: %v", err)
	}
	p := &pattern{}
	if multiline {
		p.spans = canMatchNewline(tree)
	} else if err := stripNewline(tree); err != nil {
		return nil, err
	}
	tree = tree.Simplify()
	if p.re, err = regexp.Compile(tree.String()); err != nil {
		return nil, tool.InvalidInputf("regex parse error: %v", err)
	}
	if !p.spans {
		p.pre = newPrefilter(tree)
	}
	return p, nil
}

// errNewline is ripgrep's refusal of a newline outside multiline mode.
func errNewline() error {
	return tool.InvalidInputf("the literal '\"\\n\"' is not allowed in a regex. Set multiline: true to match across lines.")
}

// stripNewline removes \n from what every part of the pattern can match,
// as ripgrep does for line-oriented search; a pattern that must match a
// newline is an error.
func stripNewline(re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return errNewline()
			}
		}
	case syntax.OpCharClass:
		var out []rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			switch {
			case hi < '\n' || lo > '\n':
				out = append(out, lo, hi)
			default:
				if lo < '\n' {
					out = append(out, lo, '\n'-1)
				}
				if hi > '\n' {
					out = append(out, '\n'+1, hi)
				}
			}
		}
		if len(out) == 0 {
			return errNewline()
		}
		re.Rune = out
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	}
	for _, sub := range re.Sub {
		if err := stripNewline(sub); err != nil {
			return err
		}
	}
	return nil
}

func canMatchNewline(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return true
			}
		}
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				return true
			}
		}
	case syntax.OpAnyChar:
		return true
	}
	for _, sub := range re.Sub {
		if canMatchNewline(sub) {
			return true
		}
	}
	return false
}

// Rust's \d, \w and \s are Unicode-aware by default, Go's are ASCII. These
// are the Unicode classes ripgrep uses, in Go syntax.
const (
	uniDigit = `\p{Nd}`
	uniWord  = `\p{L}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}`
	uniSpace = `\t-\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}`
)

// unicodeClasses rewrites \d \w \s (and their negations outside brackets)
// to their Unicode meaning. Escapes, \Q...\E and bracket expressions are
// followed so that only real class escapes are touched; anything this
// does not understand is left for the parser to judge.
func unicodeClasses(expr string) string {
	if !strings.Contains(expr, `\`) {
		return expr
	}
	var b strings.Builder
	inClass := false
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '\\' && i+1 < len(expr):
			next := expr[i+1]
			if next == 'Q' && !inClass {
				end := strings.Index(expr[i+2:], `\E`)
				if end < 0 {
					b.WriteString(expr[i:])
					return b.String()
				}
				b.WriteString(expr[i : i+2+end+2])
				i += 2 + end + 2
				continue
			}
			b.WriteString(classEscape(next, inClass, expr[i:i+2]))
			i += 2
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			i++
			// A ] right after [ or [^ is a literal member.
			if i < len(expr) && expr[i] == '^' {
				b.WriteByte('^')
				i++
			}
			if i < len(expr) && expr[i] == ']' {
				b.WriteByte(']')
				i++
			}
		case c == '[' && inClass && strings.HasPrefix(expr[i:], "[:"):
			end := strings.Index(expr[i+2:], ":]")
			if end < 0 {
				b.WriteByte(c)
				i++
				continue
			}
			b.WriteString(expr[i : i+2+end+2])
			i += 2 + end + 2
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
			i++
		default:
			_, size := utf8.DecodeRuneInString(expr[i:])
			b.WriteString(expr[i : i+size])
			i += size
		}
	}
	return b.String()
}

func classEscape(c byte, inClass bool, orig string) string {
	var set string
	neg := false
	switch c {
	case 'd':
		set = uniDigit
	case 'D':
		set, neg = uniDigit, true
	case 'w':
		set = uniWord
	case 'W':
		set, neg = uniWord, true
	case 's':
		set = uniSpace
	case 'S':
		set, neg = uniSpace, true
	default:
		return orig
	}
	switch {
	case !inClass && neg:
		return "[^" + set + "]"
	case !inClass:
		return "[" + set + "]"
	case neg && c == 'D':
		return `\P{Nd}`
	case neg:
		// A negated union cannot be written inside brackets in Go syntax.
		return orig
	}
	return set
}
