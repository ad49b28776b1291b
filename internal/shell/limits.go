package shell

import "fmt"

// MaxStructure bounds the syntax that makes the parser recurse: opening
// brackets of every kind (subshells, groups, substitutions, arithmetic,
// parameter expansions, tests), pipes and &&/||, backquotes, and the
// compound-command keywords. The parser and the walker spend several
// kilobytes per level of recursion (a 40 KB command of 20,000 nested "("
// took 205 MB), so a command over the bound is not parsed at all.
//
// The count is a sound upper bound, not the parse: it does not know about
// quotes, so a "(" inside a string counts too. It never counts less than
// the parser would nest, which a quote-aware scan could (a quote the scan
// misreads would hide what follows); real commands stay far below it.
const MaxStructure = 2000

// StructureError says a command has more nesting syntax than MaxStructure.
type StructureError struct {
	Count int
}

func (e *StructureError) Error() string {
	return fmt.Sprintf("the command has more than %d brackets, pipes, && or || operators, backquotes and compound-command keywords (if, while, for, case, ...); split it into smaller commands, or write a script to a file and run that", MaxStructure)
}

// CheckStructure returns a *StructureError when src has more nesting
// syntax than MaxStructure, in one pass and no allocation.
func CheckStructure(src string) error {
	n := 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '(', '{', '[', '|', '&', '`':
			n++
		default:
			if isWordByte(c) && (i == 0 || !isWordByte(src[i-1])) {
				j := i
				for j < len(src) && isWordByte(src[j]) {
					j++
				}
				if compoundKeyword(src[i:j]) {
					n++
				}
				i = j - 1
			}
		}
		if n > MaxStructure {
			return &StructureError{Count: n}
		}
	}
	return nil
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// compoundKeyword reports the reserved words that open a compound command
// (and so a level of the parser's recursion).
func compoundKeyword(w string) bool {
	switch w {
	case "if", "elif", "while", "until", "for", "select", "case", "function", "coproc", "time", "repeat", "foreach":
		return true
	}
	return false
}

// withinLimits is the parse entry's check: a script over a limit is not
// parsed, and the analysis is unprovable with the reason.
func (w *walker) withinLimits(src string) bool {
	if err := CheckStructure(src); err != nil {
		w.a.unprovable("%v", err)
		return false
	}
	return true
}
