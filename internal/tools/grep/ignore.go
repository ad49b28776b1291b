package grep

import (
	"io/fs"
	"path"
	"strings"

	"github.com/toold/toold/internal/tools/glob/dirfd"
)

// Ignore files, in ripgrep's order of precedence within one directory.
const (
	rgIgnoreFile  = ".rgignore"
	ignoreFile    = ".ignore"
	gitIgnoreFile = ".gitignore"
)

// vcsDirs are never searched, as if every call passed --glob '!.git' and
// the like last: a name in the list is skipped whatever its type.
var vcsDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, ".jj": true, ".bzr": true}

// ignoreNode holds the ignore rules of one directory that has any, linked
// to the nearest such ancestor. Ancestors of the search root inside the
// workspace take part too, as ripgrep reads the ignore files of parent
// directories.
type ignoreNode struct {
	parent *ignoreNode
	// dir is the directory relative to the search root, for directories at
	// or below it; up is the path from the directory down to the search
	// root, for its ancestors.
	dir, up string
	custom  *ruleSet // .rgignore
	ignore  *ruleSet // .ignore
	git     *ruleSet // .gitignore
	exclude *ruleSet // .git/info/exclude
	// hasGit: the directory holds .git, which ends the reach of the
	// .gitignore files above it.
	hasGit bool
	// inRepo: the directory or one above it (up to the workspace root)
	// holds .git. As in ripgrep's default (and so Claude Code), .gitignore
	// and .git/info/exclude apply only inside a git repository.
	inRepo bool
}

// rel is p (relative to the search root) relative to the node's directory.
func (n *ignoreNode) rel(p string) string {
	switch {
	case n.up != "":
		return n.up + "/" + p
	case n.dir == ".":
		return p
	}
	return p[len(n.dir)+1:]
}

// match applies ripgrep's precedence (ignore crate, Ignore::matched_ignore):
// for each kind of file the rules of the deepest directory that say
// anything about p win, .gitignore and .git/info/exclude stop at the
// repository root, and .rgignore beats .ignore beats .gitignore beats
// exclude. .gitignore rules count only inside a repository (inRepo).
func (n *ignoreNode) match(p, name string, isDir bool) verdict {
	var custom, ign, git, excl verdict
	sawGit := false
	for nd := n; nd != nil; nd = nd.parent {
		if custom != noMatch && ign != noMatch && (sawGit || (git != noMatch && excl != noMatch)) {
			break
		}
		rel := nd.rel(p)
		if custom == noMatch {
			custom = nd.custom.match(rel, name, isDir)
		}
		if ign == noMatch {
			ign = nd.ignore.match(rel, name, isDir)
		}
		if !sawGit && git == noMatch && nd.inRepo {
			git = nd.git.match(rel, name, isDir)
		}
		if !sawGit && excl == noMatch && nd.inRepo {
			excl = nd.exclude.match(rel, name, isDir)
		}
		sawGit = sawGit || nd.hasGit
	}
	for _, v := range []verdict{custom, ign, git, excl} {
		if v != noMatch {
			return v
		}
	}
	return noMatch
}

// ruleSource reads the ignore files of one directory.
type ruleSource interface {
	read(name string) ([]byte, bool)
	isDir(name string) bool
}

// loadNode builds the node of a directory from its ignore files, or
// returns parent when it has none and no .git.
func loadNode(src ruleSource, present map[string]bool, parent *ignoreNode, dir, up string) *ignoreNode {
	n := &ignoreNode{parent: parent, dir: dir, up: up, hasGit: present[".git"]}
	n.inRepo = n.hasGit || (parent != nil && parent.inRepo)
	any := n.hasGit
	for _, f := range []struct {
		name string
		dst  **ruleSet
	}{{rgIgnoreFile, &n.custom}, {ignoreFile, &n.ignore}, {gitIgnoreFile, &n.git}} {
		if !present[f.name] {
			continue
		}
		if data, ok := src.read(f.name); ok {
			*f.dst = parseRules(data)
			any = true
		}
	}
	if n.hasGit && src.isDir(".git") {
		if data, ok := src.read(".git/info/exclude"); ok {
			n.exclude = parseRules(data)
		}
	}
	if !any {
		return parent
	}
	return n
}

// dirSource reads ignore files during the walk: through the directory
// handle, or through the search root's fs.FS for a symbolic link (which
// os.Root follows only while it stays in the workspace).
type dirSource struct {
	d       dirfd.Dir
	entries []dirfd.Entry
	fsys    fs.FS
	rel     string
}

func (s *dirSource) entry(name string) (dirfd.Entry, bool) {
	for _, e := range s.entries {
		if e.Name == name {
			return e, true
		}
	}
	return dirfd.Entry{}, false
}

func (s *dirSource) read(name string) ([]byte, bool) {
	first, rest, nested := strings.Cut(name, "/")
	e, ok := s.entry(first)
	if !ok {
		return nil, false
	}
	if nested || e.Type&fs.ModeSymlink != 0 {
		data, err := fs.ReadFile(s.fsys, path.Join(s.rel, first, rest))
		return data, err == nil
	}
	data, _, err := s.d.ReadFile(name, nil)
	return data, err == nil
}

func (s *dirSource) isDir(name string) bool {
	e, ok := s.entry(name)
	return ok && e.Type.IsDir()
}

// fsSource reads the ignore files of an ancestor directory of the search
// root, through that directory's workspace fs.FS.
type fsSource struct{ fsys fs.FS }

func (s fsSource) read(name string) ([]byte, bool) {
	data, err := fs.ReadFile(s.fsys, name)
	return data, err == nil
}

func (s fsSource) isDir(name string) bool {
	fi, err := fs.Stat(s.fsys, name)
	return err == nil && fi.IsDir()
}

// ignoreNames are the entries whose presence loadNode looks at.
var ignoreNames = []string{rgIgnoreFile, ignoreFile, gitIgnoreFile, ".git"}
