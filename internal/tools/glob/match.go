package glob

import (
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// vcsDirs are skipped during the walk: their contents (object stores,
// packs) are never what a file search is after, and .git alone can hold
// more files than the project.
var vcsDirs = []string{".git", ".hg", ".svn", ".jj", ".bzr"}

// free is the directory state below a ** segment: anything may match there.
const free = -1

// matcher decides which files match a pattern that is relative to the
// search root, and which directories can hold a match, so that the walk
// never enters a directory the pattern rules out (net/**/*.go walks net/
// only, */main.go reads one level).
//
// A directory's state is the index of the pattern segment its children
// are matched against, or free once a ** segment has been reached.
type matcher struct {
	pattern string
	// segs are the slash-separated segments; nil disables pruning, for
	// patterns whose braces or escapes may hide a slash.
	segs []string
	// nameOnly is X for a pattern **/X where X is one segment: then only
	// the file name needs matching, at any depth.
	nameOnly string
	// skip holds the VCS directory names the pattern does not mention.
	skip map[string]bool
}

func newMatcher(pattern string) *matcher {
	m := &matcher{pattern: pattern, skip: map[string]bool{}}
	for _, d := range vcsDirs {
		if !strings.Contains(pattern, d) {
			m.skip[d] = true
		}
	}
	if !strings.ContainsAny(pattern, `{\`) {
		m.segs = strings.Split(pattern, "/")
	}
	if rest, ok := strings.CutPrefix(pattern, "**/"); ok && m.segs != nil &&
		!strings.Contains(rest, "/") && !strings.Contains(rest, "**") {
		m.nameOnly = rest
	}
	return m
}

// root is the state of the search root itself.
func (m *matcher) root() int { return m.enter(0) }

func (m *matcher) enter(idx int) int {
	if m.segs == nil || m.segs[idx] == "**" {
		return free
	}
	return idx
}

// descend returns the state of the child directory name of a directory in
// state st, and false when nothing below it can match.
func (m *matcher) descend(st int, name string) (int, bool) {
	if m.skip[name] {
		return 0, false
	}
	if st == free {
		return free, true
	}
	// The last segment names files; a directory must match an earlier one.
	if st >= len(m.segs)-1 || !doublestar.MatchUnvalidated(m.segs[st], name) {
		return 0, false
	}
	return m.enter(st + 1), true
}

// file reports whether the file rel (relative to the root), called name,
// in a directory in state st matches.
func (m *matcher) file(st int, rel, name string) bool {
	switch {
	case m.nameOnly != "":
		return doublestar.MatchUnvalidated(m.nameOnly, name)
	case st == free:
		return doublestar.MatchUnvalidated(m.pattern, rel)
	case st == len(m.segs)-1:
		// Every earlier segment matched one directory of rel, in order.
		return doublestar.MatchUnvalidated(m.segs[st], name)
	}
	return false
}
