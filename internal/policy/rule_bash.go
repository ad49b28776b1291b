package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/toold/toold/internal/shell"
)

// argSep stands for the boundary between two arguments in the line allow
// rules are matched against. bash cannot put a NUL inside an argument, so a
// space in an allow pattern can only meet a real argument boundary: rule
// "git status" does not match the single-word program "git status", and
// rule "rm -rf build" does not match rm "-rf build".
const argSep = "\x00"

// bashPattern is a compiled Bash(command pattern)
// (https://code.claude.com/docs/en/permissions "Bash", "Wildcard patterns").
type bashPattern struct {
	// exact: the pattern has no wildcard; exactText is it unescaped, for
	// comparison with the command as written.
	exact     bool
	exactText string
	// spaced is matched against Command.Line() (deny and ask); sep against
	// the arguments joined by argSep (allow).
	spaced, sep linePattern
	// baseAlt (deny and ask) is spaced with a path-qualified first word
	// reduced to its base name, so Bash(/bin/rm *) also stops rm.
	baseAlt *linePattern
	// words are the pattern's words that hold no wildcard: what the rule
	// spells, for the dual-use check.
	words map[string]bool
	// firstWordLiteral: the program is spelled in full, so the rule may
	// match a path-qualified program (it spells the path). firstWord is
	// then its base name, unescaped.
	firstWordLiteral bool
	firstWord        string
	// assigns are an allow rule's leading NAME=value words: the command
	// must carry exactly these assignments (Bash(GOFLAGS=-count=1 go test *)
	// matches GOFLAGS=-count=1 go test ./..., not go test ./...).
	assigns []string
}

// linePattern is a '*' pattern split for wildMatch. A pattern that ended in
// " *" (or ":*") also matches its head alone: that is the word boundary of
// https://code.claude.com/docs/en/permissions#wildcard-patterns.
type linePattern struct {
	parts []string
	head  []string // non-nil: the head before the trailing " *"
}

func (p *linePattern) match(s string) bool {
	return wildMatch(p.parts, s) || (p.head != nil && wildMatch(p.head, s))
}

// parseBashRule compiles Bash(spec). key/value/isParam say whether spec is
// param:value with param a Bash input field.
//
// The text "Bash(timeout:*)" is both the parameter rule "timeout set to
// anything" and the legacy prefix rule "timeout *". Where the docs are
// silent: in deny and ask lists it is both (a call matching either is
// stopped); in allow lists, where parameter rules do not exist, it is the
// prefix rule.
func parseBashRule(r *Rule, spec, key, value string, isParam bool) (*Rule, error) {
	fail := func(format string, args ...any) (*Rule, error) {
		return nil, &RuleError{Rule: r.Text, Behavior: r.Behavior, Source: r.Source, Index: -1, Reason: fmt.Sprintf(format, args...)}
	}
	legacy := spec == key+":*"
	if isParam && key == "command" {
		return fail("command is the primary field of Bash and cannot be matched by a parameter rule: write Bash(%s) instead", value)
	}
	if isParam && !(r.Behavior == Allow && legacy) {
		if r.Behavior == Allow {
			return parseParamRule(r, key, value) // refuses, with the reason
		}
		r.kind = kindParam
		r.param = compileParam(key, value)
		if legacy {
			p, msg := compileBash(spec, r.Behavior)
			if msg != "" {
				return fail("%s", msg)
			}
			r.bash = p
		}
		return r, nil
	}
	p, msg := compileBash(spec, r.Behavior)
	if msg != "" {
		return fail("%s", msg)
	}
	r.kind, r.bash = kindBash, p
	return r, nil
}

// compileBash compiles a command pattern: '*' matches any run of
// characters including spaces; a trailing " *" needs a word boundary; a
// trailing ":*" is the legacy spelling of " *" (only at the very end);
// "\*" is a literal star; runs of spaces count as one, as in Line().
func compileBash(spec string, b Behavior) (*bashPattern, string) {
	if strings.TrimSpace(spec) != spec {
		return nil, "command pattern has leading or trailing whitespace"
	}
	pat := collapseSpaces(spec)
	if strings.HasSuffix(pat, ":*") {
		pat = pat[:len(pat)-2] + " *"
	}
	head, tail := pat, false
	if strings.HasSuffix(pat, " *") {
		head, tail = strings.TrimRight(pat[:len(pat)-2], " "), true
	}
	if head == "" || head == "*" && tail {
		return nil, "empty command pattern: write Bash for every command"
	}
	p := &bashPattern{words: map[string]bool{}}
	if b == Allow {
		// Leading assignments of an allow rule must be spelled by the
		// command verbatim (security.md §1 #10): they are kept apart and
		// the rest is the pattern.
		ws := strings.Split(head, " ")
		n := 0
		for n < len(ws) && isAssignWord(ws[n]) {
			if strings.Contains(ws[n], "*") {
				return nil, "an allow rule's environment assignment must be literal: " + ws[n]
			}
			n++
		}
		if n == len(ws) {
			return nil, "the command pattern has only environment assignments"
		}
		if n > 0 {
			p.assigns = ws[:n]
			head = strings.Join(ws[n:], " ")
		}
	}
	words := strings.Split(head, " ")
	for _, w := range words {
		if parts := splitStars(w); len(parts) == 1 {
			p.words[parts[0]] = true
		}
	}
	if fw := splitStars(words[0]); len(fw) == 1 {
		p.firstWordLiteral = true
		p.firstWord = fw[0][strings.LastIndexByte(fw[0], '/')+1:]
	}
	p.exact = !tail && len(splitStars(head)) == 1
	if p.exact {
		p.exactText = splitStars(spec)[0] // as written: spacing inside quotes matters
	}
	p.spaced = newLinePattern(head, tail, " ")
	p.sep = newLinePattern(head, tail, argSep)
	if p.firstWordLiteral && strings.Contains(words[0], "/") {
		words[0] = words[0][strings.LastIndexByte(words[0], '/')+1:]
		if words[0] != "" {
			alt := newLinePattern(strings.Join(words, " "), tail, " ")
			p.baseAlt = &alt
		}
	}
	return p, ""
}

func newLinePattern(head string, tail bool, sep string) linePattern {
	h := head
	if sep != " " {
		h = strings.ReplaceAll(head, " ", sep)
	}
	if !tail {
		return linePattern{parts: splitStars(h)}
	}
	return linePattern{parts: splitStars(h + sep + "*"), head: splitStars(h)}
}

func collapseSpaces(s string) string {
	if !strings.Contains(s, "  ") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' && i > 0 && s[i-1] == ' ' {
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// isAssignWord reports whether w reads as NAME=value or NAME+=value.
func isAssignWord(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	name := strings.TrimSuffix(w[:eq], "+")
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return name != ""
}

// cmdText holds the texts of one command that the rules of one lookup
// match against, each built on first use.
type cmdText struct {
	c                                     *shell.Command
	line, sep, raw                        string
	extra                                 []string
	haveLine, haveSep, haveRaw, haveExtra bool
}

// Extra is extraDenyLines of the command.
func (t *cmdText) Extra() []string {
	if !t.haveExtra {
		t.extra, t.haveExtra = extraDenyLines(t.c), true
	}
	return t.extra
}

// Line is Command.Line(): the arguments joined by spaces.
func (t *cmdText) Line() string {
	if !t.haveLine {
		t.line, t.haveLine = t.c.Line(), true
	}
	return t.line
}

// Sep is the arguments joined by argSep.
func (t *cmdText) Sep() string {
	if !t.haveSep {
		t.sep, t.haveSep = strings.Join(t.c.Argv, argSep), true
	}
	return t.sep
}

// Raw is the command as written, trimmed, runs of spaces collapsed.
func (t *cmdText) Raw() string {
	if !t.haveRaw {
		t.raw, t.haveRaw = collapseSpaces(strings.TrimSpace(t.c.Raw)), true
	}
	return t.raw
}

// matchCommand matches one simple command for a rule of behavior b.
func (p *bashPattern) matchCommand(t *cmdText, b Behavior, script string) bool {
	if b == Allow {
		return p.matchAllow(t, script)
	}
	return p.matchDenyAsk(t)
}

// matchDenyAsk matches the command as bash will run it and in every
// spelling that could have hidden it: past any leading assignment (the
// docs: a deny matches past any assignment), with a path-qualified program
// reduced to its base name (security.md §2 first row), with the stripped
// wrappers named in front (so Bash(watch *) stops watch ls), with the
// assignments in front (so Bash(LD_PRELOAD=*) works), and as written.
func (p *bashPattern) matchDenyAsk(t *cmdText) bool {
	c := t.c
	if len(c.Argv) > 0 {
		line := t.Line()
		if p.spaced.match(line) || (p.baseAlt != nil && p.baseAlt.match(line)) {
			return true
		}
		if strings.Contains(c.Argv[0], "/") {
			base := c.Name() + line[len(c.Argv[0]):]
			if p.spaced.match(base) || (p.baseAlt != nil && p.baseAlt.match(base)) {
				return true
			}
		}
		if len(c.Wrappers) > 0 && p.spaced.match(strings.Join(c.Wrappers, " ")+" "+line) {
			return true
		}
		if len(c.Assigns) > 0 && p.spaced.match(strings.Join(c.Assigns, " ")+" "+line) {
			return true
		}
		for _, l := range t.Extra() {
			if p.spaced.match(l) || (p.baseAlt != nil && p.baseAlt.match(l)) {
				return true
			}
		}
		if c.Dynamic && p.globProgram(c.Argv) {
			return true
		}
	}
	raw := t.Raw()
	return raw != "" && p.spaced.match(raw)
}

// globProgram matches a command whose program is a glob bash expands to
// the rule's program (/usr/bin/cur? runs curl: security.md §4 R7): the
// rule's program must match the glob, and the rest of the line the rule.
func (p *bashPattern) globProgram(argv []string) bool {
	prog := argv[0][strings.LastIndexByte(argv[0], '/')+1:]
	if !p.firstWordLiteral || p.firstWord == "" || !strings.ContainsAny(prog, "*?[") {
		return false
	}
	if ok, err := path.Match(prog, p.firstWord); err != nil || !ok {
		return false
	}
	line := p.firstWord
	if len(argv) > 1 {
		line += " " + strings.Join(argv[1:], " ")
	}
	return p.spaced.match(line) || (p.baseAlt != nil && p.baseAlt.match(line))
}

// extraDenyLines are further spellings of a command under which deny and
// ask rules must still see the program it runs (security.md §10 P2):
//   - git without its global options, so Bash(git push *) stops
//     git -C /repo push (security.md §1 #8);
//   - the command xargs runs, past xargs's options, and the commands of
//     find -exec/-execdir/-ok/-okdir (R6);
//   - for a command the analyser kept as source text: ${IFS} and $IFS as
//     spaces, and a brace-expanded program expanded (R7: both verified to
//     run the program).
//
// Each line with a path-qualified program comes with its base-name form.
func extraDenyLines(c *shell.Command) []string {
	var out []string
	add := func(argv []string) {
		if len(argv) == 0 || argv[0] == "" {
			return
		}
		out = append(out, strings.Join(argv, " "))
		if i := strings.LastIndexByte(argv[0], '/'); i >= 0 && i+1 < len(argv[0]) {
			out = append(out, argv[0][i+1:]+" "+strings.Join(argv[1:], " "))
		}
	}
	argv := c.Argv
	switch c.Name() {
	case "git":
		if i := gitSubcommand(argv[1:]); i > 0 {
			add(append([]string{argv[0]}, argv[1+i:]...))
		}
	case "xargs":
		add(xargsCommand(argv[1:]))
	case "find":
		for i := 1; i < len(argv); i++ {
			switch argv[i] {
			case "-exec", "-execdir", "-ok", "-okdir":
				j := i + 1
				for j < len(argv) && argv[j] != ";" && argv[j] != "+" {
					j++
				}
				add(argv[i+1 : j])
				i = j
			}
		}
	}
	if c.Dynamic {
		line := c.Line()
		if strings.Contains(line, "$IFS") || strings.Contains(line, "${IFS}") {
			fields := strings.Fields(strings.NewReplacer("${IFS}", " ", "$IFS", " ").Replace(line))
			add(fields)
		}
		if a0 := argv[0]; len(a0) > 2 && a0[0] == '{' && a0[len(a0)-1] == '}' && strings.Contains(a0, ",") &&
			!strings.ContainsAny(a0[1:len(a0)-1], "{}") {
			add(append(strings.Split(a0[1:len(a0)-1], ","), argv[1:]...))
		}
	}
	return out
}

// gitSubcommand returns the index in args (git's arguments) of the
// subcommand, past the global options and their values; 0 when there are
// no global options, -1 when there is no subcommand.
func gitSubcommand(args []string) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "" || a[0] != '-' {
			return i
		}
		switch a {
		case "-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--list-cmds":
			i++
		}
	}
	return -1
}

// xargsCommand returns the command xargs runs: its arguments past xargs's
// own options (GNU and BSD spellings).
func xargsCommand(args []string) []string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return args[i+1:]
		case a == "" || a[0] != '-' || a == "-":
			return args[i:]
		case strings.HasPrefix(a, "--"):
			switch a {
			case "--arg-file", "--delimiter", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var", "--eof", "--replace":
				i++
			}
		default:
			for j := 1; j < len(a); j++ {
				if strings.IndexByte("adEILnPsJRS", a[j]) >= 0 {
					if j == len(a)-1 {
						i++
					}
					break
				}
				if strings.IndexByte("eil", a[j]) >= 0 {
					break // optional value, attached
				}
			}
		}
	}
	return nil
}

// matchAllow matches the command for an allow rule. Beyond the pattern,
// an allow never covers (security.md §4, §10 P1):
//   - a command the analyser could not see whole (Dynamic), or one that
//     writes a file by redirection (R4, §1 #5): the engine checks the
//     redirect targets as Edit writes too, but the allow does not vouch for
//     them. The docs' bare-xargs stripping is lost with this: xargs adds
//     arguments the analyser cannot see, so it is Dynamic;
//   - an assignment of a variable outside the known-safe list, or of a
//     value outside plain characters (R5, §1 #10);
//   - a path-qualified program, unless the rule spells it in full (R7);
//   - a command run through an exec wrapper (watch, setsid, ionice, flock,
//     env, sh -c, eval, ...: anything but the docs' stripped timeout, time,
//     nice, nohup, stdbuf, command, builtin, noglob), unless the rule is
//     exact and equal to the whole command of the call, script
//     (https://code.claude.com/docs/en/permissions "Wrappers");
//   - an exec-wrapper program itself or find -exec/-delete (and relatives),
//     unless the rule is exact;
//   - any other dual-use flag or program text the rule does not spell as
//     one of its words (R9).
func (p *bashPattern) matchAllow(t *cmdText, script string) bool {
	c := t.c
	if bashAllowBlocked(c) || len(c.Argv) == 0 {
		return false
	}
	if p.assigns != nil {
		if !slices.Equal(c.Assigns, p.assigns) {
			return false
		}
	} else if !assignsSafe(c.Assigns) {
		return false
	}
	for _, w := range c.Wrappers {
		if !claudeStripped[firstWord(w)] {
			return p.exact && p.exactText == strings.TrimSpace(script)
		}
	}
	if strings.Contains(c.Argv[0], "/") && !p.firstWordLiteral {
		return false
	}
	if p.exact {
		// The exact text may spell the command as written (with quotes),
		// or as bash will run it.
		return p.exactText == strings.TrimSpace(c.Raw) || p.sep.match(t.Sep())
	}
	if !p.sep.match(t.Sep()) {
		return false
	}
	d := dualUse(c.Name(), c.Argv)
	if d.exactOnly {
		return false
	}
	for _, t := range d.tokens {
		if !p.words[t] {
			return false
		}
	}
	return true
}

// bashAllowBlocked reports what no allow rule covers, tool-level Bash
// included: a command the analyser could not see whole, or one that writes
// a file by redirection.
func bashAllowBlocked(c *shell.Command) bool {
	if c.Dynamic {
		return true
	}
	for _, r := range c.Redirects {
		if r.Write || (r.Dynamic && r.Op != "<" && r.Op != "<<" && r.Op != "<<-" && r.Op != "<<<") {
			return true
		}
	}
	return false
}

// claudeStripped are the wrappers Claude Code strips before matching
// (https://code.claude.com/docs/en/permissions "Wrappers"): a command behind
// them is matched as itself. Every other wrapper the analyser strips runs
// its program in a way a prefix rule never approves.
var claudeStripped = map[string]bool{
	"timeout": true, "time": true, "nice": true, "nohup": true, "stdbuf": true,
	"command": true, "builtin": true, "noglob": true,
}

func firstWord(s string) string {
	if i := strings.IndexByte(s, ' '); i >= 0 {
		return s[:i]
	}
	return s
}

// safeEnvList, safeEnvName and assignsSafe: see shell.SafeEnvNames.
var safeEnvList = shell.SafeEnvNames

func safeEnvName(name string) bool { return shell.SafeEnvName(name) }

func assignsSafe(assigns []string) bool { return shell.SafeAssigns(assigns) }

// dualUseResult is what a wildcard allow rule must spell to cover a
// command: tokens are arguments that write files, run programs or carry
// program text, each covered only when it is one of the rule's words;
// exactOnly says nothing but an exact rule covers the command at all.
type dualUseResult struct {
	tokens    []string
	exactOnly bool
}

// execWrapperPrograms run another program (or a shell script) given as
// their arguments. As programs in their own right they are covered only by
// exact rules: Bash(env *) or Bash(sudo *) would approve everything
// (security.md §1 #7; https://code.claude.com/docs/en/permissions
// "Wrappers": watch, setsid, ionice, flock). The analyser normally strips
// them and reports them in Command.Wrappers; this covers the forms it
// leaves in place.
var execWrapperPrograms = map[string]bool{
	"watch": true, "setsid": true, "ionice": true, "flock": true, "env": true, "exec": true, "xargs": true,
	"nohup": true, "timeout": true, "nice": true, "stdbuf": true, "time": true, "builtin": true, "noglob": true,
	"taskset": true, "chrt": true, "sudo": true, "doas": true, "su": true, "runuser": true, "chroot": true,
	"unshare": true, "nsenter": true, "setpriv": true, "systemd-run": true, "script": true, "parallel": true,
	"busybox": true, "strace": true, "ltrace": true, "eval": true, "source": true, ".": true, "fakeroot": true,
	"firejail": true, "bwrap": true, "valgrind": true, "gdb": true, "expect": true, "pkexec": true, "entr": true,
	"sg": true, "newgrp": true, "numactl": true, "cgexec": true, "prlimit": true, "faketime": true,
	"proxychains": true, "proxychains4": true, "torsocks": true, "catchsegv": true, "trap": true,
}

// optRule lists a program's dangerous short option letters and long option
// names. Long names are matched as GNU getopt_long does, by unambiguous
// prefix (sort --out=x is --output=x); a short cluster holding a dangerous
// letter is flagged even where the letter would be another option's value.
type optRule struct {
	shorts string
	longs  []string
}

func (r optRule) tokens(args []string) []string {
	var out []string
	for _, a := range args {
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		if a[1] == '-' {
			name, _, _ := strings.Cut(a[2:], "=")
			for _, l := range r.longs {
				if name != "" && strings.HasPrefix(l, name) {
					out = append(out, a)
					break
				}
			}
			continue
		}
		if r.shorts != "" && strings.ContainsAny(a[1:], r.shorts) {
			out = append(out, a)
		}
	}
	return out
}

var (
	rgRule     = optRule{shorts: "z", longs: []string{"pre", "hostname-bin", "search-zip"}}
	sortRule   = optRule{shorts: "o", longs: []string{"output", "compress-program"}}
	base64Rule = optRule{shorts: "o", longs: []string{"output"}}
	rsyncRule  = optRule{shorts: "e", longs: []string{"rsh", "rsync-path"}}
	shellRule  = optRule{shorts: "cs", longs: []string{"rcfile", "init-file"}}
	phpRule    = optRule{shorts: "rBREF"}
	inlineE    = optRule{shorts: "e"} // lua, Rscript, osascript
	nodeRule   = optRule{shorts: "ep", longs: []string{"eval", "print"}}
	tarRule    = optRule{shorts: "IF", longs: []string{"to-command", "checkpoint-action", "use-compress-program",
		"info-script", "new-volume-script", "rsh-command", "rmt-command"}}
	awkRule = optRule{shorts: "fileEpodDW", longs: []string{"file", "include", "load", "exec", "source", "profile",
		"pretty-print", "dump-variables", "debug"}}
)

// dualUse lists what a wildcard allow rule must spell to cover argv, whose
// program's base name is name (security.md §4 R9, §2, §3).
func dualUse(name string, argv []string) dualUseResult {
	args := argv[1:]
	if execWrapperPrograms[name] {
		return dualUseResult{exactOnly: true}
	}
	if name == "command" {
		// command -v/-V only looks a name up; any other use runs it.
		if len(args) > 0 && (args[0] == "-v" || args[0] == "-V") {
			return dualUseResult{}
		}
		return dualUseResult{exactOnly: true}
	}
	switch name {
	case "find":
		return findDual(args)
	case "rg":
		return dualUseResult{tokens: rgRule.tokens(args)}
	case "sort":
		return dualUseResult{tokens: sortRule.tokens(args)}
	case "base64":
		return dualUseResult{tokens: base64Rule.tokens(args)}
	case "rsync":
		return dualUseResult{tokens: rsyncRule.tokens(args)}
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "yash", "posh":
		return dualUseResult{tokens: shellRule.tokens(args)}
	case "php":
		return dualUseResult{tokens: phpRule.tokens(args)}
	case "lua", "luajit", "Rscript", "osascript":
		return dualUseResult{tokens: inlineE.tokens(args)}
	case "node", "nodejs", "bun":
		return dualUseResult{tokens: nodeRule.tokens(interpreterOptions(args, "", 0))}
	case "deno":
		if len(args) > 0 && args[0] == "eval" {
			return dualUseResult{tokens: []string{"eval"}}
		}
		return dualUseResult{}
	case "perl":
		return dualUseResult{tokens: clusterTokens(interpreterOptions(args, "I", 0), "eEi", "IMmDFVx")}
	case "ruby":
		return dualUseResult{tokens: clusterTokens(interpreterOptions(args, "IrCEFKTWx0", 0), "ei", "IrCEFKTWx0")}
	case "tar", "gtar", "bsdtar":
		t := tarRule.tokens(args)
		if len(args) > 0 && args[0] != "" && args[0][0] != '-' && strings.ContainsAny(args[0], "IF") {
			t = append(t, args[0]) // old-style letters: tar cIf
		}
		return dualUseResult{tokens: t}
	case "sed", "gsed":
		return dualUseResult{tokens: sedDual(args)}
	case "awk", "gawk", "mawk", "nawk":
		return dualUseResult{tokens: awkDual(args)}
	case "git":
		return dualUseResult{tokens: gitDual(args)}
	}
	if isPython(name) {
		return dualUseResult{tokens: clusterTokens(interpreterOptions(args, "mWXQ", 'm'), "c", "mWXQ")}
	}
	return dualUseResult{}
}

// findDual: the primaries that run programs or delete are covered only by
// an exact rule (https://code.claude.com/docs/en/permissions "Wrappers");
// those that write files must be spelled (R9). find takes no abbreviations,
// but a prefix check costs nothing.
func findDual(args []string) dualUseResult {
	var t []string
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "-exec"), strings.HasPrefix(a, "-ok"), a == "-delete":
			return dualUseResult{exactOnly: true}
		case strings.HasPrefix(a, "-fprint"), a == "-fls":
			t = append(t, a)
		}
	}
	return dualUseResult{tokens: t}
}

func isPython(name string) bool {
	for _, p := range []string{"python", "pypy"} {
		if rest, ok := strings.CutPrefix(name, p); ok {
			return strings.Trim(rest, "0123456789.") == ""
		}
	}
	return false
}

// interpreterOptions returns the interpreter's own options: those before
// the script operand (later ones belong to the script). A short option
// whose letter is in valued and that ends its cluster takes the next
// argument as its value; the letter stop (python's -m: the module follows)
// ends the options.
func interpreterOptions(args []string, valued string, stop byte) []string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			return args[:i]
		}
		if a[1] == '-' {
			continue
		}
		for j := 1; j < len(a); j++ {
			if strings.IndexByte(valued, a[j]) >= 0 {
				if stop != 0 && a[j] == stop {
					return args[:i+1]
				}
				if j == len(a)-1 {
					i++
				}
				break
			}
		}
	}
	return args
}

// clusterTokens flags short-option clusters holding a dangerous letter
// before any letter that takes the rest of the cluster as its value.
func clusterTokens(opts []string, dangerous, valued string) []string {
	var out []string
	for _, a := range opts {
		if len(a) < 2 || a[0] != '-' || a[1] == '-' {
			continue
		}
		for j := 1; j < len(a); j++ {
			if strings.IndexByte(dangerous, a[j]) >= 0 {
				out = append(out, a)
				break
			}
			if strings.IndexByte(valued, a[j]) >= 0 {
				break
			}
		}
	}
	return out
}

// gitDual flags git's global options (any option before the subcommand:
// -c, -C, -p, --git-dir, --exec-path ... run programs or change which
// repository and configuration apply, security.md §1 #8, §2), options that
// run programs or write files (--output, --ext-diff, --textconv,
// --upload-pack, --receive-pack, --exec, grep -O), and subcommands that
// store or run programs (config, filter-branch, submodule foreach, bisect
// run, rebase -x, difftool -x, clone -c/-u/--config/--template).
func gitDual(args []string) []string {
	var out []string
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if len(a) == 0 || a[0] != '-' {
			break
		}
		out = append(out, a)
		switch a {
		case "-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--list-cmds":
			i++
		}
	}
	if i >= len(args) {
		return out
	}
	sub, rest := args[i], args[i+1:]
	switch sub {
	case "config", "filter-branch", "filter-repo":
		out = append(out, sub)
	}
	long := optRule{longs: []string{"output", "ext-diff", "textconv", "upload-pack", "receive-pack", "exec",
		"open-files-in-pager", "extcmd", "config", "template", "run"}}
	out = append(out, long.tokens(rest)...)
	for _, a := range rest {
		switch {
		case sub == "grep" && len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a, 'O') > 0:
			out = append(out, a)
		case (sub == "rebase" || sub == "difftool") && a == "-x",
			sub == "clone" && (a == "-c" || a == "-u"),
			sub == "submodule" && a == "foreach",
			sub == "bisect" && a == "run":
			out = append(out, a)
		}
	}
	return out
}

// sedDual flags in-place editing (-i, --in-place), script files (-f,
// --file), and scripts that write, read or run (w, W, r, R, e commands, and
// the e and w flags of s), R9. A script the small parser below does not
// follow is flagged whole.
func sedDual(args []string) []string {
	var out []string
	var scripts []string
	hasScriptOpt := false
	operands := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			switch {
			case name == "":
			case strings.HasPrefix("in-place", name):
				out = append(out, a)
			case strings.HasPrefix("file", name):
				out = append(out, a)
				hasScriptOpt = true
				if !hasVal {
					i++
				}
			case strings.HasPrefix("expression", name) && len(name) >= 2:
				hasScriptOpt = true
				if !hasVal {
					if i+1 < len(args) {
						i++
						val = args[i]
					}
				}
				if sedScriptDangerous(val) {
					out = append(out, a, val)
				}
			case strings.HasPrefix("line-length", name) && !hasVal:
				i++
			}
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				c := a[j]
				if c == 'i' {
					out = append(out, a) // -i[SUFFIX]: the rest is the suffix
					break
				}
				if c == 'f' {
					out = append(out, a)
					hasScriptOpt = true
					if j == len(a)-1 {
						i++ // the script file
					}
					break
				}
				if c == 'e' {
					hasScriptOpt = true
					script := a[j+1:]
					if script == "" && i+1 < len(args) {
						i++
						script = args[i]
					}
					if sedScriptDangerous(script) {
						out = append(out, a, script)
					}
					break
				}
				if c == 'l' {
					if j == len(a)-1 {
						i++
					}
					break
				}
			}
		default:
			operands++
			if operands == 1 {
				scripts = append(scripts, a)
			}
		}
	}
	if !hasScriptOpt {
		for _, s := range scripts {
			if sedScriptDangerous(s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// sedScriptDangerous reports whether a sed script may write, read or run
// anything, or is too odd to tell.
func sedScriptDangerous(s string) bool {
	i := 0
	skipAddr := func() bool {
		for k := 0; k < 2; k++ {
			for i < len(s) && (s[i] == ' ' || s[i] >= '0' && s[i] <= '9' || s[i] == '$' || s[i] == '~' || s[i] == '+') {
				i++
			}
			if i < len(s) && (s[i] == '/' || s[i] == '\\') {
				d := byte('/')
				if s[i] == '\\' {
					if i+1 >= len(s) {
						return false
					}
					i++
					d = s[i]
				}
				i++
				if !skipDelimited(s, &i, d) {
					return false
				}
				for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
					i++
				}
			}
			if i < len(s) && s[i] == ',' && k == 0 {
				i++
				continue
			}
			break
		}
		for i < len(s) && (s[i] == ' ' || s[i] == '!') {
			i++
		}
		return true
	}
	toEOL := func() {
		for i < len(s) && s[i] != '\n' {
			if s[i] == '\\' {
				i++
			}
			i++
		}
	}
	toSep := func() {
		for i < len(s) && s[i] != '\n' && s[i] != ';' && s[i] != '}' {
			i++
		}
	}
	for i < len(s) {
		switch s[i] {
		case ' ', ';', '\n', '{', '}':
			i++
			continue
		case '#':
			toEOL()
			continue
		}
		if !skipAddr() {
			return true
		}
		if i >= len(s) {
			return true // an address without a command
		}
		c := s[i]
		i++
		switch c {
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case 'l', 'L', 'q', 'Q':
			for i < len(s) && (s[i] == ' ' || s[i] >= '0' && s[i] <= '9') {
				i++
			}
		case ':', 'b', 't', 'T', 'v':
			toSep()
		case 'a', 'i', 'c':
			toEOL()
		case 'y', 's':
			// Both take two delimited parts: y/src/dst/, s/re/repl/flags.
			if i >= len(s) || s[i] == '\\' || s[i] == '\n' {
				return true
			}
			d := s[i]
			i++
			if !skipDelimited(s, &i, d) || !skipDelimited(s, &i, d) {
				return true
			}
			if c == 'y' {
				continue
			}
			for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' && s[i] != ' ' {
				switch f := s[i]; {
				case f == 'g', f == 'p', f == 'i', f == 'I', f == 'm', f == 'M', f >= '0' && f <= '9':
					i++
				default:
					return true // e, w and anything unknown
				}
			}
		default:
			return true // w, W, r, R, e and anything unknown
		}
	}
	return false
}

// skipDelimited advances past text ending in an unescaped delimiter d.
func skipDelimited(s string, i *int, d byte) bool {
	for *i < len(s) {
		switch s[*i] {
		case '\\':
			*i += 2
			continue
		case d:
			*i++
			return true
		case '\n':
			return false
		}
		*i++
	}
	return false
}

// awkDual flags awk options that load or write files or run programs, and
// programs that can run commands, write files or read other files
// (system(), pipes, '>' redirection, getline, @load/@include). A '>'
// comparison is flagged too: telling it from a redirection needs an awk
// parser, and an exact rule still covers it.
func awkDual(args []string) []string {
	out := awkRule.tokens(args)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if i+1 < len(args) && awkProgramDangerous(args[i+1]) {
				out = append(out, args[i+1])
			}
			break
		}
		if len(a) > 1 && a[0] == '-' {
			if (a == "-F" || a == "-v") && i+1 < len(args) {
				i++
			}
			continue
		}
		if awkProgramDangerous(a) {
			out = append(out, a)
		}
		break // the first operand is the program; the rest are files
	}
	return out
}

func awkProgramDangerous(p string) bool {
	return strings.Contains(p, "system") || strings.ContainsAny(p, "|>@") || strings.Contains(p, "getline")
}
