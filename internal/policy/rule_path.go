package policy

import (
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// pathAnchor says which directory a path pattern is relative to
// (https://code.claude.com/docs/en/permissions "Read and Edit").
type pathAnchor uint8

const (
	// anchorFixed: "//path" (filesystem root) or "/path" (the rule's Root),
	// known when the rule is compiled.
	anchorFixed pathAnchor = iota
	// anchorHome: "~/path", the caller's home, known per call.
	anchorHome
	// anchorCwd: "path" or "./path", the working directory, known per call.
	anchorCwd
)

// pathPattern is a compiled Read(path) or Edit(path) pattern.
type pathPattern struct {
	anchor pathAnchor
	fixed  string // anchorFixed: clean absolute directory
	up     int    // anchorCwd: leading "../" steps
	// glob is a doublestar pattern relative to the anchor; "" matches
	// everything below the anchor, and the anchor itself unless belowOnly.
	glob string
	// belowOnly: the pattern is "**" (or "**/", "**/**"), which in Claude
	// Code covers every file under the anchor but not the anchor directory
	// itself, so a Grep or Glob rooted there runs and leaves each covered
	// file out of its results (Read(**) deny: "No files found").
	belowOnly bool
}

// compilePath compiles a gitignore-style path pattern of a rule in list b
// whose "/path" patterns anchor at root.
//
// Semantics (https://code.claude.com/docs/en/permissions "Read and Edit"):
//   - "//p" from the filesystem root, "~/p" from the home directory, "/p"
//     from root, "p" and "./p" from the cwd;
//   - '*' and '?' and [classes] stay within one segment, "**" crosses them;
//   - as in gitignore, a pattern that matches a directory covers everything
//     below it, so "x", "x/" and "x/**" each cover x and its whole subtree
//     (matching x itself lets a deny stop a Grep or Glob rooted there);
//     "**" alone covers everything below its anchor but not the anchor
//     directory, as in Claude Code;
//   - a single segment with no slash ("Read(.env)") matches at any depth
//     under the cwd, ≡ "**/.env";
//   - a single-segment directory pattern ("src/**", "src/") matches at any
//     depth for deny and ask but only <cwd>/src for allow.
//
// Choices where the docs are silent, each the safer reading:
//   - "./x" anchors at the cwd for allow but, being the same pattern as "x"
//     in the docs' table, matches at any depth for deny and ask;
//   - leading "../" steps are resolved against the cwd at match time; "."
//     and ".." anywhere else, empty segments, "~user", braces (not
//     gitignore syntax, yet doublestar would read them as alternatives), a
//     leading '!' (gitignore negation) or '#' (comment), and surrounding
//     whitespace are refused rather than given a guessed meaning;
//   - "/path" in a source without an anchor directory is refused.
func compilePath(spec string, b Behavior, root string) (*pathPattern, string) {
	if strings.TrimSpace(spec) != spec {
		return nil, "path pattern has leading or trailing whitespace"
	}
	if msg := checkPathSyntax(spec); msg != "" {
		return nil, msg
	}
	p := &pathPattern{}
	rest := spec
	dotSlash := false
	switch {
	case strings.HasPrefix(rest, "//"):
		p.anchor, p.fixed, rest = anchorFixed, "/", rest[2:]
	case rest == "~" || strings.HasPrefix(rest, "~/"):
		p.anchor, rest = anchorHome, strings.TrimPrefix(rest[1:], "/")
	case strings.HasPrefix(rest, "~"):
		return nil, "\"~user\" paths are not supported: write //home/user/... or ~/..."
	case strings.HasPrefix(rest, "/"):
		if root == "" {
			return nil, "a /path pattern is relative to its settings source, and this source has no anchor directory: write //path for an absolute path"
		}
		p.anchor, p.fixed, rest = anchorFixed, filepath.Clean(root), rest[1:]
	default:
		p.anchor = anchorCwd
		if rest == "." {
			rest = ""
		} else if strings.HasPrefix(rest, "./") {
			dotSlash, rest = true, rest[2:]
		}
		for rest == ".." || strings.HasPrefix(rest, "../") {
			p.up++
			rest = strings.TrimPrefix(strings.TrimPrefix(rest, ".."), "/")
		}
	}

	dirSuffix := false
	for {
		switch {
		case strings.HasSuffix(rest, "/**") && !strings.HasSuffix(rest, `\/**`):
			rest, dirSuffix = rest[:len(rest)-3], true
			continue
		case strings.HasSuffix(rest, "/") && !strings.HasSuffix(rest, `\/`):
			rest, dirSuffix = rest[:len(rest)-1], true
			continue
		}
		break
	}
	if rest == "**" {
		rest, p.belowOnly = "", true // everything below the anchor
	}
	if rest != "" {
		for _, seg := range strings.Split(rest, "/") {
			switch seg {
			case "":
				return nil, "path pattern has an empty segment (\"//\" only at the start means the filesystem root)"
			case ".", "..":
				return nil, "path pattern has a \".\" or \"..\" segment: only leading \"../\" steps are supported"
			}
		}
		if !doublestar.ValidatePattern(rest) {
			return nil, "path pattern is not a valid glob (unclosed [class] or trailing backslash)"
		}
	}

	anyDepth := p.anchor == anchorCwd && p.up == 0 && rest != "" && !strings.Contains(rest, "/")
	if anyDepth && (dotSlash || dirSuffix) {
		anyDepth = b != Allow
	}
	p.glob = rest
	if anyDepth && !strings.HasPrefix(rest, "**") {
		p.glob = "**/" + rest
	}
	return p, ""
}

// checkPathSyntax refuses syntax whose meaning would differ between
// gitignore (Claude Code) and doublestar (toold), or that gitignore gives a
// meaning no rule can have.
func checkPathSyntax(spec string) string {
	if strings.HasPrefix(spec, "!") || strings.HasPrefix(spec, "#") {
		return "a path pattern may not start with '!' (gitignore negation) or '#' (comment); escape it as \\! or \\#"
	}
	for i := 0; i < len(spec); i++ {
		switch spec[i] {
		case '\\':
			i++
		case '{', '}':
			return "braces are not gitignore syntax: write one rule per alternative, or escape a literal brace as \\{"
		}
	}
	return ""
}

// matchQuery reports whether the call's path matches. A call whose path,
// cwd or home the pattern needs but the engine did not give as an absolute
// path cannot be placed: deny and ask rules then match and allow rules do
// not (fail closed).
func (p *pathPattern) matchQuery(q *Query, b Behavior) bool {
	failClosed := b != Allow
	path := q.Path
	if path == "" || !filepath.IsAbs(path) {
		return failClosed
	}
	path = filepath.Clean(path)
	var anchor string
	switch p.anchor {
	case anchorFixed:
		anchor = p.fixed
	case anchorHome:
		anchor = q.Home
	case anchorCwd:
		anchor = q.Cwd
	}
	if anchor == "" || !filepath.IsAbs(anchor) {
		return failClosed
	}
	anchor = filepath.Clean(anchor)
	for i := 0; i < p.up; i++ {
		anchor = filepath.Dir(anchor)
	}
	return p.matchUnder(anchor, path)
}

// matchUnder matches a clean absolute path against the pattern anchored at
// a clean absolute directory. As in gitignore, the path matches when it or
// any of its directories below the anchor matches.
func (p *pathPattern) matchUnder(anchor, path string) bool {
	rel, ok := relUnder(anchor, path)
	if !ok {
		return false
	}
	if p.glob == "" {
		return rel != "" || !p.belowOnly
	}
	if rel == "" {
		return false
	}
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' && doublestar.MatchUnvalidated(p.glob, rel[:i]) {
			return true
		}
	}
	return doublestar.MatchUnvalidated(p.glob, rel)
}

// relUnder returns path relative to dir when path is dir or lies below it,
// comparing whole components: "/proj-evil/x" is not under "/proj"
// (security.md §1 #1). Both must be clean and absolute.
func relUnder(dir, path string) (string, bool) {
	if dir == "/" {
		return path[1:], true
	}
	if path == dir {
		return "", true
	}
	if len(path) > len(dir) && path[len(dir)] == '/' && path[:len(dir)] == dir {
		return path[len(dir)+1:], true
	}
	return "", false
}
