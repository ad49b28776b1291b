package policy

import (
	"path/filepath"
	"strings"
)

// protectedDirs and protectedFiles are the paths whose writes no mode but
// bypassPermissions approves without asking, and that allow rules do not
// pre-approve (https://code.claude.com/docs/en/permission-modes, "Protected
// paths").
var protectedDirs = map[string]bool{
	".git": true, ".vscode": true, ".idea": true, ".husky": true, ".cargo": true,
	".devcontainer": true, ".yarn": true, ".mvn": true, ".claude": true,
}

var protectedFiles = map[string]bool{
	".gitconfig": true, ".gitmodules": true,
	".bashrc": true, ".bash_profile": true, ".bash_login": true, ".bash_aliases": true, ".bash_logout": true,
	".zshrc": true, ".zprofile": true, ".zshenv": true, ".zlogin": true, ".zlogout": true, ".profile": true, ".envrc": true,
	".npmrc": true, ".yarnrc": true, ".yarnrc.yml": true, ".pnp.cjs": true, ".pnp.loader.mjs": true, ".pnpmfile.cjs": true,
	"bunfig.toml": true, ".bunfig.toml": true,
	".bazelrc": true, ".bazelversion": true, ".bazeliskrc": true,
	".pre-commit-config.yaml": true, "lefthook.yml": true, "lefthook.yaml": true, ".lefthook.yml": true, ".lefthook.yaml": true,
	"gradle-wrapper.properties": true, "maven-wrapper.properties": true,
	".devcontainer.json": true, ".ripgreprc": true, "pyrightconfig.json": true,
	".mcp.json": true, ".claude.json": true,
}

// isProtected reports whether writing abs touches a protected path: a
// protected file name, anything below a protected directory (.claude/worktrees
// excepted), or .config/git.
func isProtected(abs string) bool {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(abs)), "/")
	for i, p := range parts {
		if p == ".claude" && i+1 < len(parts) && parts[i+1] == "worktrees" {
			return false
		}
		if protectedDirs[p] && i < len(parts) {
			return true
		}
		if p == ".config" && i+1 < len(parts) && parts[i+1] == "git" {
			return true
		}
	}
	return protectedFiles[parts[len(parts)-1]]
}

// inside reports whether abs lies in one of dirs, by path components.
func inside(abs string, dirs []string) bool {
	for _, d := range dirs {
		rel, err := filepath.Rel(d, abs)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// absolute makes p absolute against cwd and cleans it.
func absolute(cwd, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// isCritical reports whether removing target (as written in an rm or rmdir)
// would remove a critical path: the root, a top-level directory, home, a
// working directory or one of its parents, an additional directory's
// contents by glob, or a glob or trailing slash right after a variable
// (https://code.claude.com/docs/en/permission-modes, "Critical paths").
// A target toold cannot evaluate (a variable, ~, a glob at the top) counts
// as critical: the safer reading.
func isCritical(target, cwd, home string, dirs []string) bool {
	if strings.HasPrefix(target, "$") || strings.Contains(target, "$") && (strings.HasSuffix(target, "/") || strings.ContainsAny(target, "*?")) {
		return true
	}
	t := target
	if t == "~" || strings.HasPrefix(t, "~/") {
		if home == "" {
			return true
		}
		t = home + strings.TrimPrefix(t, "~")
	}
	glob := strings.ContainsAny(t, "*?[")
	base := t
	if glob {
		base = filepath.Dir(t[:strings.IndexAny(t, "*?[")+1])
	}
	abs := absolute(cwd, base)
	if abs == "/" || strings.Count(abs, "/") == 1 {
		return true
	}
	if home != "" && abs == filepath.Clean(home) {
		return true
	}
	for i, d := range dirs {
		rel, err := filepath.Rel(abs, d)
		parentOrSelf := err == nil && (rel == "." || !strings.HasPrefix(rel, ".."))
		if i == 0 && parentOrSelf {
			return true
		}
		if glob && parentOrSelf {
			return true
		}
	}
	if cwdRel, err := filepath.Rel(abs, cwd); err == nil && (cwdRel == "." || !strings.HasPrefix(cwdRel, "..")) {
		return true
	}
	return false
}
