package shell

import (
	"slices"
	"strings"
)

// The read-only check decides whether a command line may be declared
// read-only (and so run beside other calls without approval) and how a
// console may label it. It is an allow-list over the analysed commands,
// not a pattern match on the text: every known bypass of such checks
// (compound commands, substitutions, redirects, quote splicing, carriage
// returns) comes from looking at the text instead of what bash will run.
// It fails closed: anything not fully understood is not read-only.

// kind says what a read-only command does, for the console.
type kind uint8

const (
	kindNeutral kind = iota // harmless, but neither search, read nor list (echo)
	kindSearch
	kindRead
	kindList
)

// commandSpec describes one read-only command name.
type commandSpec struct {
	kind kind
	// strict commands have flags that write or execute: every argument
	// must be a literal (no glob or expansion that could become such a
	// flag: a file named -delete) and check must accept the arguments.
	strict bool
	check  func(args []string) bool
}

// readOnlyCommands is the allow-list. Left out on purpose:
//   - awk, sed, perl and the like: their programs can run commands
//     (system(), "| cmd", getline from a command, sed's e and w), and
//     checking program text is a second parser that can be fooled (gawk's
//     indirect calls, string concatenation).
//   - less, more: pagers run LESSOPEN preprocessors and shell escapes.
//   - printf: -v assigns, with arithmetic evaluation of subscripts.
//   - cd, pushd: they change the session's directory, which is state, and
//     two concurrent calls would race on it.
//   - env, nice and other wrappers: a wrapped command is not read-only
//     even when the command it runs is, as in Claude Code; timeout,
//     command and bare xargs are stripped (readOnlyWrappers).
//   - git's other subcommands, and any git form with global options
//     (readonly_git.go); the read-only forms still depend on the
//     repository's configuration, which the policy checks.
var readOnlyCommands = map[string]commandSpec{
	// search
	"find":    {kind: kindSearch, strict: true, check: findOK},
	"grep":    {kind: kindSearch},
	"egrep":   {kind: kindSearch},
	"fgrep":   {kind: kindSearch},
	"rg":      {kind: kindSearch, strict: true, check: rgRule.allows},
	"ag":      {kind: kindSearch, strict: true, check: agRule.allows},
	"ack":     {kind: kindSearch, strict: true, check: ackRule.allows},
	"locate":  {kind: kindSearch},
	"which":   {kind: kindSearch},
	"whereis": {kind: kindSearch},

	// read
	"cat":  {kind: kindRead},
	"head": {kind: kindRead},
	"tail": {kind: kindRead},
	"wc":   {kind: kindRead},
	"jq":   {kind: kindRead},
	"sort": {kind: kindRead, strict: true, check: sortRule.allows},
	"uniq": {kind: kindRead, strict: true, check: uniqOK},
	"cut":  {kind: kindRead},
	"tr":   {kind: kindRead},
	"nl":   {kind: kindRead},
	"stat": {kind: kindRead},
	"file": {kind: kindRead, strict: true, check: fileRule.allows},
	"diff": {kind: kindRead, strict: true, check: diffRule.allows},
	"cmp":  {kind: kindRead},
	"od":   {kind: kindRead},
	"git":  {kind: kindRead, strict: true, check: gitReadOnlyArgs},

	// list
	"ls":   {kind: kindList},
	"tree": {kind: kindList, strict: true, check: treeRule.allows},
	"du":   {kind: kindList},
	"pwd":  {kind: kindList},

	// neutral: read-only, but they do not make the call a search or a read
	"echo":  {kind: kindNeutral},
	"true":  {kind: kindNeutral},
	"false": {kind: kindNeutral},
	"sleep": {kind: kindNeutral},
	// Conditional expressions have no side effects. As in Claude Code,
	// only literal ones (no expansion) and without -v/-R, which evaluate
	// an array subscript; the analyser refuses [[ ]]'s arithmetic
	// comparisons on anything but numbers (clauses.go), and command
	// substitutions are commands of their own.
	"test": {kind: kindNeutral, strict: true, check: condOK},
	"[":    {kind: kindNeutral, strict: true, check: condOK},
	"[[":   {kind: kindNeutral, strict: true, check: condOK},
	// xargs with no command runs echo; with options it is not stripped
	// and stays the command, which asks.
	"xargs": {kind: kindNeutral, strict: true, check: noArgs},

	// Others Claude Code 2.1.332 runs without asking: no option of theirs
	// writes a file or runs a program.
	"tac":       {kind: kindRead},
	"rev":       {kind: kindRead},
	"paste":     {kind: kindRead},
	"comm":      {kind: kindRead},
	"fold":      {kind: kindRead},
	"expand":    {kind: kindRead},
	"strings":   {kind: kindRead},
	"hexdump":   {kind: kindRead},
	"column":    {kind: kindRead},
	"numfmt":    {kind: kindRead},
	"md5sum":    {kind: kindRead},
	"sha1sum":   {kind: kindRead},
	"sha256sum": {kind: kindRead},
	"sha512sum": {kind: kindRead},
	"realpath":  {kind: kindNeutral},
	"readlink":  {kind: kindNeutral},
	"basename":  {kind: kindNeutral},
	"dirname":   {kind: kindNeutral},
	"seq":       {kind: kindNeutral},
	"expr":      {kind: kindNeutral},
	"type":      {kind: kindNeutral},
	"id":        {kind: kindNeutral},
	"groups":    {kind: kindNeutral},
	"whoami":    {kind: kindNeutral},
	"uname":     {kind: kindNeutral},
	"nproc":     {kind: kindNeutral},
	"uptime":    {kind: kindNeutral},
	"free":      {kind: kindNeutral},
	"df":        {kind: kindNeutral},
	// date -s and date MMDDhhmm set the clock; hostname NAME, -F and -b
	// set the host name.
	"date":     {kind: kindNeutral, strict: true, check: dateOK},
	"hostname": {kind: kindNeutral, strict: true, check: hostnameOK},
}

// xargsTargets are the commands bare xargs may run in a read-only line,
// as in Claude Code 2.1.332 (xargs grep and xargs wc run; xargs cat and
// xargs sort ask). The arguments come from the input, so only commands
// without dangerous options.
var xargsTargets = map[string]bool{"grep": true, "egrep": true, "fgrep": true, "wc": true, "head": true, "tail": true, "echo": true}

// condOK refuses -v and -R, which evaluate a name's subscript.
func condOK(args []string) bool {
	for _, a := range args {
		if a == "-v" || a == "-R" {
			return false
		}
	}
	return true
}

var dateRule = optRule{shorts: "s", longs: []string{"set"}}

// dateOK refuses -s/--set and an operand that is not a +FORMAT.
func dateOK(args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+") {
			return false
		}
	}
	return dateRule.allows(args)
}

var hostnameRule = optRule{shorts: "Fb", longs: []string{"file", "boot"}}

// hostnameOK refuses operands (the new name) and -F/-b.
func hostnameOK(args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return false
		}
	}
	return hostnameRule.allows(args)
}

func noArgs(args []string) bool { return len(args) == 0 }

// readOnlyWrappers are the wrappers a read-only command may run under, as
// Claude Code strips them for its read-only check: timeout only limits
// the time, command only skips functions and aliases, and bare xargs
// (no options, stripped by the analyser only then) runs the command with
// arguments from its input, which makes the command Dynamic: a strict
// command under xargs is refused, since an input line could become one of
// its dangerous options. nice, nohup, stdbuf, time and env make the
// command ask there, and here.
var readOnlyWrappers = map[string]bool{"timeout": true, "command": true, "xargs": true}

// ReadOnly reports whether the command line only reads: the analysis is
// proven, every command is in the read-only set with arguments that pass
// its dual-use flag check (security.md R9), no redirection writes a file,
// and nothing is assigned, wrapped, or run in a way the set does not cover
// (parameter expansion operators, extended globs, arithmetic,
// time, declarations). Path-qualified names (./cat, /bin/cat) are not in
// the set: they run whatever is there.
func (a *Analysis) ReadOnly() bool {
	if !a.Proven() || a.complex || len(a.Commands) == 0 || len(a.ShellAssigns) > 0 || len(a.Hidden) > 0 {
		return false
	}
	for i := range a.Commands {
		if !a.Commands[i].readOnly() {
			return false
		}
	}
	return true
}

func (c *Command) readOnly() bool {
	if len(c.Argv) == 0 {
		return false
	}
	if !SafeAssigns(c.Assigns) {
		return false
	}
	for _, w := range c.Wrappers {
		if !readOnlyWrappers[w] {
			return false
		}
	}
	for _, r := range c.Redirects {
		if !r.readOnly() {
			return false
		}
	}
	spec, ok := readOnlyCommands[c.Argv[0]]
	if !ok || slices.Contains(c.Wrappers, "xargs") && !xargsTargets[c.Argv[0]] {
		return false
	}
	if spec.strict && (c.Dynamic || spec.check != nil && !spec.check(c.Argv[1:])) {
		return false
	}
	return true
}

// readOnly allows input redirections, here-documents, descriptor
// duplication and closing, and output to /dev/null. bash's /dev/tcp and
// /dev/udp paths open network connections, even for input.
func (r Redirect) readOnly() bool {
	switch {
	case r.FD < 0: // {var}> assigns a variable
		return false
	case strings.HasPrefix(r.Target, "/dev/tcp/"), strings.HasPrefix(r.Target, "/dev/udp/"):
		return false
	case r.Op == "<", r.Op == "<<", r.Op == "<<-", r.Op == "<<<":
		return true
	case r.Dynamic:
		return false
	case strings.HasPrefix(r.Target, "&"):
		return true
	}
	return !r.Write
}

// Kinds reports, for a read-only command line, whether it searches, reads
// or lists (a pipeline such as grep x | head is both a search and a read).
// All three are false when the line is not read-only.
func (a *Analysis) Kinds() (search, read, list bool) {
	if !a.ReadOnly() {
		return false, false, false
	}
	for _, c := range a.Commands {
		switch readOnlyCommands[c.Argv[0]].kind {
		case kindSearch:
			search = true
		case kindRead:
			read = true
		case kindList:
			list = true
		}
	}
	return search, read, list
}
