package policy

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/toold/toold/internal/shell"
)

// Placing a command's path arguments: every absolute path an argument may
// name, against every directory the command may run in.

// maxCwds bounds the directories a command may run in after relative cd
// commands that may each have failed (cd a || cd b; cd c ...); past it the
// directory counts as unknown.
const maxCwds = 32

// maxGlobMatches bounds a glob's expansion; a larger one counts as
// unknown.
const maxGlobMatches = 1000

// placed is one path argument with the absolute paths it may name: the
// lexical and the physical (symlink-resolved) form, for each directory
// the command may run in, and each match of a glob.
type placed struct {
	arg   shell.PathArg
	paths []string
	// unknown says why the argument cannot be placed ("" when it can).
	unknown string
	// proc: the argument is under /proc (see underProc).
	proc bool
	// globDirs are the fixed directories of a glob (/etc for /etc/*):
	// the command lists them even when nothing matches.
	globDirs []string
}

// alwaysInScope are the device files commands use as sources and sinks;
// none of them is a file of the machine's.
var alwaysInScope = map[string]bool{
	"/dev/null": true, "/dev/zero": true, "/dev/random": true, "/dev/urandom": true, "/dev/full": true,
	"/dev/stdin": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true,
	"/dev/fd/0": true, "/dev/fd/1": true, "/dev/fd/2": true,
}

// cwdsOf lists the directories c may run in: the call's and each result
// of the directory changes before it; unknown says why they cannot be
// listed.
func (in *input) cwdsOf(c *shell.Command) (cwds []string, unknown string) {
	set := []string{filepath.Clean(in.req.Cwd)}
	for _, ch := range c.Chdirs {
		if ch.Unknown {
			return nil, "it runs after a change of directory the analysis cannot follow (cd -, popd, CDPATH, or a cd in a loop or function)"
		}
		targets := []string{ch.Target}
		if ch.Dynamic {
			t, ok := in.expandHome(ch.Target)
			if !ok || strings.ContainsAny(t, "*?[") {
				return nil, "it runs after cd " + ch.Target + ", whose directory is computed at run time"
			}
			targets = []string{t}
		}
		var next []string
		if !ch.Sure {
			next = set // the change may have failed
		}
		for _, from := range set {
			for _, t := range targets {
				next = appendNew(next, absolute(from, t), in.physical(from, t))
			}
		}
		if underProc(next) {
			return nil, "it runs after cd " + ch.Target + ": " + procUnknown
		}
		set = next
		if len(set) > maxCwds {
			return nil, "it runs after more changes of directory than the analysis follows"
		}
	}
	return set, ""
}

func appendNew(set []string, ps ...string) []string {
	for _, p := range ps {
		found := false
		for _, s := range set {
			found = found || s == p
		}
		if !found {
			set = append(set, p)
		}
	}
	return set
}

// place resolves c's path arguments against the directories it may run
// in. cwds is nil when they are unknown: relative arguments then cannot be
// placed.
func (in *input) place(c *shell.Command, cwds []string, cwdUnknown string) []placed {
	var out []placed
	for _, a := range c.PathArgs() {
		p := placed{arg: a}
		words := []string{a.Path}
		switch {
		case a.Dynamic && a.Path == "":
			p.unknown = "the file names come from the command's input at run time"
		case a.Dynamic:
			p.unknown = "it is computed at run time"
			words = nil
			if t, ok := in.expandHome(a.Path); ok {
				words, p.unknown = []string{t}, ""
			}
		}
		if p.unknown == "" && len(words) == 1 && !filepath.IsAbs(words[0]) && cwds == nil {
			p.unknown = cwdUnknown
		}
		if p.unknown != "" {
			out = append(out, p)
			continue
		}
		for _, cwd := range cwds {
			if filepath.IsAbs(words[0]) {
				cwd = "/"
			}
			in.placeWord(&p, cwd, words[0])
			if filepath.IsAbs(words[0]) || p.unknown != "" {
				break
			}
		}
		if cwds == nil {
			in.placeWord(&p, "/", words[0])
		}
		if p.unknown == "" && underProc(p.paths) && !(len(p.paths) > 0 && alwaysInScope[p.paths[0]]) {
			p.unknown, p.proc = procUnknown, true
		}
		out = append(out, p)
	}
	return out
}

const procUnknown = "it is under /proc, whose links (self, cwd, fd, root) name the command's own process, not toold's"

// underProc: a path through /proc. Its links resolve differently in the
// command (/proc/self/cwd is the command's directory) than in toold, so
// toold cannot place it.
func underProc(paths []string) bool {
	for _, p := range paths {
		if p == "/proc" || strings.HasPrefix(p, "/proc/") {
			return true
		}
	}
	return false
}

// placeWord adds the paths word names from cwd; a glob adds its matches.
func (in *input) placeWord(p *placed, cwd, word string) {
	if !p.arg.Dynamic || !strings.ContainsAny(word, "*?[") {
		p.paths = appendNew(p.paths, absolute(cwd, word), in.physical(cwd, word))
		return
	}
	comps := strings.Split(word, "/")
	base := cwd
	if filepath.IsAbs(word) {
		base = "/"
	}
	// The fixed part before the first component with a glob is a
	// directory the command names even when nothing matches.
	fixed := base
	for _, c := range comps {
		if strings.ContainsAny(c, "*?[") {
			break
		}
		fixed += "/" + c
	}
	p.globDirs = appendNew(p.globDirs, absolute("/", fixed), in.physical("/", fixed))
	// Match does not give * a leading dot only with dotglob in bash: here
	// it does, the safer reading, since a shopt can turn dotglob on.
	matches, ok := globComponents(base, comps)
	if !ok {
		p.unknown = "the glob " + word + " matches too many files to check"
		return
	}
	for _, m := range matches {
		p.paths = appendNew(p.paths, absolute("/", m), in.physical("/", m))
	}
}

// globComponents expands a glob one component at a time as bash does,
// keeping . and .. as written (bash's */../x is sub/../x), so that the
// physical resolution of each match sees the components the kernel will.
// ok is false past maxGlobMatches.
func globComponents(base string, comps []string) ([]string, bool) {
	cur := []string{base}
	for i, c := range comps {
		if c == "" && i > 0 {
			continue
		}
		var next []string
		for _, dir := range cur {
			if !strings.ContainsAny(c, "*?[") {
				next = append(next, dir+"/"+c)
				continue
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				continue
			}
			for _, e := range entries {
				if m, err := filepath.Match(c, e.Name()); err == nil && m {
					next = append(next, dir+"/"+e.Name())
				}
			}
		}
		if len(next) > maxGlobMatches {
			return nil, false
		}
		cur = next
	}
	// A match must exist; bash passes a pattern that matches nothing as
	// written, which names no file.
	var out []string
	for _, m := range cur {
		if _, err := os.Lstat(m); err == nil {
			out = append(out, m)
		}
	}
	return out, true
}

// expandHome expands what bash expands in a word the analysis left
// dynamic and that policy can still place: a leading ~ or ~/ and $HOME
// (a variable the analysis lets through); globs are left to placeWord. ok is false for anything else (other variables, quotes in
// the source text, brace expansion).
func (in *input) expandHome(word string) (string, bool) {
	switch {
	case word == "~" || strings.HasPrefix(word, "~/"):
		if in.home == "" {
			return "", false
		}
		word = in.home + word[1:]
	case strings.HasPrefix(word, "$HOME") || strings.HasPrefix(word, "${HOME}"):
		if in.home == "" {
			return "", false
		}
		word = in.home + strings.TrimPrefix(strings.TrimPrefix(word, "${HOME}"), "$HOME")
	}
	if strings.ContainsAny(word, "$`\"'\\{}~") {
		return "", false
	}
	return word, true
}

// physical is the path the kernel opens for name relative to cwd: each
// component is resolved in turn, so that link/.. is the parent of the
// link's target, not cwd (filepath.Clean would say cwd). Below the first
// component that does not exist the rest is taken as written. The
// resolved form of each cwd is kept for the decision: a command line
// names many paths from few directories.
func (in *input) physical(cwd, name string) string {
	if filepath.IsAbs(name) {
		return in.physicalAbs(name)
	}
	return physicalFrom(in.physicalAbs(cwd), name)
}

// physicalAbs is physicalFrom("/", p), kept for the decision: the cwd, the
// home and the working directories are resolved many times.
func (in *input) physicalAbs(p string) string {
	if r, ok := in.physDirs[p]; ok {
		return r
	}
	r := physicalFrom("/", p)
	if in.physDirs == nil {
		in.physDirs = map[string]string{}
	}
	in.physDirs[p] = r
	return r
}

// physicalFrom resolves name below resolved, a directory without
// symlinks.
func physicalFrom(resolved, name string) string {
	todo := strings.Split(name, "/")
	for hops := 0; len(todo) > 0; {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		fi, err := os.Lstat(next)
		if err != nil {
			return filepath.Join(append([]string{next}, todo...)...)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			resolved = next
			continue
		}
		target, err := os.Readlink(next)
		if hops++; err != nil || hops > 40 {
			return filepath.Join(append([]string{next}, todo...)...)
		}
		if filepath.IsAbs(target) {
			resolved = "/"
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	return resolved
}

// placement is a command's directories and placed path arguments,
// computed once per decision.
type placement struct {
	cwds       []string
	cwdUnknown string
	args       []placed
}

func (in *input) placementOf(c *shell.Command) *placement {
	if pl, ok := in.placements[c]; ok {
		return pl
	}
	pl := &placement{}
	pl.cwds, pl.cwdUnknown = in.cwdsOf(c)
	pl.args = in.place(c, pl.cwds, pl.cwdUnknown)
	if in.placements == nil {
		in.placements = map[*shell.Command]*placement{}
	}
	in.placements[c] = pl
	return pl
}
