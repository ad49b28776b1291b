package shell

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// finish fills Argv from words, checks the program name and the builtins
// that run code or evaluate arithmetic, and records the command.
func (w *walker) finish(c Command, words []word) {
	c.Argv = make([]string, len(words))
	c.argDyn = make([]bool, len(words))
	for i, wd := range words {
		c.Argv[i] = wd.s
		if !wd.lit {
			c.Dynamic = true
			c.argDyn[i] = true
		}
	}
	if len(words) > 0 {
		w.checkName(words[0])
	}
	if w.lang == langZsh && c.Dynamic {
		w.a.unprovable("zsh expansions (glob qualifiers, parameter flags) can run code; only literal zsh scripts are analysed")
	}
	w.record(c)
	w.chdir(&c, words)
	if len(words) > 0 && words[0].lit {
		w.builtin(c, words)
	}
}

// checkName requires a plain program name (security.md R7, R10): a
// literal after quote removal, not empty, printable ASCII only (bash does
// not treat a full-width or NBSP-joined name as the ASCII one, so a
// planted program of that name would run).
func (w *walker) checkName(name word) {
	switch {
	case !name.lit:
		w.a.unprovable("the program name %s is not a literal (expansion, glob or brace expansion)", name.s)
	case name.s == "":
		w.a.unprovable("the program name is empty")
	default:
		for i := 0; i < len(name.s); i++ {
			if name.s[i] <= 0x20 || name.s[i] >= 0x7f {
				w.a.unprovable("the program name %q has a character other than printable ASCII", name.s)
				return
			}
		}
	}
}

// codeBuiltins run code the analysis cannot see, or change how later
// commands are parsed or found (security.md R2).
var codeBuiltins = map[string]string{
	"eval":     "eval runs its arguments as shell code",
	"source":   "source runs the commands in a file",
	".":        ". runs the commands in a file",
	"alias":    "alias changes what later command names run",
	"trap":     "trap runs code on a signal or at exit",
	"enable":   "enable loads or disables builtins",
	"shopt":    "shopt changes how bash parses and expands",
	"fc":       "fc runs commands from the history",
	"declare":  "declare can evaluate array subscripts and give variables attributes that evaluate later assignments as arithmetic",
	"typeset":  "typeset can evaluate array subscripts and give variables attributes that evaluate later assignments as arithmetic",
	"local":    "local can evaluate array subscripts and give variables attributes that evaluate later assignments as arithmetic",
	"nameref":  "nameref makes a variable name another, which can hold a subscript",
	"let":      "let evaluates arithmetic, which can run commands through variable values",
	"emulate":  "emulate -c runs code",
	"sched":    "sched runs code later",
	"zmodload": "zmodload loads modules",
	"autoload": "autoload defines functions from files",
}

// builtin checks the builtins that the analysis must look into. It looks
// at the bare name only: /usr/bin/eval is not the builtin.
func (w *walker) builtin(c Command, words []word) {
	name, args := words[0].s, words[1:]
	if why, ok := codeBuiltins[name]; ok {
		w.a.unprovable("%s", why)
		if name == "eval" && len(args) > 0 {
			if src, ok := scriptText(args, true); ok {
				w.nested(src, langBash, Command{Assigns: c.Assigns, Redirects: c.Redirects, Wrappers: appendClone(c.Wrappers, "eval")})
			}
		}
		return
	}
	switch name {
	case "export", "readonly":
		w.assignArgs(name, args)
	case "read":
		w.nameArgs(name, args, "dinNptu", "a")
	case "mapfile", "readarray":
		for _, a := range args {
			if a.lit && strings.HasPrefix(a.s, "-") && strings.ContainsAny(a.s, "C") {
				w.a.unprovable("%s -C runs a callback", name)
			}
		}
		w.nameArgs(name, args, "dnOsucC", "")
	case "printf":
		w.optionInjection(name, args[:min(len(args), 2)], "-v")
		w.optName(name, args, 'v')
	case "wait":
		w.optionInjection(name, args, "-p")
		w.optName(name, args, 'p')
	case "set":
		for i, a := range args {
			if a.lit && a.s == "--" {
				break
			}
			if !a.lit || (len(a.s) > 1 && a.s[0] == '-' && a.s[1] != '-' && strings.IndexByte(a.s, 'k') >= 0) ||
				(a.s == "-o" && i+1 < len(args) && args[i+1].s == "keyword") {
				w.a.unprovable("set -k makes assignments anywhere in a command (ls LD_PRELOAD=x) part of its environment")
				break
			}
		}
	case "unset":
		for _, a := range args {
			if !a.lit || strings.IndexByte(a.s, '[') >= 0 {
				w.a.unprovable("unset of an array element evaluates its subscript as arithmetic")
			}
		}
	case "test", "[":
		w.optionInjection(name, args, "-v", "-R")
	case "compgen", "complete":
		for _, a := range args {
			if a.lit && strings.HasPrefix(a.s, "-") && strings.ContainsAny(a.s, "CF") {
				w.a.unprovable("%s -C and -F run a command or function", name)
			}
		}
	case "hash":
		for _, a := range args {
			if a.lit && strings.HasPrefix(a.s, "-") && strings.IndexByte(a.s, 'p') >= 0 {
				w.a.unprovable("hash -p changes which program a name runs")
			}
		}
	}
}

// optionInjection refuses arguments that are, or may expand to, an
// option naming a variable (test -v, printf -v, wait -p) followed by a
// name that is not a literal identifier: test "$a" "$b" with a=-v and
// b='x[$(cmd)]' runs cmd. A word that may split into several is refused
// outright.
func (w *walker) optionInjection(builtin string, args []word, opts ...string) {
	for i, a := range args {
		if !a.lit && a.splits {
			w.a.unprovable("%s with an unquoted expansion, which may become an option such as -v", builtin)
			return
		}
		if i+1 == len(args) || (a.lit && !slices.Contains(opts, a.s)) {
			continue
		}
		if next := args[i+1]; !next.lit || strings.IndexByte(next.s, '[') >= 0 {
			w.a.unprovable("%s %s %s: an option such as -v with a name whose subscript is evaluated as arithmetic", builtin, a.s, next.s)
			return
		}
	}
}

// assignArgs checks the NAME[=value] arguments of export and readonly.
func (w *walker) assignArgs(builtin string, args []word) {
	for _, a := range args {
		if a.lit && strings.HasPrefix(a.s, "-") {
			continue
		}
		name, _, _ := strings.Cut(a.s, "=")
		if !syntax.ValidName(name) {
			// "$x" may expand to a[$(cmd)]=1.
			w.a.unprovable("%s of a name that is not a literal identifier: %s", builtin, a.s)
			continue
		}
		w.shellAssign(name, a.s)
	}
}

// nameArgs checks the variable names read and mapfile assign: options in
// valueOpts take a value, those in nameOpts take a variable name.
func (w *walker) nameArgs(builtin string, args []word, valueOpts, nameOpts string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.lit && len(a.s) > 1 && a.s[0] == '-' {
			if a.s == "--" {
				continue
			}
			for j := 1; j < len(a.s); j++ {
				c := a.s[j]
				if strings.IndexByte(valueOpts+nameOpts, c) < 0 {
					continue
				}
				if j+1 == len(a.s) {
					i++
				}
				if strings.IndexByte(nameOpts, c) >= 0 {
					if j+1 < len(a.s) {
						w.varName(builtin, word{s: a.s[j+1:], lit: true})
					} else if i < len(args) {
						w.varName(builtin, args[i])
					}
				}
				break
			}
			continue
		}
		w.varName(builtin, a)
	}
}

// optName checks the variable named by printf -v and wait -p.
func (w *walker) optName(builtin string, args []word, letter byte) {
	for i, a := range args {
		if !a.lit || len(a.s) < 2 || a.s[0] != '-' || a.s[1] == '-' {
			return // options end at the first operand
		}
		if a.s[1] == letter {
			if len(a.s) > 2 {
				w.varName(builtin, word{s: a.s[2:], lit: true})
			} else if i+1 < len(args) {
				w.varName(builtin, args[i+1])
			}
			return
		}
	}
}

// varName checks a variable name a builtin assigns: a subscript in it is
// evaluated as arithmetic, and runs command substitutions even when the
// name was single-quoted (printf -v 'x[$(cmd)]', read 'a[$(cmd)]';
// verified on bash 5.2, security.md R3).
func (w *walker) varName(builtin string, name word) {
	if !name.lit || !syntax.ValidName(name.s) {
		w.a.unprovable("%s assigns to %s, which is not a plain variable name (a subscript is evaluated as arithmetic)", builtin, name.s)
		return
	}
	w.shellAssign(name.s, name.s)
}
