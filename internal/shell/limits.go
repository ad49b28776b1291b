package shell

import (
	"fmt"
	"strings"
)

// The parser and the walker spend memory per level of recursion (several
// kilobytes: a 40 KB command of 20,000 nested "(" took 205 MB) and per
// statement (about a kilobyte), so a command over these bounds is not
// parsed at all. What is counted is a sound upper bound, not the parse: it
// does not know about quotes, so a "(" inside a string counts too. It never
// counts less than the parser would see, which a quote-aware scan could
// (a quote it misread would hide what follows); real commands stay far
// below the bounds.
const (
	// MaxStructure bounds the syntax that makes the parser recurse:
	// opening brackets of every kind (subshells, groups, substitutions,
	// arithmetic, parameter expansions, tests), pipes and &&/||,
	// backquotes, compound-command keywords, and, once the command has an
	// arithmetic context ((( )), $(( )), $[ ], [ ], ${ }, let), the
	// operators that chain arithmetic.
	MaxStructure = 1000
	// MaxStatements bounds the statement separators: ; and newlines.
	MaxStatements = 5000
)

// LimitError says a command is over MaxStructure or MaxStatements.
type LimitError struct {
	// Statements is set when MaxStatements is the bound exceeded.
	Statements bool
}

func (e *LimitError) Error() string {
	if e.Statements {
		return fmt.Sprintf("the command has more than %d statements (separated by ; or newlines); write the script to a file and run that", MaxStatements)
	}
	return fmt.Sprintf("the command has more than %d brackets, pipes, && or || operators, backquotes, compound-command keywords (if, while, for, case, ...) and arithmetic operators; split it into smaller commands, or write a script to a file and run that", MaxStructure)
}

// CheckLimits returns a *LimitError when src is over MaxStructure or
// MaxStatements, in one pass and without allocating.
func CheckLimits(src string) error {
	arith := strings.ContainsAny(src, "([{") || hasWord(src, "let")
	structure, statements := 0, 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '(' || c == '{' || c == '[' || c == '|' || c == '&' || c == '`':
			structure++
		case c == ';' || c == '\n':
			statements++
		case arith && strings.IndexByte("+-*/%^,?<>=!~:", c) >= 0:
			structure++
		case isWordByte(c) && (i == 0 || !isWordByte(src[i-1])):
			j := i
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			if compoundKeyword(src[i:j]) {
				structure++
			}
			i = j - 1
		}
		switch {
		case structure > MaxStructure:
			return &LimitError{}
		case statements > MaxStatements:
			return &LimitError{Statements: true}
		}
	}
	return nil
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// hasWord reports whether w appears in s as a whole word.
func hasWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		if (j == 0 || !isWordByte(s[j-1])) && (j+len(w) == len(s) || !isWordByte(s[j+len(w)])) {
			return true
		}
		i = j + 1
	}
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
	if err := CheckLimits(src); err != nil {
		w.a.unprovable("%v", err)
		return false
	}
	return true
}
