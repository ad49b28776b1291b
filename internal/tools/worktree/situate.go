package worktree

import (
	"os"
	"path/filepath"
	"strings"
)

// managedPath reports whether path (relative paths are cwd's) leads,
// symlinks resolved, below the .claude/worktrees of the repository that
// holds cwd (its main working tree's), that directory being a real one:
// Claude Code's test of whether entering it needs permission. It reads
// the file system only (the decision comes before the call runs, and runs
// no git): a repository is found by its .git as git finds it.
func managedPath(cwd, path string) bool {
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, abs)
	}
	target, err := filepath.EvalSymlinks(filepath.Clean(abs))
	if err != nil {
		return false
	}
	root := mainRootOf(cwd)
	if root == "" {
		return false
	}
	dir := filepath.Join(root, ".claude", "worktrees")
	if real, err := filepath.EvalSymlinks(dir); err != nil || real != dir {
		return false
	}
	return strictlyWithin(target, dir)
}

// mainRootOf is the main working tree of the repository that holds dir,
// symlinks resolved, found through the .git of dir or the nearest
// directory above it: a .git directory makes that directory the root; a
// .git file of a linked worktree leads, through its gitdir and commondir,
// to the repository's .git, whose parent is the root. "" when there is
// none, or when the layout is another (a separate git directory).
func mainRootOf(dir string) string {
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return ""
	}
	for {
		dotgit := filepath.Join(d, ".git")
		if fi, err := os.Lstat(dotgit); err == nil {
			switch {
			case fi.IsDir():
				return d
			case fi.Mode().IsRegular():
				return rootOfLinked(d)
			}
			return ""
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}

// rootOfLinked follows a linked worktree's .git file to its repository's
// main working tree.
func rootOfLinked(d string) string {
	b, err := readSmall(filepath.Join(d, ".git"))
	if err != nil {
		return ""
	}
	line := strings.TrimSpace(string(b))
	if !strings.HasPrefix(line, "gitdir:") {
		return ""
	}
	admin := strings.TrimSpace(strings.TrimPrefix(line, "gitdir:"))
	if !filepath.IsAbs(admin) {
		admin = filepath.Join(d, admin)
	}
	c, err := readSmall(filepath.Join(admin, "commondir"))
	if err != nil {
		return ""
	}
	common := strings.TrimSpace(string(c))
	if !filepath.IsAbs(common) {
		common = filepath.Join(admin, common)
	}
	common, err = filepath.EvalSymlinks(common)
	if err != nil || filepath.Base(common) != ".git" {
		return ""
	}
	return filepath.Dir(common)
}
