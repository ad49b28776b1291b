package hooks

import (
	"fmt"
	"regexp"
	"strings"
)

// matcher selects the calls (or sources, or reasons) a group runs for,
// following https://code.claude.com/docs/en/hooks "Matcher patterns":
//   - "", "*" or no matcher: everything;
//   - only letters, digits, '_', '-', spaces, ',' and '|': an exact name or a
//     list of exact names split on '|' or ',' ("Edit|Write");
//   - anything else: an unanchored regular expression ("mcp__memory__.*",
//     "Notebook.*"; "Edit.*" also matches NotebookEdit, anchor with ^ and $).
//
// So "mcp__memory" is an exact name that matches no tool: an MCP server's
// tools need "mcp__memory__.*".
type matcher struct {
	all   bool
	names []string
	re    *regexp.Regexp
}

func compileMatcher(s string) (matcher, error) {
	if s == "" || s == "*" {
		return matcher{all: true}, nil
	}
	if isNameList(s) {
		var names []string
		for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '|' || r == ',' }) {
			if p := strings.TrimSpace(part); p != "" {
				names = append(names, p)
			}
		}
		if len(names) == 0 {
			return matcher{}, fmt.Errorf("%q names nothing", s)
		}
		return matcher{names: names}, nil
	}
	// Claude Code evaluates the pattern as a JavaScript RegExp; Go's RE2
	// syntax agrees on everything matchers use (alternation, classes,
	// repetition, anchors) and refuses look-around and backreferences.
	re, err := regexp.Compile(s)
	if err != nil {
		return matcher{}, fmt.Errorf("%q is not a valid regular expression: %v", s, err)
	}
	return matcher{re: re}, nil
}

func isNameList(s string) bool {
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case r == '_', r == '-', r == ' ', r == ',', r == '|':
		default:
			return false
		}
	}
	return true
}

func (m matcher) matches(name string) bool {
	switch {
	case m.all:
		return true
	case m.re != nil:
		return m.re.MatchString(name)
	}
	for _, n := range m.names {
		if n == name {
			return true
		}
	}
	return false
}
