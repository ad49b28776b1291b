package grep

import (
	"bytes"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// verdict is what a set of gitignore-style rules says about a path.
type verdict int8

const (
	noMatch verdict = iota
	ignored
	whitelisted // matched by a "!" rule
)

// ruleSet is the compiled content of one ignore file (.gitignore, .ignore,
// .rgignore, .git/info/exclude) or of the glob list of one call. Rules are
// matched against paths relative to the directory the set belongs to, and
// the last matching rule wins, as in git and ripgrep.
type ruleSet struct {
	rules []rule
	// positives counts the rules without "!". For -g globs these are the
	// whitelisting ones: with any, files matching none are skipped.
	positives int
}

type rule struct {
	negated bool // "!" prefix
	dirOnly bool // trailing "/"
	kind    ruleKind
	// arg is what kind compares: the literal name, the name suffix, or a
	// doublestar pattern for the name or for the whole relative path.
	arg string
}

type ruleKind int8

const (
	nameEquals ruleKind = iota
	nameSuffix
	nameGlob
	pathGlob
)

// parseRules compiles ignore-file lines with ripgrep's reading of the
// gitignore format (ignore crate, GitignoreBuilder::add_line): comments,
// trailing blanks, "!" negation, a leading "/" or an inner "/" anchoring
// the rule to the directory, a trailing "/" restricting it to directories,
// and a rule without a slash matching at any depth. Lines that are not
// valid globs are skipped, as ripgrep skips them.
func parseRules(data []byte) *ruleSet {
	rs := &ruleSet{}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	for line := range strings.SplitSeq(string(data), "\n") {
		rs.add(line)
	}
	return rs
}

func (rs *ruleSet) add(line string) {
	line = strings.TrimSuffix(line, "\r")
	if strings.HasPrefix(line, "#") {
		return
	}
	if !strings.HasSuffix(line, `\ `) {
		line = strings.TrimRight(line, " \t\r\n\v\f")
	}
	if line == "" {
		return
	}
	var r rule
	anchored := false
	if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
		anchored = strings.HasPrefix(line, "/")
	} else {
		if rest, ok := strings.CutPrefix(line, "!"); ok {
			r.negated = true
			line = rest
		}
		if rest, ok := strings.CutPrefix(line, "/"); ok {
			line = rest
			anchored = true
		}
	}
	if rest, ok := strings.CutSuffix(line, "/"); ok {
		r.dirOnly = true
		line = rest
	}
	glob := line
	if !anchored && !strings.Contains(line, "/") && !strings.HasPrefix(line, "**/") && line != "**" {
		glob = "**/" + line
	}
	// "dir/**" matches what is inside dir, not dir itself.
	if strings.HasSuffix(glob, "/**") {
		glob += "/*"
	}
	if !doublestar.ValidatePattern(glob) {
		return
	}
	r.kind, r.arg = classify(glob)
	rs.rules = append(rs.rules, r)
	if !r.negated {
		rs.positives++
	}
}

// classify picks the cheapest test equivalent to matching glob against a
// relative path: most ignore rules (*.log, node_modules, .DS_Store) only
// look at the last path element.
func classify(glob string) (ruleKind, string) {
	name, ok := strings.CutPrefix(glob, "**/")
	if !ok || strings.Contains(name, "/") || strings.Contains(name, "**") {
		return pathGlob, glob
	}
	if !strings.ContainsAny(name, `*?[{\`) {
		return nameEquals, name
	}
	if suffix, ok := strings.CutPrefix(name, "*"); ok && !strings.ContainsAny(suffix, `*?[{\`) {
		return nameSuffix, suffix
	}
	return nameGlob, name
}

// match returns the verdict of the last rule matching rel (slash
// separated, relative to the set's directory), whose last element is name.
func (rs *ruleSet) match(rel, name string, isDir bool) verdict {
	if rs == nil {
		return noMatch
	}
	for i := len(rs.rules) - 1; i >= 0; i-- {
		r := &rs.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		if !r.matches(rel, name) {
			continue
		}
		if r.negated {
			return whitelisted
		}
		return ignored
	}
	return noMatch
}

func (r *rule) matches(rel, name string) bool {
	switch r.kind {
	case nameEquals:
		return name == r.arg
	case nameSuffix:
		return strings.HasSuffix(name, r.arg)
	case nameGlob:
		return doublestar.MatchUnvalidated(r.arg, name)
	}
	return doublestar.MatchUnvalidated(r.arg, rel)
}
