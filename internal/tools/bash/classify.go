package bash

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The classifier decides whether a command may be declared read-only (and so
// run beside other calls without approval) and how a console may collapse
// it. It fails closed: anything it does not fully understand is "not
// read-only", never an error. It is an allow-list over the parsed program,
// not a pattern match on the text, because every known bypass of such
// checks (compound commands, substitutions, redirects, quote splicing,
// carriage returns) comes from looking at the text instead of what bash
// will run. The analysis only labels the call; it is not a sandbox.

// kind says what a simple command does, for Activity.
type kind uint8

const (
	kindNeutral kind = iota // harmless, but neither search, read nor list (echo)
	kindSearch
	kindRead
	kindList
)

// classification is what classify found. The zero value is the safe
// answer.
type classification struct {
	readOnly           bool
	search, read, list bool
	// keepsDir: the command cannot change the shell's directory, so the
	// call needs no cwd capture (see keepsDir).
	keepsDir bool
}

// maxClassifyLen bounds the text the classifier looks at; longer commands
// are not read-only (Claude Code prompts for them too).
const maxClassifyLen = 10000

// commandSpec describes one allowed command name.
type commandSpec struct {
	kind kind
	// strict commands have flags that write or execute: every argument must
	// be a static word (no globs or expansions that could become such a
	// flag) and check must accept the arguments.
	strict bool
	check  func(args []string) bool
}

// commands is the allow-list. Left out on purpose:
//   - awk, sed, perl and the like: their programs can run commands
//     (system(), "| cmd", getline from a command, sed's e and w), and
//     checking program text is a second parser that can be fooled (gawk's
//     indirect calls, string concatenation). Such commands are never
//     read-only.
//   - less, more: pagers run LESSOPEN preprocessors and shell escapes.
//   - printf: -v assigns, with arithmetic evaluation of subscripts.
//   - cd, pushd: they change the session's directory, which is state, and
//     two concurrent calls would race on it.
//   - xargs, env, timeout, nice and other wrappers: they run another
//     program named in their arguments.
//   - git: repository config can run programs (pagers, fsmonitor, diff
//     drivers).
var commands = map[string]commandSpec{
	// search
	"find":    {kind: kindSearch, strict: true, check: findOK},
	"grep":    {kind: kindSearch},
	"egrep":   {kind: kindSearch},
	"fgrep":   {kind: kindSearch},
	"rg":      {kind: kindSearch, strict: true, check: rgOK},
	"ag":      {kind: kindSearch, strict: true, check: agOK},
	"ack":     {kind: kindSearch, strict: true, check: ackOK},
	"locate":  {kind: kindSearch},
	"which":   {kind: kindSearch},
	"whereis": {kind: kindSearch},

	// read
	"cat":  {kind: kindRead},
	"head": {kind: kindRead},
	"tail": {kind: kindRead},
	"wc":   {kind: kindRead},
	"jq":   {kind: kindRead},
	"sort": {kind: kindRead, strict: true, check: sortOK},
	"uniq": {kind: kindRead, strict: true, check: uniqOK},
	"cut":  {kind: kindRead},
	"tr":   {kind: kindRead},
	"nl":   {kind: kindRead},
	"stat": {kind: kindRead},
	"file": {kind: kindRead, strict: true, check: fileOK},
	"diff": {kind: kindRead, strict: true, check: diffOK},

	// list
	"ls":   {kind: kindList},
	"tree": {kind: kindList, strict: true, check: treeOK},
	"du":   {kind: kindList},
	"pwd":  {kind: kindList},

	// neutral: read-only, but they do not make the call a search or a read
	"echo":  {kind: kindNeutral},
	"true":  {kind: kindNeutral},
	"false": {kind: kindNeutral},
}

// classify parses command as bash and checks every simple command in it.
func classify(command string) classification {
	if len(command) > maxClassifyLen || strings.ContainsFunc(command, suspiciousRune) {
		return classification{}
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return classification{}
	}
	keeps := keepsDir(f)
	if len(f.Stmts) == 0 || hasHiddenCode(f) {
		return classification{keepsDir: keeps}
	}
	var c classifier
	if !c.stmts(f.Stmts) || c.simple == 0 {
		return classification{keepsDir: keeps}
	}
	return classification{readOnly: true, search: c.search, read: c.read, list: c.list, keepsDir: keeps}
}

// suspiciousRune rejects characters on which bash and a reader (human or
// program) may disagree: CR (bash does not split on it), other control
// characters, bidi overrides, zero-width characters, NBSP and invalid UTF-8.
func suspiciousRune(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20 || (r >= 0x7f && r <= 0xa0):
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0xfeff || r == 0xfffd:
		return true
	}
	return false
}

// hasHiddenCode looks anywhere in the tree (arguments, redirect targets,
// here-document bodies, loop words) for constructs that run code or change
// state whatever command they appear in.
func hasHiddenCode(f *syntax.File) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ExtGlob,
			*syntax.FuncDecl, *syntax.ArithmCmd, *syntax.LetClause, *syntax.DeclClause,
			*syntax.TestClause, *syntax.TestDecl, *syntax.CoprocClause, *syntax.TimeClause,
			*syntax.Assign:
			found = true
		case *syntax.ParamExp:
			// Only $name and ${name}: operators can assign (${a:=b}), and
			// indirection or subscripts evaluate arithmetic, which can run
			// commands through a variable's value.
			found = n.Param == nil || n.Excl || n.Length || n.Width || n.IsSet || n.Index != nil ||
				n.Slice != nil || n.Repl != nil || n.Exp != nil || n.Names != 0 || n.Flags != nil ||
				n.NestedParam != nil || len(n.Modifiers) > 0
		}
		return !found
	})
	return found
}

// classifier walks the statements and records the kinds it met.
type classifier struct {
	simple             int
	search, read, list bool
}

func (c *classifier) stmts(list []*syntax.Stmt) bool {
	for _, s := range list {
		if !c.stmt(s) {
			return false
		}
	}
	return true
}

func (c *classifier) stmt(s *syntax.Stmt) bool {
	if s.Coprocess || s.Disown {
		return false
	}
	for _, r := range s.Redirs {
		if !redirectOK(r) {
			return false
		}
	}
	switch cmd := s.Cmd.(type) {
	case *syntax.CallExpr:
		return c.call(cmd)
	case *syntax.BinaryCmd:
		return c.stmt(cmd.X) && c.stmt(cmd.Y)
	case *syntax.Subshell:
		return c.stmts(cmd.Stmts)
	case *syntax.Block:
		return c.stmts(cmd.Stmts)
	case *syntax.IfClause:
		for ic := cmd; ic != nil; ic = ic.Else {
			if !c.stmts(ic.Cond) || !c.stmts(ic.Then) {
				return false
			}
		}
		return true
	case *syntax.WhileClause:
		return c.stmts(cmd.Cond) && c.stmts(cmd.Do)
	case *syntax.CaseClause:
		for _, item := range cmd.Items {
			if !c.stmts(item.Stmts) {
				return false
			}
		}
		return true
	}
	// for/select assign their loop variable (for PATH in /tmp; do ls; done
	// would change which ls runs); everything else is rejected above or
	// unknown.
	return false
}

func (c *classifier) call(call *syntax.CallExpr) bool {
	// A prefix assignment changes how the command runs (PATH=., LD_PRELOAD,
	// PAGER...), and an assignment alone changes the shell: neither is
	// read-only.
	if len(call.Assigns) > 0 || len(call.Args) == 0 {
		return false
	}
	name, ok := staticWord(call.Args[0])
	if !ok || strings.Contains(name, "/") {
		// Path-qualified names (./cat, /tmp/x/cat) run whatever is there.
		return false
	}
	spec, ok := commands[name]
	if !ok {
		return false
	}
	if spec.strict {
		args := make([]string, 0, len(call.Args)-1)
		for _, w := range call.Args[1:] {
			a, ok := staticWord(w)
			if !ok {
				return false
			}
			args = append(args, a)
		}
		if spec.check != nil && !spec.check(args) {
			return false
		}
	}
	c.simple++
	switch spec.kind {
	case kindSearch:
		c.search = true
	case kindRead:
		c.read = true
	case kindList:
		c.list = true
	}
	return true
}

// redirectOK allows input redirections, here-documents, fd duplication and
// closing, and output to /dev/null. Everything else may write a file.
func redirectOK(r *syntax.Redirect) bool {
	if r.N != nil && !allDigits(r.N.Value) {
		// {var}>... assigns a variable.
		return false
	}
	switch r.Op {
	case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return true
	case syntax.DplIn, syntax.DplOut:
		// >&2 and <&0 duplicate; >&- closes; >&file writes the file.
		t, ok := staticWord(r.Word)
		return ok && (t == "-" || allDigits(t) || t == "/dev/null")
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
		t, ok := staticWord(r.Word)
		return ok && t == "/dev/null"
	}
	return false
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// staticWord returns the word after quote removal when that is all bash
// will do to it: no expansion, no globbing, no brace expansion, no tilde.
// Quote splicing ("cat", \cat, c'a't) is resolved, so c'a't is cat; that
// is safe because bash runs exactly that name. $'...' and $"..." are not
// resolved and make the word non-static.
func staticWord(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	bracket := -1 // where an unquoted [ was seen
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(p.Value, "~") {
				return "", false
			}
			if !unquotedLit(&b, p.Value, &bracket) {
				return "", false
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, dp := range p.Parts {
				lit, ok := dp.(*syntax.Lit)
				if !ok {
					return "", false
				}
				doubleQuotedLit(&b, lit.Value)
			}
		default:
			return "", false
		}
	}
	s := b.String()
	if bracket >= 0 && strings.Contains(s[bracket:], "]") {
		// [...] is a glob pattern; a lone [ (the test command) is not.
		return "", false
	}
	return s, true
}

// unquotedLit removes backslash escapes and refuses unescaped characters
// that start globbing or brace expansion. The first unescaped [ is
// recorded in bracket: it is a pattern only if a ] follows.
func unquotedLit(b *strings.Builder, s string, bracket *int) bool {
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch ch {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
				continue
			}
		case '[':
			if *bracket < 0 {
				*bracket = b.Len()
			}
		case '*', '?', '{', '}':
			return false
		}
		b.WriteByte(ch)
	}
	return true
}

// doubleQuotedLit removes the escapes bash removes inside double quotes.
func doubleQuotedLit(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\", s[i+1]) >= 0 {
			i++
			ch = s[i]
		}
		b.WriteByte(ch)
	}
}
