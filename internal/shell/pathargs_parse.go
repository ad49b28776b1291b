package shell

import (
	"slices"
	"strings"
)

// fileSpec says which arguments of one program are paths. Options are
// read GNU-style: anywhere before "--", short ones clustered (-rn), a
// value attached or in the next word, long ones abbreviated to any
// unambiguous prefix.
type fileSpec struct {
	operand Access // what each operand is (0: operands are not paths)
	first   Access // when set, what the first operand is (zip's archive, a script)
	last    Access // when set and there are two operands or more, what the last is (cp's destination)
	// skip leading operands are a program or pattern (grep's pattern,
	// sed's script), unless one of script gave it.
	skip   int
	script []string
	// prog options give an interpreter its program inline (python -c):
	// the first operand is then not a script file.
	prog []string
	// values: short letters and long names whose value is not a path.
	values string
	longs  []string
	// files: options whose value is a path, and what is done to it.
	files map[string]Access
	// pairs: options with two values (jq --arg name value); a non-zero
	// Access says the second is a path.
	pairs map[string]Access
	// optional: short letters whose value can only be attached (sed
	// -i.bak); they never take the next word.
	optional string
	recurse  []string // options that make operands Recursive
	always   bool     // operands are always Recursive (rg)
	dirDot   bool     // recursive with no operand reads "."
	inPlace  []string // options that make operands Write too (sed -i)
	target   []string // options naming the destination (cp -t): no operand is then last
	chdir    []string // options whose value is the directory later operands are relative to (tar -C, make -C)
	// fixedFiles: file option values stay relative to the cwd (tar opens
	// its -f archive before any -C).
	fixedFiles bool
	stop       []string // options after which no word is a path (jq --args)
	// atFile: a value of the form @path (or <path after =) is a file
	// read (curl -d @f, -F name=@f).
	atFile bool
	// mentions: every option value the spec does not know is a Mention
	// (the spec of programs toold has no entry for).
	mentions bool
	// code: options whose value is program text (vim -c), split into
	// Inline tokens.
	code []string
	// inline: the skipped operands, the values of script options that
	// are not files, and an interpreter's inline program are program
	// text, split into Inline tokens.
	inline bool
	// special parses programs whose grammar is not option/operand
	// (find, dd, tar's bundled letters, git's subcommands).
	special func(args []word) []PathArg
}

// unknownCommand is the spec of every program not in the table: each
// operand and option value may be a file.
var unknownCommand = fileSpec{operand: Mention, mentions: true}

// parseState is what the options of one command line said.
type parseState struct {
	out                                                []PathArg
	operands                                           []PathArg
	scripted, programmed, recursive, inPlace, targeted bool
	// dir is the directory later relative operands are in (tar -C);
	// dirDyn: it is computed at run time, and so are they.
	dir    string
	dirDyn bool
	// programs are the program texts seen (sed -e's values).
	programs []word
}

// path is the PathArg of word a, relative to the -C directory if any.
func (st *parseState) path(a word, acc Access) PathArg {
	return PathArg{Path: joinDir(st.dir, a), Access: acc, Dynamic: !a.lit || st.dirDyn && !strings.HasPrefix(a.s, "/")}
}

func (s *fileSpec) paths(args []word) []PathArg {
	if s.special != nil {
		return s.special(args)
	}
	st := &parseState{}
	s.parse(st, args)
	ops := st.operands
	if s.skip > 0 && !st.scripted {
		st.programs = append(st.programs, wordsOf(ops[:min(s.skip, len(ops))])...)
		ops = ops[min(s.skip, len(ops)):]
	}
	if s.first != 0 && st.programmed && len(ops) > 0 {
		st.programs = append(st.programs, wordsOf(ops[:1])...)
	}
	if s.inline {
		for _, p := range st.programs {
			st.out = append(st.out, inlineTokens(p.s, !p.lit)...)
		}
	}
	recursive := s.always || st.recursive
	if len(ops) == 0 && recursive && s.dirDot {
		ops = []PathArg{{Path: "."}}
	}
	for i := range ops {
		acc := s.operand
		switch {
		case i == 0 && s.first != 0 && !st.programmed:
			acc = s.first
		case i == 0 && s.first != 0:
			acc = Mention
		case i == len(ops)-1 && i > 0 && s.last != 0 && !st.targeted:
			acc = s.last
		}
		if acc == 0 {
			continue
		}
		if recursive && acc&Read != 0 {
			acc |= Recursive
		}
		if st.inPlace && acc&Read != 0 {
			acc |= Write
		}
		ops[i].Access = acc
		st.out = append(st.out, ops[i])
	}
	return st.out
}

func (s *fileSpec) parse(st *parseState, args []word) {
	endOpts := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if endOpts || !a.lit || len(a.s) < 2 || a.s[0] != '-' {
			if a.lit && a.s == "-" {
				continue // standard input
			}
			st.operands = append(st.operands, st.path(a, 0))
			continue
		}
		if a.s == "--" {
			endOpts = true
			continue
		}
		var stop bool
		if a.s[1] == '-' {
			i, stop = s.longOpt(st, args, i)
		} else {
			i, stop = s.shortOpts(st, args, i)
		}
		if stop {
			return
		}
	}
}

// longOpt reads --name[=value] at args[i] and returns the index of the
// last word it used.
func (s *fileSpec) longOpt(st *parseState, args []word, i int) (int, bool) {
	n, v, has := strings.Cut(args[i].s[2:], "=")
	name := s.longName(n)
	if name == "" {
		if has {
			st.out = append(st.out, PathArg{Path: v, Access: Mention})
		}
		return i, false
	}
	val := word{s: v, lit: true}
	if _, ok := s.pairs[name]; ok {
		if i+2 < len(args) {
			if acc := s.pairs[name]; acc != 0 {
				st.out = append(st.out, st.path(args[i+2], acc))
			}
			return i + 2, false
		}
		return len(args), false
	}
	if !has && s.takesValue(name) && i+1 < len(args) {
		i++
		val, has = args[i], true
	}
	return i, s.option(st, name, val, has)
}

// shortOpts reads a cluster of short options at args[i].
func (s *fileSpec) shortOpts(st *parseState, args []word, i int) (int, bool) {
	a := args[i].s
	for j := 1; j < len(a); j++ {
		name := "-" + a[j:j+1]
		switch {
		case strings.IndexByte(s.optional, a[j]) >= 0:
			return i, s.option(st, name, word{s: a[j+1:], lit: true}, j+1 < len(a))
		case s.takesValue(name):
			val := word{s: a[j+1:], lit: true}
			if val.s == "" && i+1 < len(args) {
				i++
				val = args[i]
			}
			return i, s.option(st, name, val, true)
		case s.mentions && j == 1 && len(a) > 2:
			// An unknown program's -fFILE: the rest may be a value.
			st.out = append(st.out, PathArg{Path: a[2:], Access: Mention})
		}
		if s.option(st, name, word{}, false) {
			return i, true
		}
	}
	return i, false
}

// option applies one option; it reports whether the rest of the words
// are not paths.
func (s *fileSpec) option(st *parseState, name string, val word, has bool) bool {
	switch {
	case slices.Contains(s.script, name):
		st.scripted = true
		if _, file := s.files[name]; !file && has {
			st.programs = append(st.programs, val)
		}
	case slices.Contains(s.prog, name):
		st.programmed = true
		if has {
			st.programs = append(st.programs, val)
		}
	}
	if slices.Contains(s.code, name) && has {
		st.out = append(st.out, inlineTokens(val.s, !val.lit)...)
	}
	if slices.Contains(s.recurse, name) {
		st.recursive = true
	}
	if slices.Contains(s.inPlace, name) {
		st.inPlace = true
	}
	if slices.Contains(s.target, name) {
		st.targeted = true
	}
	if acc, ok := s.files[name]; ok && has && !(val.lit && val.s == "-") {
		if s.fixedFiles {
			st.out = append(st.out, PathArg{Path: val.s, Access: acc, Dynamic: !val.lit})
		} else {
			st.out = append(st.out, st.path(val, acc))
		}
	}
	if slices.Contains(s.chdir, name) && has {
		p := st.path(val, Names)
		st.out = append(st.out, p)
		st.dir, st.dirDyn = p.Path, p.Dynamic
	}
	if has && s.atFile {
		if f, ok := atFileOf(val.s); ok {
			st.out = append(st.out, st.path(word{s: f, lit: val.lit}, Read))
			return slices.Contains(s.stop, name)
		}
	}
	if has && s.mentions && val.s != "" {
		if _, known := s.files[name]; !known {
			st.out = append(st.out, PathArg{Path: val.s, Access: Mention, Dynamic: !val.lit})
		}
	}
	return slices.Contains(s.stop, name)
}

// atFileOf finds curl's @file and name=@file, name=<file forms.
func atFileOf(v string) (string, bool) {
	if f, ok := strings.CutPrefix(v, "@"); ok && f != "" && f != "-" {
		return f, true
	}
	if _, rest, ok := strings.Cut(v, "="); ok {
		for _, p := range []string{"@", "<"} {
			if f, ok := strings.CutPrefix(rest, p); ok && f != "" && f != "-" {
				f, _, _ = strings.Cut(f, ";")
				return f, true
			}
		}
	}
	return "", false
}

func (s *fileSpec) takesValue(name string) bool {
	if len(name) == 2 {
		if strings.IndexByte(s.values, name[1]) >= 0 {
			return true
		}
	} else if slices.Contains(s.longs, name[2:]) {
		return true
	}
	_, ok := s.files[name]
	return ok || slices.Contains(s.chdir, name) || slices.Contains(s.code, name)
}

// longName returns the full --name that n abbreviates, "" when it names
// no option of the spec. An abbreviation of several is taken as the one
// that reads or writes a file, the safer reading.
func (s *fileSpec) longName(n string) string {
	if n == "" {
		return ""
	}
	var found string
	consider := func(full string) bool {
		if !strings.HasPrefix(full, "--") || !strings.HasPrefix(full[2:], n) {
			return false
		}
		if full[2:] == n {
			found = full
			return true
		}
		if found == "" {
			found = full
		}
		return false
	}
	for name := range s.files {
		if consider(name) {
			return found
		}
	}
	if found != "" {
		return found // a file option wins an ambiguous prefix
	}
	lists := [][]string{s.script, s.prog, s.recurse, s.inPlace, s.target, s.chdir, s.stop}
	for _, l := range lists {
		for _, name := range l {
			if consider(name) {
				return found
			}
		}
	}
	for name := range s.pairs {
		if consider(name) {
			return found
		}
	}
	for _, l := range s.longs {
		if consider("--" + l) {
			return found
		}
	}
	return found
}

// joinDir puts a relative literal path under dir (tar -C dir f is dir/f).
func joinDir(dir string, a word) string {
	if dir == "" || !a.lit || strings.HasPrefix(a.s, "/") || strings.HasPrefix(a.s, "~") {
		return a.s
	}
	return strings.TrimSuffix(dir, "/") + "/" + a.s
}

func wordsOf(ps []PathArg) []word {
	out := make([]word, len(ps))
	for i, p := range ps {
		out[i] = word{s: p.Path, lit: !p.Dynamic}
	}
	return out
}
