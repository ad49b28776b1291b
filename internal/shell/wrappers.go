package shell

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// What a wrapper does with the words after its name.
type unwrapKind uint8

const (
	// keep: the words are not a wrapped command (command -v x, timeout
	// with no command, xargs with options): the wrapper is the command.
	keep unwrapKind = iota
	// strip: the command starts at next.
	strip
	// script: the words from next are a script for a shell (sh -c,
	// watch, flock -c); join says they are joined with spaces (watch).
	script
	// problem: the words cannot be read (unknown option, non-literal
	// option): the wrapper is the command and the analysis is unprovable.
	problem
	// stdinScript: a shell reads its script from its input; when that is
	// a here-document or here-string, it is analysed as a script.
	stdinScript
)

type unwrap struct {
	kind    unwrapKind
	next    int
	assigns []string // env NAME=value
	dynamic bool     // xargs adds arguments read from its input
	label   string   // the name recorded in Wrappers when not the wrapper's
	lang    lang     // of a script
	join    bool
	problem string
}

// wrapperFunc reads a wrapper's arguments (the words after its name).
type wrapperFunc func(args []word) unwrap

// wrappers are stripped before matching (security.md R6; the list of
// https://code.claude.com/docs/en/permissions "Wrappers", extended with
// env, exec, setsid, ionice, taskset, chrt, flock, watch, sudo, doas and
// busybox so that deny rules see the program they run). Claude Code's zsh
// noglob is not stripped: in bash it is an ordinary program name.
var wrappers map[string]wrapperFunc

// builtinWrappers are shell builtins: only their bare name is the
// builtin (a path names a program).
var builtinWrappers = map[string]bool{"command": true, "builtin": true, "exec": true}

func init() {
	wrappers = map[string]wrapperFunc{
		"timeout": options(optSpec{shortFlags: "v", shortArgs: "sk",
			longFlags: []string{"foreground", "preserve-status", "verbose"},
			longArgs:  []string{"kill-after", "signal"}, operands: 1}, nil),
		"nice":   options(optSpec{shortArgs: "n", longArgs: []string{"adjustment"}, numeric: true}, nil),
		"nohup":  options(optSpec{}, nil),
		"stdbuf": options(optSpec{shortArgs: "ioe", longArgs: []string{"input", "output", "error"}}, nil),
		"time": options(optSpec{shortFlags: "pvq", shortArgs: "f",
			longFlags: []string{"portability", "verbose", "quiet"}, longArgs: []string{"format"}}, nil),
		"command": options(optSpec{shortFlags: "pvV"}, func(o []opt) string {
			if has(o, "-v", "-V") {
				return "keep" // prints how a name resolves; runs nothing
			}
			return ""
		}),
		"builtin": options(optSpec{}, nil),
		"exec":    options(optSpec{shortFlags: "cl", shortArgs: "a"}, nil),
		"setsid":  options(optSpec{shortFlags: "cfw", longFlags: []string{"ctty", "fork", "wait"}}, nil),
		"ionice": options(optSpec{shortFlags: "t", shortArgs: "cnpPu",
			longFlags: []string{"ignore"}, longArgs: []string{"class", "classdata", "pid", "pgid", "uid"}},
			keepIf("-p", "-P", "-u", "--pid", "--pgid", "--uid")),
		"taskset": options(optSpec{shortFlags: "acp", longFlags: []string{"all-tasks", "cpu-list", "pid"}, operands: 1},
			keepIf("-p", "--pid")),
		"chrt": options(optSpec{shortFlags: "abdfiorRevmp", shortArgs: "TPD",
			longFlags: []string{"all-tasks", "batch", "deadline", "fifo", "idle", "other", "rr", "reset-on-fork", "ext", "verbose", "max", "pid"},
			longArgs:  []string{"sched-runtime", "sched-period", "sched-deadline"}, operands: 1},
			keepIf("-m", "-p", "--max", "--pid")),
		"sudo": options(optSpec{shortFlags: "AbEHiklnKPSsVve", shortArgs: "CDghprtTuU",
			longFlags: []string{"askpass", "background", "bell", "preserve-env", "set-home", "login", "remove-timestamp",
				"reset-timestamp", "non-interactive", "preserve-groups", "stdin", "shell", "version", "validate", "edit", "list"},
			longArgs: []string{"close-from", "chdir", "group", "host", "prompt", "role", "type", "command-timeout", "other-user", "user"}},
			func(o []opt) string {
				switch {
				case has(o, "-i", "-s", "--login", "--shell"):
					return "sudo -i and -s run the command through a shell"
				case has(o, "-D", "--chdir"):
					return "sudo -D runs the command in another directory"
				case has(o, "-l", "-v", "-e", "-k", "-K", "-V", "--list", "--validate", "--edit", "--remove-timestamp", "--version"):
					return "keep"
				}
				return ""
			}),
		"doas": options(optSpec{shortFlags: "ns", shortArgs: "uaC"}, func(o []opt) string {
			switch {
			case has(o, "-s"):
				return "doas -s runs a shell"
			case has(o, "-C"):
				return "keep"
			}
			return ""
		}),
		"env":     env,
		"flock":   flock,
		"watch":   watch,
		"xargs":   xargs,
		"busybox": busybox,
	}
	for _, sh := range []string{"sh", "bash", "dash", "ash", "zsh", "ksh", "mksh"} {
		wrappers[sh] = shell(sh)
	}
}

// wrapperName returns the wrapper a literal program name invokes: a bare
// name, or a path in a system directory. A path elsewhere (./timeout) is
// some other program.
func wrapperName(s string) (string, bool) {
	name := s
	if strings.IndexByte(s, '/') >= 0 {
		switch path.Dir(s) {
		case "/bin", "/usr/bin", "/sbin", "/usr/sbin":
			name = path.Base(s)
			if builtinWrappers[name] {
				return "", false
			}
		default:
			return "", false
		}
	}
	_, ok := wrappers[name]
	return name, ok
}

// options builds a wrapper whose command follows its options. judge, if
// set, looks at the options: "keep" means no command follows, another
// non-empty string is a problem.
func options(spec optSpec, judge func([]opt) string) wrapperFunc {
	return func(args []word) unwrap {
		opts, next, prob := spec.parse(args)
		if prob != "" {
			return unwrap{kind: problem, problem: prob}
		}
		if judge != nil {
			switch verdict := judge(opts); verdict {
			case "":
			case "keep":
				return unwrap{kind: keep}
			default:
				return unwrap{kind: problem, problem: verdict}
			}
		}
		if next >= len(args) {
			return unwrap{kind: keep}
		}
		return unwrap{kind: strip, next: next}
	}
}

func keepIf(names ...string) func([]opt) string {
	return func(o []opt) string {
		if has(o, names...) {
			return "keep"
		}
		return ""
	}
}

var envSpec = optSpec{shortFlags: "i0v", shortArgs: "uCS",
	longFlags: []string{"ignore-environment", "null", "debug", "default-signal", "ignore-signal", "block-signal", "list-signal-handling"},
	longArgs:  []string{"unset", "chdir", "split-string"}}

// env [-i] [-u NAME] [NAME=value...] command: the assignments become the
// command's. -S splits a string into words by env's own rules and -C
// changes the directory relative paths resolve in: both are unprovable.
func env(args []word) unwrap {
	start := 0
	if len(args) > 0 && args[0].lit && args[0].s == "-" {
		start = 1 // the obsolete spelling of -i
	}
	opts, next, prob := envSpec.parse(args[start:])
	next += start
	if next < len(args) && args[next].lit && args[next].s == "-" {
		next++ // - after the options means -i too
	}
	switch {
	case prob != "":
		return unwrap{kind: problem, problem: prob}
	case has(opts, "-S", "--split-string"):
		return unwrap{kind: problem, problem: "env -S splits a string into a command by its own rules"}
	case has(opts, "-C", "--chdir"):
		return unwrap{kind: problem, problem: "env -C runs the command in another directory"}
	}
	var assigns []string
	for ; next < len(args); next++ {
		name, _, ok := strings.Cut(args[next].s, "=")
		if !ok || !syntax.ValidName(name) {
			break
		}
		if !args[next].lit {
			return unwrap{kind: problem, problem: "the value assigned to " + name + " is not a literal"}
		}
		assigns = append(assigns, args[next].s)
	}
	if next >= len(args) {
		return unwrap{kind: keep}
	}
	return unwrap{kind: strip, next: next, assigns: assigns}
}

var flockSpec = optSpec{shortFlags: "sexunoF", shortArgs: "wE",
	longFlags: []string{"shared", "exclusive", "unlock", "nonblocking", "nb", "close", "no-fork", "verbose"},
	longArgs:  []string{"timeout", "wait", "conflict-exit-code"}, operands: 1}

// flock [options] file command... | flock [options] file -c script.
func flock(args []word) unwrap {
	_, next, prob := flockSpec.parse(args)
	switch {
	case prob != "":
		return unwrap{kind: problem, problem: prob}
	case next >= len(args):
		return unwrap{kind: keep} // flock fd: locks a descriptor, runs nothing
	case args[next].lit && (args[next].s == "-c" || args[next].s == "--command"):
		if next+1 >= len(args) {
			return unwrap{kind: keep}
		}
		return unwrap{kind: script, next: next + 1, lang: langBash}
	}
	return unwrap{kind: strip, next: next}
}

var watchSpec = optSpec{shortFlags: "bcCdegptxwr", shortArgs: "nq",
	longFlags: []string{"beep", "color", "no-color", "differences", "errexit", "chgexit", "precise", "no-title", "exec", "no-wrap", "no-rerun"},
	longArgs:  []string{"interval", "equexit", "shotsdir"}}

// watch runs its arguments joined with spaces through sh -c, or with
// -x/--exec as a command.
func watch(args []word) unwrap {
	opts, next, prob := watchSpec.parse(args)
	switch {
	case prob != "":
		return unwrap{kind: problem, problem: prob}
	case next >= len(args):
		return unwrap{kind: keep}
	case has(opts, "-x", "--exec"):
		return unwrap{kind: strip, next: next}
	}
	return unwrap{kind: script, next: next, join: true, lang: langBash}
}

// xargs is stripped only without options
// (https://code.claude.com/docs/en/permissions "Wrappers": "xargs -n1
// grep p is matched as an xargs command"). The command it runs gets
// arguments from xargs's input, so it is Dynamic: an input line such as
// --pre=sh becomes an option of the command.
func xargs(args []word) unwrap {
	if len(args) == 0 || !args[0].lit || strings.HasPrefix(args[0].s, "-") {
		return unwrap{kind: keep}
	}
	return unwrap{kind: strip, dynamic: true}
}

// busybox APPLET args runs the applet.
func busybox(args []word) unwrap {
	if len(args) == 0 || !args[0].lit || strings.HasPrefix(args[0].s, "-") {
		return unwrap{kind: keep}
	}
	return unwrap{kind: strip}
}

// shell reads sh/bash/... options: with -c, the first operand is a script
// (analysed as a nested command line, security.md R6); without, the shell
// runs a file or its input and is the command. -i is unprovable: an
// interactive shell expands aliases and reads ~/.bashrc; so are -k (set
// -k: ls LD_PRELOAD=x.so passes the assignment to ls) and -O (shopt). -l
// (login) reads profile files, which are protected paths, and is
// accepted.
func shell(name string) wrapperFunc {
	l := langBash
	switch name {
	case "dash", "ash":
		l = langPOSIX
	case "zsh":
		l = langZsh
	case "ksh", "mksh":
		l = langKorn
	}
	return func(args []word) unwrap {
		hasC := false
		i := 0
	opts:
		for ; i < len(args); i++ {
			a := args[i]
			if !a.lit {
				return unwrap{kind: problem, problem: "the argument " + a.s + " is not a literal"}
			}
			switch {
			case a.s == "--" || a.s == "-":
				i++
				break opts
			case strings.HasPrefix(a.s, "--"):
				switch a.s {
				case "--norc", "--noprofile", "--posix", "--login", "--restricted", "--verbose", "--noediting", "--debugger":
				case "--rcfile", "--init-file":
					i++
				default:
					return unwrap{kind: problem, problem: "unknown option " + a.s}
				}
			case len(a.s) > 1 && (a.s[0] == '-' || a.s[0] == '+'):
				for j := 1; j < len(a.s); j++ {
					switch c := a.s[j]; c {
					case 'c':
						hasC = true
					case 'o':
						i++ // the option name
						if i < len(args) && args[i].s == "keyword" {
							return unwrap{kind: problem, problem: "-o keyword makes assignments anywhere in a command part of its environment"}
						}
					case 'O':
						return unwrap{kind: problem, problem: "-O sets shell options that change parsing and expansion"}
					case 'k':
						return unwrap{kind: problem, problem: "-k makes assignments anywhere in a command part of its environment"}
					case 'i':
						return unwrap{kind: problem, problem: "an interactive shell expands aliases and runs startup files"}
					case 's':
						if !hasC {
							return unwrap{kind: stdinScript, label: name + " -s", lang: l}
						}
					default:
						if !isLetter(c) {
							return unwrap{kind: problem, problem: "unknown option " + a.s}
						}
					}
				}
			default:
				break opts
			}
		}
		switch {
		case !hasC && i >= len(args):
			return unwrap{kind: stdinScript, label: name + " -s", lang: l}
		case !hasC || i >= len(args):
			return unwrap{kind: keep} // runs a script file
		}
		return unwrap{kind: script, next: i, label: name + " -c", lang: l}
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// command unwraps the wrappers at the start of words and records the
// command that remains. stdin is the script a here-document or
// here-string gives the command, if any.
func (w *walker) command(c Command, words []word, stdin *string) {
loop:
	for len(words) > 0 && words[0].lit {
		name, ok := wrapperName(words[0].s)
		if !ok {
			break
		}
		args := words[1:]
		u := wrappers[name](args)
		label := name
		if u.label != "" {
			label = u.label
		}
		switch u.kind {
		case keep:
			break loop
		case stdinScript:
			if stdin == nil {
				break loop // a pipe or a file: not analysed (R6)
			}
			inner := c
			inner.Wrappers = appendClone(c.Wrappers, label)
			if w.nested(*stdin, u.lang, inner) > 0 {
				return
			}
			break loop
		case problem:
			w.a.unprovable("cannot see past %s: %s", name, u.problem)
			break loop
		case strip:
			c.Wrappers = append(c.Wrappers, label)
			c.Assigns = append(c.Assigns, u.assigns...)
			c.Dynamic = c.Dynamic || u.dynamic
			words = args[u.next:]
		case script:
			src, ok := scriptText(args[u.next:], u.join)
			if !ok {
				w.a.unprovable("cannot see past %s: its script is not a literal", name)
				break loop
			}
			inner := c
			inner.Wrappers = appendClone(c.Wrappers, label)
			if w.nested(src, u.lang, inner) > 0 {
				return
			}
			break loop // an empty script: the wrapper is what runs
		}
	}
	w.finish(c, words)
}

// scriptText returns the script word, or all the words joined by spaces.
func scriptText(words []word, join bool) (string, bool) {
	if !join {
		return words[0].s, words[0].lit
	}
	parts := make([]string, len(words))
	for i, wd := range words {
		if !wd.lit {
			return "", false
		}
		parts[i] = wd.s
	}
	return strings.Join(parts, " "), true
}
