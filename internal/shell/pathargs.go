package shell

import (
	"slices"
	"strings"
)

// Access says how a command uses a path it is given.
type Access uint8

const (
	// Read: the command reads the file's content (cat f, grep p f, < f,
	// a script an interpreter runs, cp's sources).
	Read Access = 1 << iota
	// Write: it writes, creates, moves or removes the file (> f, tee f,
	// cp's destination, sed -i's files, rm).
	Write
	// Recursive: when the path is a directory, the command reads what
	// lies below it (grep -r, rg, cp -r, tar c).
	Recursive
	// Names: it uses the path without reading a file's content (ls,
	// stat, cd, find without -exec).
	Names
	// Mention: an argument the table does not place: an operand of a
	// program toold has no entry for, or the value of an option it does
	// not know. It may or may not name a file.
	Mention
	// Inline: a word of a program text given on the command line (sed's
	// script, awk's program, python -c's code), which can open files by
	// name (sed 'r f', awk 'getline < "f"', open("f")).
	Inline
	// Run: the program itself, when named by a path (./run.sh): running
	// a script reads it.
	Run
)

// PathArg is one argument or redirection target that names, or may name,
// a file, with what the command does to it.
type PathArg struct {
	// Path is the path as written after quote removal; for a Dynamic
	// one, its source text. "" with Dynamic set stands for file names
	// the command gets at run time (xargs cat reads the files its input
	// names).
	Path   string
	Access Access
	// Dynamic: bash expands the word (glob, ~, a variable).
	Dynamic bool
	// Redirect: the path is a redirection target.
	Redirect bool
}

// PathArgs lists the paths c reads, writes or names, from its arguments
// and its redirections. It is the one place that knows which argument of
// which command is a file: a table of the commands that read or write
// files (pathargs_table.go) and, for every other program, each argument
// as a Mention. Options the table knows to take a non-path value (head
// -n 5, grep's pattern) are left out.
func (c *Command) PathArgs() []PathArg {
	var out []PathArg
	for _, r := range c.Redirects {
		if p, ok := r.pathArg(); ok {
			out = append(out, p)
		}
	}
	if len(c.Argv) == 0 {
		return out
	}
	args := make([]word, len(c.Argv)-1)
	for i, a := range c.Argv[1:] {
		args[i] = word{s: a, lit: !c.argDynamic(i + 1)}
	}
	name := c.Name()
	spec, ok := fileCommands[name]
	if !ok {
		if spec, ok = interpreter(name); !ok {
			spec = unknownCommand
		}
	}
	if strings.Contains(c.Argv[0], "/") && !c.argDynamic(0) {
		out = append(out, PathArg{Path: c.Argv[0], Access: Run})
	}
	out = append(out, spec.paths(args)...)
	if slices.Contains(c.Wrappers, "xargs") && spec.operand&(Read|Write|Mention) != 0 {
		out = append(out, PathArg{Access: spec.operand&(Read|Write) | Read, Dynamic: true})
	}
	// A word with blanks or shell punctuation is likely a command or
	// program for the program to run (script -c 'cat f', vim '+r f').
	for _, p := range out {
		if !spec.inline && !p.Redirect && p.Access != Inline && strings.ContainsAny(p.Path, " \t\n;|&()<>'\"") {
			out = append(out, inlineTokens(p.Path, p.Dynamic)...)
		}
	}
	return out
}

func (c *Command) argDynamic(i int) bool {
	if c.argDyn == nil {
		return c.Dynamic
	}
	return c.argDyn[i]
}

// pathArg is the file a redirection opens, if it opens one.
func (r Redirect) pathArg() (PathArg, bool) {
	switch {
	case r.Target == "", strings.HasPrefix(r.Target, "&") && !r.Dynamic:
		return PathArg{}, false // here-document, here-string, descriptor
	}
	p := PathArg{Path: r.Target, Dynamic: r.Dynamic, Redirect: true}
	switch r.Op {
	case "<":
		p.Access = Read
	case "<>":
		p.Access = Read | Write
	case "<&":
		return PathArg{}, false
	default:
		if !r.Write && r.Target == "/dev/null" {
			return PathArg{}, false
		}
		p.Access = Write
	}
	return p, true
}

// interpreter reports versioned interpreter names (python3.12, perl5.36,
// node20) that the table lists without the version.
func interpreter(name string) (fileSpec, bool) {
	base := strings.TrimRight(name, "0123456789.-")
	if base == name || base == "" {
		return fileSpec{}, false
	}
	spec, ok := fileCommands[base]
	return spec, ok && spec.first == Read
}

// inlineTokens splits a program text into the words that could be file
// names: runs of characters a path is usually made of. A token is checked
// against deny rules only; a program that builds a name at run time
// ("." "env") is beyond any such check, which is why the sandbox stays.
func inlineTokens(text string, dynamic bool) []PathArg {
	var out []PathArg
	for _, tok := range strings.FieldsFunc(text, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/~+@%,:=", r) || r > 0x7f)
	}) {
		if len(tok) > 4096 || strings.Trim(tok, "._-/~+@%,:=0123456789") == "" && !strings.Contains(tok, ".") {
			continue
		}
		out = append(out, PathArg{Path: tok, Access: Inline})
	}
	return out
}
