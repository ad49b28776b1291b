package shell

import (
	"path/filepath"
	"strings"
)

// MaxCommandLen is the longest command the analysis will prove; longer
// ones are still analysed, but are unprovable (Claude Code prompts for
// commands longer than 10,000 characters:
// https://code.claude.com/docs/en/permissions#read-only-commands).
const MaxCommandLen = 10000

// MaxDepth bounds the nesting of scripts inside scripts (sh -c, eval,
// watch, flock -c). A deeper script is not analysed and the analysis is
// unprovable.
const MaxDepth = 5

const analysisFailed = "the analysis failed: "

// Analysis is what Analyze found in a command line.
type Analysis struct {
	// Commands lists every simple command that would run, in source
	// order, with commands of nested scripts (sh -c '...') in place of
	// the wrapper that runs them.
	Commands []Command
	// Hidden lists the commands run by substitutions: $(...), `...`,
	// <(...) and >(...), wherever they appear (arguments, double quotes,
	// redirection targets, here-documents). A substitution always makes
	// the analysis unprovable; Hidden is there so that a policy can still
	// apply deny rules and critical-path checks to what it hides
	// (https://code.claude.com/docs/en/permission-modes "The check also
	// sees inside $(...), backticks and <(...)").
	Hidden []Command
	// ShellAssigns lists the shell variables the command line sets in the
	// shell itself rather than in one command's environment: NAME=value
	// statements without a command, export/readonly, for-loop variables,
	// read/printf -v/mapfile targets. Entries are "NAME=value" or "NAME".
	ShellAssigns []string
	// Unprovable lists why the analysis cannot prove what runs: a parse
	// error, substitutions, eval/source/alias/function definitions,
	// dynamic program names, arithmetic that can evaluate code, control
	// or invisible characters, an over-long command, too deep nesting.
	// Empty when everything was proven.
	Unprovable []string

	// complex is set by constructs that are provable but that the
	// read-only check refuses all the same (parameter expansion operators,
	// extended globs, arithmetic, [[ ]], time, declarations).
	complex bool
	// chdirs are the directory changes recorded so far, in source order.
	chdirs []Chdir
	// sure: indices into chdirs that the command being walked runs only
	// after; lastSure: those the statement just walked implies when it
	// succeeds.
	sure, lastSure []int
	// scripts holds the nested scripts analysed (sh -c, eval, watch), for
	// the invariant that every Raw comes from the source or one of them.
	scripts []string
}

// Proven reports whether the analysis proved every command that runs.
func (a *Analysis) Proven() bool { return len(a.Unprovable) == 0 }

// Command is one simple command.
type Command struct {
	// Raw is the source text of the command as written, wrappers,
	// assignments and redirections included (for messages). Commands of
	// a nested script (sh -c '...') have the text from that script.
	Raw string
	// Assigns are the leading NAME=value assignments after quote removal,
	// including those made by env and by assignments in front of a
	// wrapper that runs a nested script (FOO=1 sh -c 'ls' gives ls the
	// assignment FOO=1). A non-literal value is kept as written and makes
	// the analysis unprovable.
	Assigns []string
	// Argv is the program and its arguments after quote removal and
	// wrapper stripping. Argv[0] is the program as written (it may be a
	// path such as /usr/bin/rm or ./x). A non-literal argument is kept as
	// its source text and sets Dynamic.
	Argv []string
	// Wrappers names the wrappers stripped, outermost first: "timeout",
	// "env", "sh -c", "eval", ... A policy uses them to refuse prefix
	// rules for exec wrappers such as watch and setsid.
	Wrappers []string
	// Redirects are the command's redirections, including those of
	// enclosing compound commands ({ a; b; } > f gives both a and b the
	// redirection) and of a wrapper that runs a nested script.
	Redirects []Redirect
	// Dynamic is set when some argument is not a literal: it contains a
	// parameter expansion, a glob, a brace expansion or a tilde, or
	// xargs adds arguments read from its input. Argv then holds the
	// source text of that argument.
	Dynamic bool
	// Chdirs are the directory changes that run before this command in
	// the command line, in source order (see Chdir).
	Chdirs []Chdir

	// argDyn marks the Argv entries that are not literals; nil for a
	// Command built by hand, whose arguments then count as dynamic when
	// Dynamic is set.
	argDyn []bool
}

// Name returns the base name of the program, "" when there is none.
func (c Command) Name() string {
	if len(c.Argv) == 0 || c.Argv[0] == "" {
		return ""
	}
	return filepath.Base(c.Argv[0])
}

// Line returns Argv joined by single spaces: the normalized form that
// Bash permission rules are matched against. Claude Code matches rules
// against the command string; matching this form instead means quoting,
// escapes and wrappers cannot hide a command from a rule.
func (c Command) Line() string { return strings.Join(c.Argv, " ") }

// Redirect is one redirection.
type Redirect struct {
	// Op is the operator: ">", ">>", ">|", "&>", "&>>", "<", "<>", "<<",
	// "<<-", "<<<", "<&", ">&".
	Op string
	// FD is the file descriptor redirected: the explicit number, or the
	// default (1 for output operators, 0 for input ones). It is -1 for
	// bash's {varname}> form, which picks a descriptor and assigns it.
	FD int
	// Target is the literal target after quote removal, "" for here-
	// documents and here-strings, "&N" or "&-" for descriptor
	// duplication and closing. A non-literal target is kept as written.
	Target string
	// Write is set when the redirection writes a file: an output
	// redirection whose target is neither /dev/null nor a descriptor.
	// A non-literal target is assumed to be a file.
	Write bool
	// Dynamic is set when the target is not a literal (expansions,
	// globs, or a leading ~, which bash expands).
	Dynamic bool
}

// Analyze parses src as bash and returns every simple command that would
// run. It never panics and never returns nil.
func Analyze(src string) *Analysis {
	a := &Analysis{}
	defer func() {
		// A panic in the parser must not take the server down; what was
		// found so far stays, and the analysis is unprovable.
		if r := recover(); r != nil {
			a.unprovable("%s%v", analysisFailed, r)
		}
	}()
	if len(src) > MaxCommandLen {
		a.unprovable("the command is %d characters long, more than %d", len(src), MaxCommandLen)
	}
	w := &walker{a: a, lang: langBash}
	w.script(src)
	return a
}
