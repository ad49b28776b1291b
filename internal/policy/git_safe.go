package policy

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Read-only git is safe only in a repository whose configuration makes git
// run nothing but itself. A repository in the workspace is the model's to
// write: a config with core.fsmonitor, a pager, a diff driver, a textconv
// or clean filter, a gpg program with log.showSignature, an include, or a
// submodule (whose own config git status reads) turns git status, diff or
// log into a program of the repository's choosing. gitConfigSafe finds the
// repository git would use from dir, as git discovers it, and accepts it
// only when every key of its config is in gitSafeKeys; anything it cannot
// read or place fails closed, and the command asks instead.
//
// Claude Code 2.1.332 runs git status in a repository with core.fsmonitor
// set (the program runs); toold asks there.

// gitSafeKeys are the config keys that only describe the repository (what
// git init and git clone write, and the identity). Sections whose
// subsection is free (remote.<name>, branch.<name>) list the variable.
var gitSafeKeys = map[string]bool{
	"core.repositoryformatversion": true, "core.filemode": true, "core.bare": true,
	"core.logallrefupdates": true, "core.ignorecase": true, "core.precomposeunicode": true,
	"core.symlinks": true, "core.autocrlf": true, "core.eol": true, "core.safecrlf": true,
	"core.quotepath": true, "core.abbrev": true, "core.checkstat": true, "core.trustctime": true,
	"core.untrackedcache": true, "core.splitindex": true, "core.commitgraph": true,
	"core.multipackindex": true, "core.sparsecheckout": true, "core.sparsecheckoutcone": true,
	"user.name": true, "user.email": true, "init.defaultbranch": true,
	"extensions.objectformat": true, "extensions.refstorage": true, "extensions.partialclone": true,
	"extensions.preciousobjects": true, "extensions.worktreeconfig": true, "lfs.repositoryformatversion": true, "index.version": true, "index.sparse": true,
	"color.ui": true, "column.ui": true, "advice.detachedhead": true,
	"pull.rebase": true, "pull.ff": true, "fetch.prune": true, "push.default": true,
	"gc.auto": true, "maintenance.auto": true, "maintenance.strategy": true,
	"status.showuntrackedfiles": true, "diff.renames": true, "diff.algorithm": true,
	"log.date": true, "log.decorate": true, "merge.conflictstyle": true,
}

// gitSafeSubsectionKeys are the variables allowed under any subsection.
var gitSafeSubsectionKeys = map[string]map[string]bool{
	"remote": {"url": true, "fetch": true, "pushurl": true, "tagopt": true, "prune": true, "promisor": true, "partialclonefilter": true, "mirror": true},
	"branch": {"remote": true, "merge": true, "rebase": true, "pushremote": true, "description": true},
}

// maxGitConfig bounds the config file read (a normal one is under 1 KB).
const maxGitConfig = 64 << 10

// gitConfigSafe reports whether git started in dir would use a repository
// whose configuration runs no program, and why not.
func gitConfigSafe(dir string) (bool, string) {
	gitDir, why := discoverGitDir(dir)
	if why != "" {
		return false, why
	}
	if gitDir == "" {
		return true, "" // not a repository: git refuses, running nothing
	}
	for _, name := range []string{"config", "config.worktree"} {
		if ok, why := gitFileSafe(filepath.Join(gitDir, name)); !ok {
			return false, why
		}
	}
	// A linked worktree's git dir names the common one.
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		for _, name := range []string{"config", "config.worktree"} {
			if ok, why := gitFileSafe(filepath.Join(common, name)); !ok {
				return false, why
			}
		}
		gitDir = common
	} else if !os.IsNotExist(err) {
		return false, "cannot read " + filepath.Join(gitDir, "commondir")
	}
	// git status recurses into submodules, each with its own config.
	if _, err := os.Lstat(filepath.Join(gitDir, "modules")); !os.IsNotExist(err) {
		return false, "the repository has submodules, whose configuration git reads too"
	}
	return true, ""
}

// discoverGitDir finds the git directory git would use from dir: the first
// ancestor with a .git directory or a .git file ("gitdir: path"), or that
// is itself a bare repository. "" when there is none.
func discoverGitDir(dir string) (string, string) {
	for cur := filepath.Clean(dir); ; {
		dotgit := filepath.Join(cur, ".git")
		fi, err := os.Lstat(dotgit)
		switch {
		case err == nil && fi.IsDir():
			return dotgit, ""
		case err == nil && fi.Mode().IsRegular():
			b, err := readLimited(dotgit)
			if err != nil {
				return "", "cannot read " + dotgit
			}
			target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
			if !ok {
				return "", dotgit + " is not a gitdir file"
			}
			target = strings.TrimSpace(target)
			if !filepath.IsAbs(target) {
				target = filepath.Join(cur, target)
			}
			return target, ""
		case err == nil:
			return "", dotgit + " is neither a directory nor a file" // a symlink: git follows it
		case !os.IsNotExist(err):
			return "", "cannot look at " + dotgit
		}
		if looksBare(cur) {
			return "", cur + " looks like a bare repository, whose config git would read"
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", ""
		}
		cur = parent
	}
}

// looksBare: git takes a directory with HEAD, objects/ and refs/ for a
// bare repository (Claude Code asks for git there too).
func looksBare(dir string) bool {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
			return false
		}
	}
	return true
}

func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxGitConfig+1))
}

// gitFileSafe checks one config file; a missing file is safe.
func gitFileSafe(path string) (bool, string) {
	b, err := readLimited(path)
	if os.IsNotExist(err) {
		return true, ""
	}
	if err != nil {
		return false, "cannot read " + path
	}
	if len(b) > maxGitConfig {
		return false, path + " is too large to check"
	}
	if key, ok := gitConfigKeysSafe(b); !ok {
		return false, path + " sets " + key + ", which can make git run a program"
	}
	return true, ""
}

// gitConfigKeysSafe parses git's config syntax enough to name every key,
// and fails on what it does not understand (a continuation line, a quoted
// subsection it cannot read): the first key outside the allow-list is
// returned.
func gitConfigKeysSafe(b []byte) (string, bool) {
	section, sub := "", ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), maxGitConfig+1)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if strings.HasSuffix(line, "\\") || strings.ContainsRune(line, 0) {
			return "a continued line", false
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return "a malformed section", false
			}
			head := line[1:end]
			rest := strings.TrimSpace(line[end+1:])
			section, sub = head, ""
			if i := strings.IndexAny(head, " \t"); i >= 0 {
				section = head[:i]
				sub = strings.TrimSpace(head[i:])
				if len(sub) < 2 || sub[0] != '"' || sub[len(sub)-1] != '"' {
					return "a malformed subsection", false
				}
				sub = sub[1 : len(sub)-1]
			} else if i := strings.IndexByte(head, '.'); i >= 0 {
				section, sub = head[:i], head[i+1:] // [section.sub], the old form
			}
			section = strings.ToLower(section)
			if rest == "" || rest[0] == '#' || rest[0] == ';' {
				continue
			}
			line = rest // a key on the section's line
		}
		name := line
		if i := strings.IndexAny(line, "= \t"); i >= 0 {
			name = line[:i]
		}
		name = strings.ToLower(name)
		key := section + "." + name
		if sub != "" {
			key = section + "." + sub + "." + name
			if gitSafeSubsectionKeys[section][name] {
				continue
			}
			return key, false
		}
		if section == "" || !gitSafeKeys[key] {
			return key, false
		}
	}
	if sc.Err() != nil {
		return "an unreadable line", false
	}
	return "", true
}
