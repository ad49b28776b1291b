package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/toold/toold/internal/shell"
)

// Read and Edit rules bind Bash: a command that reads a file a Read deny
// rule covers is denied, as Claude Code applies Read rules to the files
// of commands that read them; one that writes a file an Edit deny rule
// covers is denied. Which argument is a file comes from
// shell.Command.PathArgs; this file decides what its paths mean.

// maxWalk bounds the entries a recursive read is searched for denied
// files; a larger tree asks.
const maxWalk = 20000

// guarded reports whether a deny or ask rule could cover some path for
// tool: without one, no path argument needs placing for the rules.
func (in *input) guarded(tool string) bool {
	for _, b := range []Behavior{Deny, Ask} {
		for _, r := range in.rules.Rules(b) {
			if r.appliesTo(tool) && r.speaksOfPaths() {
				return true
			}
		}
	}
	return false
}

// fileRules decides c by the Read and Edit rules that cover its files: a
// Deny, an Ask, or nil when they say nothing. Every deny is looked for
// before any ask.
func (in *input) fileRules(c *shell.Command) *Decision {
	readGuard, editGuard := in.guarded("Read"), in.guarded("Edit")
	if !readGuard && !editGuard {
		return nil
	}
	args := in.placementOf(c).args
	var ask *Decision
	askOnce := func(d Decision) {
		if ask == nil {
			ask = &d
		}
	}
	for _, p := range args {
		acc := p.arg.Access
		tools := toolsFor(acc)
		for _, tool := range tools {
			if tool == "Read" && !readGuard || tool == "Edit" && !editGuard {
				continue
			}
			if p.unknown != "" {
				if acc&(shell.Read|shell.Write) != 0 || p.proc && acc&(shell.Mention|shell.Run) != 0 {
					source := "fileRules"
					if p.arg.Redirect {
						source = "redirection"
					}
					askOnce(Decision{Reason: fmt.Sprintf("%s %s a file toold cannot name (%s: %s), and %s rules deny or ask for some files", quote(c.Line()), verb(tool), shown(p.arg), p.unknown, tool), Source: source})
				}
				continue
			}
			paths := p.paths
			if tool == "Read" && acc&shell.Read != 0 && !p.arg.Redirect && c != in.first && !anyExists(paths) {
				// The file does not exist yet: an earlier command of the
				// line makes it, and what it makes may be a link to a
				// file the rules cover (ln -s .env x is seen; a script
				// that does the same is not).
				askOnce(Decision{Reason: fmt.Sprintf("%s reads %s, which does not exist before the command line runs, and Read rules deny or ask for some files", quote(c.Line()), paths[0]), Source: "fileRules"})
				continue
			}
			if acc&shell.Inline != 0 && !anyExists(paths) {
				// A program's word that names no file (s/.env/x/ is
				// no path): only existing files are what it may open.
				continue
			}
			if r := in.matchResolved(Deny, tool, paths); r != nil {
				if acc&(shell.Mention|shell.Inline) != 0 {
					// An argument of a program toold does not know, or a
					// word of a program text: it may not be a file at
					// all, so it asks rather than denies.
					askOnce(Decision{Reason: fmt.Sprintf("%s names %s, which the %s rule %s denies to %s; toold does not know whether the program opens it", quote(c.Line()), paths[len(paths)-1], r.Source, r.Text, tool), Rule: r.Text, Source: r.Source.String()})
					continue
				}
				return &Decision{Behavior: Deny, Reason: fmt.Sprintf("%s %s %s, which the %s rule %s denies", quote(c.Line()), verb(tool), paths[len(paths)-1], r.Source, r.Text), Rule: r.Text, Source: r.Source.String()}
			}
			if r := in.matchResolved(Ask, tool, paths); r != nil {
				askOnce(Decision{Reason: fmt.Sprintf("%s %s %s, for which the %s rule %s asks", quote(c.Line()), verb(tool), paths[len(paths)-1], r.Source, r.Text), Rule: r.Text, Source: r.Source.String()})
			}
		}
		if acc&shell.Recursive != 0 && readGuard && p.unknown == "" {
			if hit, r := in.guardedBelow(p.paths); hit != "" {
				askOnce(Decision{Reason: fmt.Sprintf("%s reads every file below %s, and %s", quote(c.Line()), p.paths[0], r), Source: "fileRules"})
			}
		}
	}
	return ask
}

// toolsFor names the rule families an access is checked against: reads
// by Read rules, writes by Edit rules, an unplaced argument by both.
func toolsFor(acc shell.Access) []string {
	switch {
	case acc&(shell.Mention|shell.Inline) != 0:
		return []string{"Read", "Edit"}
	case acc&shell.Run != 0:
		return []string{"Read"}
	case acc&shell.Read != 0 && acc&shell.Write != 0:
		return []string{"Read", "Edit"}
	case acc&shell.Read != 0:
		return []string{"Read"}
	case acc&shell.Write != 0:
		return []string{"Edit"}
	}
	return nil
}

func verb(tool string) string {
	if tool == "Edit" {
		return "writes"
	}
	return "reads"
}

func shown(a shell.PathArg) string {
	if a.Path == "" {
		return "names read from its input"
	}
	return a.Path
}

var errFound = errors.New("found")

// guardedBelow searches the directories among paths for an entry that a
// Read deny or ask rule covers (Claude Code's Grep leaves such files out
// of its results; a command cannot, so it asks). It returns the entry
// and what covers it, or "" when nothing does.
func (in *input) guardedBelow(paths []string) (string, string) {
	var rules []*Rule
	for _, b := range []Behavior{Deny, Ask} {
		for _, r := range in.rules.Rules(b) {
			if r.appliesTo("Read") && r.speaksOfPaths() {
				rules = append(rules, r)
			}
		}
	}
	h := &hider{rules: rules, cwd: in.req.Cwd, home: in.home, dirs: map[string]resolvedDir{}}
	for _, root := range paths {
		hit, seen := "", 0
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == root {
					return filepath.SkipAll // not there, or not readable: nothing to read
				}
				return nil
			}
			if seen++; seen > maxWalk {
				return filepath.SkipAll
			}
			if p != root && h.hidden(p) {
				hit = p
				return errFound
			}
			return nil
		})
		switch {
		case hit != "":
			r := in.matchAny(Deny, "Read", in.pathsOf(hit))
			if r == nil {
				r = in.matchAny(Ask, "Read", in.pathsOf(hit))
			}
			what := "a Read rule covers it"
			if r != nil {
				what = "the " + r.Source.String() + " rule " + r.Text + " covers it"
			}
			return hit, fmt.Sprintf("%s is among them: %s (a command cannot leave the file out as Grep does)", hit, what)
		case seen > maxWalk:
			return root, fmt.Sprintf("the tree has more than %d entries, too many to check against the Read rules", maxWalk)
		case err != nil && !errors.Is(err, errFound):
			return root, "the tree could not be searched for files the Read rules cover: " + err.Error()
		}
	}
	return "", ""
}

// outsideReason says why c leaves the working directories, "" when it
// does not: it runs in a directory outside them, or a path argument lies
// outside them, and no Read (for reads and names) or Edit (for writes)
// allow rule covers that path. Allow rules and the read-only set approve
// only commands that stay inside (https://code.claude.com/docs/en/permissions
// "Working directories").
func (in *input) outsideReason(c *shell.Command) string {
	pl := in.placementOf(c)
	if pl.cwds == nil {
		return pl.cwdUnknown
	}
	// Arguments first: their reason names the file (cd / && cat
	// etc/hostname reads /etc/hostname), then the directory itself.
	for _, p := range pl.args {
		if p.arg.Access == shell.Mention && !looksLikePath(p.arg.Path) || p.arg.Access&(shell.Inline|shell.Run) != 0 {
			// Program text and the program's own path are for the deny
			// rules: /usr/bin/python3 runs from outside, and a program
			// text's words are too often not paths.
			continue
		}
		if len(p.paths) > 0 && alwaysInScope[p.paths[0]] {
			continue // /dev/stderr's link leads into /proc: it is still no file
		}
		tool := "Read"
		if p.arg.Access&shell.Write != 0 {
			tool = "Edit"
		}
		for _, path := range p.globDirs {
			if !in.inScope(tool, []string{path}) {
				return fmt.Sprintf("%s %s, outside the working directories", accessVerb(p.arg.Access), path)
			}
		}
		if p.unknown != "" {
			if p.arg.Access == shell.Mention && p.arg.Dynamic && !looksLikePath(p.arg.Path) {
				continue
			}
			if p.arg.Path == "" && p.arg.Dynamic && p.arg.Access == shell.Read && c.ReadOnly() {
				// The file names a read-only command gets from xargs's
				// input: Claude Code 2.1.332 runs echo f | xargs grep x
				// without asking, and cannot see them either.
				continue
			}
			return fmt.Sprintf("toold cannot tell whether %s stays inside the working directories: %s", shown(p.arg), p.unknown)
		}
		for _, path := range p.paths {
			if !in.inScope(tool, []string{path}) {
				return fmt.Sprintf("%s %s, outside the working directories", accessVerb(p.arg.Access), path)
			}
		}
	}
	for _, cwd := range pl.cwds {
		if !in.inScope("Read", []string{cwd}) {
			return "it runs in " + cwd + ", outside the working directories"
		}
	}
	return ""
}

// inScope: every path lies in a working directory, is a device such as
// /dev/null, or an allow rule of tool covers it.
func (in *input) inScope(tool string, paths []string) bool {
	for _, p := range paths {
		if !alwaysInScope[p] && !inside(p, in.dirs()) && in.matchAll(Allow, tool, []string{p}) == nil {
			return false
		}
	}
	return true
}

func accessVerb(acc shell.Access) string {
	switch {
	case acc&shell.Write != 0:
		return "it writes"
	case acc&shell.Read != 0:
		return "it reads"
	}
	return "it names"
}

// looksLikePath: an argument of an unknown program that is taken for a
// path for the working-directory check (a/b, /x, ~/x, ..). Other words
// (a branch name, a number) are not.
func looksLikePath(s string) bool {
	return strings.Contains(s, "/") || strings.HasPrefix(s, "~") || s == ".." || strings.HasPrefix(s, "$HOME")
}

func anyExists(paths []string) bool {
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			return true
		}
	}
	return false
}

// matchResolved is matchAny, and again with the cwd and home that anchor
// ./ and ~/ patterns in their physical form: a physical path (the target
// of a symlink) lies under the physical cwd, not under a cwd reached
// through a symlink.
func (in *input) matchResolved(b Behavior, tool string, paths []string) *Rule {
	if r := in.matchAny(b, tool, paths); r != nil {
		return r
	}
	cwd, home := in.physicalAnchors()
	if cwd == in.req.Cwd && home == in.home {
		return nil
	}
	q := in.query()
	q.Tool, q.Cwd, q.Home, q.PathsOnly = tool, cwd, home, tool != in.req.Tool
	for _, p := range paths {
		q.Path = p
		if r := in.rules.Match(b, q); r != nil {
			return r
		}
	}
	return nil
}

// dirs are the working directories as given and in their physical form,
// which physical paths are compared with.
func (in *input) dirs() []string {
	if in.physWorkDirs == nil {
		in.physWorkDirs = append([]string{}, in.req.Dirs...)
		for _, d := range in.req.Dirs {
			if r := in.physical("/", d); r != d {
				in.physWorkDirs = append(in.physWorkDirs, r)
			}
		}
	}
	return in.physWorkDirs
}

// physicalAnchors are the cwd and home in their physical form, resolved
// once per decision.
func (in *input) physicalAnchors() (cwd, home string) {
	if !in.anchorsDone {
		in.physCwd, in.physHome, in.anchorsDone = in.physical("/", in.req.Cwd), in.home, true
		if in.home != "" {
			in.physHome = in.physical("/", in.home)
		}
	}
	return in.physCwd, in.physHome
}
