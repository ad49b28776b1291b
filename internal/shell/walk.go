package shell

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// lang is the dialect a script is parsed in.
type lang uint8

const (
	langBash  lang = iota
	langPOSIX      // dash, ash
	langZsh        // zsh; mvdan.cc/sh's support is experimental
	langKorn       // ksh, mksh
)

var parserPools [4]sync.Pool

func getParser(l lang) *syntax.Parser {
	if p, ok := parserPools[l].Get().(*syntax.Parser); ok {
		return p
	}
	v := syntax.LangBash
	switch l {
	case langPOSIX:
		v = syntax.LangPOSIX
	case langZsh:
		v = syntax.LangZsh
	case langKorn:
		v = syntax.LangMirBSDKorn
	}
	return syntax.NewParser(syntax.Variant(v))
}

// walker walks one script. Nested scripts (sh -c '...') and substitutions
// get a copy with their own context.
type walker struct {
	a   *Analysis
	src string // the script text, for Raw and non-literal words
	// cr stands for \r in the text given to the parser (0: there is none).
	// The parser treats \r as a blank; bash treats it as an ordinary
	// character, so TZ=UTC\recho curl x runs curl (security.md §1 #6).
	// Parsing a copy where \r is another byte that is a word character
	// makes the tree match what bash runs.
	cr     byte
	lang   lang
	depth  int
	hidden bool // inside a substitution: commands go to Hidden
	// What an enclosing wrapper gives every command of this script.
	wrappers []string
	assigns  []string
	redirs   []Redirect
}

// maxReasons bounds Unprovable: past it, the list only says there are
// more (the verdict is the same, and a long hostile command must not make
// the deduplication quadratic).
const maxReasons = 32

func (a *Analysis) unprovable(format string, args ...any) {
	switch n := len(a.Unprovable); {
	case n > maxReasons:
		return
	case n == maxReasons:
		a.Unprovable = append(a.Unprovable, "and more reasons")
		return
	}
	msg := fmt.Sprintf(format, args...)
	if !slices.Contains(a.Unprovable, msg) {
		a.Unprovable = append(a.Unprovable, msg)
	}
}

// script parses src and walks it.
func (w *walker) script(src string) {
	if !w.withinLimits(src) {
		return
	}
	checkChars(w.a, src)
	w.src = src
	text := src
	if strings.IndexByte(src, '\r') >= 0 {
		w.cr = crStandIn(src)
		text = strings.ReplaceAll(src, "\r", string(rune(w.cr)))
	}
	p := getParser(w.lang)
	var stmts []*syntax.Stmt
	// bash runs a script line by line, so the lines before a syntax error
	// do run: keep the statements parsed before the error.
	// The loop does not break on the error: the parser's iterator does not
	// stop when asked to (mvdan.cc/sh v3.14.1 yields again and the range
	// panics), so what follows the first error is read and ignored.
	failed := false
	for st, err := range p.StmtsSeq(strings.NewReader(text)) {
		switch {
		case failed:
		case err != nil:
			w.a.unprovable("bash cannot parse the command: %v", err)
			failed = true
		default:
			stmts = append(stmts, st)
		}
	}
	parserPools[w.lang].Put(p)
	w.stmts(stmts, nil)
	for _, st := range stmts {
		w.hazards(st)
	}
}

// crStandIn picks a byte absent from src that the parser reads as part of
// a word.
func crStandIn(src string) byte {
	for b := byte(1); b < 0x20; b++ {
		if b != '\t' && b != '\n' && b != '\r' && strings.IndexByte(src, b) < 0 {
			return b
		}
	}
	return 1 // every control byte is used: the analysis is unprovable anyway
}

// fix puts back the \r that the parsed copy replaced.
func (w *walker) fix(s string) string {
	if w.cr == 0 || strings.IndexByte(s, w.cr) < 0 {
		return s
	}
	return strings.ReplaceAll(s, string(rune(w.cr)), "\r")
}

// text returns the source between two parser positions.
func (w *walker) text(from, to syntax.Pos) string {
	i, j := int(from.Offset()), int(to.Offset())
	if i < 0 || j > len(w.src) || i > j {
		return ""
	}
	return w.src[i:j]
}

func (w *walker) stmts(list []*syntax.Stmt, redirs []Redirect) {
	for _, s := range list {
		w.stmt(s, redirs)
	}
}

// stmt walks one statement; redirs are those of enclosing compound
// commands.
func (w *walker) stmt(s *syntax.Stmt, redirs []Redirect) {
	if s == nil {
		return
	}
	if s.Coprocess || s.Disown {
		w.a.unprovable("coprocesses are not analysed")
	}
	if len(s.Redirs) > 0 {
		own := make([]Redirect, 0, len(redirs)+len(s.Redirs))
		own = append(own, redirs...)
		for _, r := range s.Redirs {
			own = append(own, w.redirect(r))
		}
		redirs = own
	}
	var sure []int // the directory changes this statement's success implies
	defer func() {
		if s.Negated || s.Background {
			sure = nil
		}
		w.a.lastSure = sure
	}()
	switch c := s.Cmd.(type) {
	case nil:
		// Only redirections: "> f" truncates f.
		w.record(Command{Raw: w.text(s.Pos(), s.End()), Redirects: redirs})
		w.a.unprovable("a redirection without a command")
	case *syntax.CallExpr:
		before := len(w.a.chdirs)
		w.call(s, c, redirs)
		if len(w.a.chdirs) == before+1 {
			sure = []int{before}
		}
	case *syntax.BinaryCmd:
		w.stmt(c.X, redirs)
		if c.Op != syntax.AndStmt {
			w.stmt(c.Y, redirs)
			break
		}
		// cd sub && cat ../x: cat runs only if cd succeeded.
		left := w.a.lastSure
		w.sureWhile(left, func() { w.stmt(c.Y, redirs) })
		sure = append(slices.Clip(left), w.a.lastSure...)
	case *syntax.Subshell:
		w.stmts(c.Stmts, redirs)
	case *syntax.Block:
		w.stmts(c.Stmts, redirs)
	case *syntax.IfClause:
		for ic := c; ic != nil; ic = ic.Else {
			w.stmts(ic.Cond, redirs)
			w.sureWhile(w.a.lastSure, func() { w.stmts(ic.Then, redirs) })
		}
	case *syntax.WhileClause:
		m := w.loopStart()
		w.stmts(c.Cond, redirs)
		w.stmts(c.Do, redirs)
		w.loopEnd(m)
	case *syntax.ForClause:
		if it, ok := c.Loop.(*syntax.WordIter); ok && it.Name != nil {
			w.shellAssign(it.Name.Value, it.Name.Value)
		}
		m := w.loopStart()
		w.stmts(c.Do, redirs)
		w.loopEnd(m)
	case *syntax.CaseClause:
		for _, item := range c.Items {
			w.stmts(item.Stmts, redirs)
		}
	case *syntax.TimeClause:
		w.a.complex = true
		inner := *w
		inner.wrappers = appendClone(w.wrappers, "time")
		inner.stmt(c.Stmt, redirs)
	case *syntax.FuncDecl:
		// The body runs only if the function is called, but listing its
		// commands lets deny rules see them.
		w.a.unprovable("a function definition")
		m := w.loopStart()
		w.stmt(c.Body, redirs)
		w.loopEnd(m)
		if c.Name != nil && chdirCommands[c.Name.Value] {
			// A function named cd makes later cds something else.
			w.a.chdirs = append(w.a.chdirs, Chdir{Target: "?", Unknown: true})
		}
	case *syntax.ArithmCmd:
		w.a.complex = true // the hazard walk judges the expression
	case *syntax.TestClause:
		w.test(s, c, redirs)
	case *syntax.DeclClause:
		w.decl(s, c, redirs)
	case *syntax.LetClause:
		w.let(s, c, redirs)
	case *syntax.CoprocClause:
		w.a.unprovable("coprocesses are not analysed")
		w.stmt(c.Stmt, redirs)
	default:
		w.a.unprovable("unsupported shell construct %T", c)
	}
}

// call walks a simple command: assignments, words, wrappers.
func (w *walker) call(s *syntax.Stmt, c *syntax.CallExpr, redirs []Redirect) {
	raw := w.callRaw(s, c)
	var assigns []string
	for _, as := range c.Assigns {
		assigns = append(assigns, w.assign(as, true))
	}
	if len(c.Args) == 0 {
		if len(redirs) > 0 {
			w.record(Command{Raw: raw, Assigns: assigns, Redirects: redirs})
			w.a.unprovable("a redirection without a command")
			return
		}
		for i, as := range c.Assigns {
			if as.Name != nil {
				w.shellAssign(as.Name.Value, assigns[i])
			}
		}
		return
	}
	words := make([]word, len(c.Args))
	for i, arg := range c.Args {
		words[i] = w.word(arg)
	}
	w.command(Command{Raw: raw, Assigns: assigns, Redirects: redirs}, words, w.stdinScript(s.Redirs))
}

// quotedDelim reports a here-document delimiter with quotes or
// backslashes, which makes the body literal.
func quotedDelim(x *syntax.Word) bool {
	for _, p := range x.Parts {
		if lit, ok := p.(*syntax.Lit); !ok || strings.IndexByte(lit.Value, '\\') >= 0 {
			return true
		}
	}
	return false
}

// stdinScript returns the text a here-document or here-string feeds to
// the command's standard input, when it is literal and is the last
// redirection of descriptor 0: bash <<'EOF' ... EOF runs that text.
func (w *walker) stdinScript(redirs []*syntax.Redirect) *string {
	var last *syntax.Redirect
	for _, r := range redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			last = r
		}
	}
	if last == nil {
		return nil
	}
	switch last.Op {
	case syntax.WordHdoc:
		if wd := w.word(last.Word); wd.lit {
			text := wd.s + "\n"
			return &text
		}
	case syntax.Hdoc, syntax.DashHdoc:
		if last.Hdoc == nil {
			text := ""
			return &text
		}
		body, ok := last.Hdoc.Parts[0].(*syntax.Lit)
		if len(last.Hdoc.Parts) != 1 || !ok {
			return nil
		}
		// With an unquoted delimiter, backslashes escape; such bodies are
		// not analysed.
		if !quotedDelim(last.Word) && strings.IndexByte(body.Value, '\\') >= 0 {
			return nil
		}
		text := w.fix(body.Value)
		if last.Op == syntax.DashHdoc {
			lines := strings.Split(text, "\n")
			for i, l := range lines {
				lines[i] = strings.TrimLeft(l, "\t")
			}
			text = strings.Join(lines, "\n")
		}
		return &text
	}
	return nil
}

// callRaw is the text of a simple command with its own redirections.
func (w *walker) callRaw(s *syntax.Stmt, c syntax.Node) string {
	from, to := c.Pos(), c.End()
	for _, r := range s.Redirs {
		if r.Pos().Offset() < from.Offset() {
			from = r.Pos()
		}
		if r.End().Offset() > to.Offset() {
			to = r.End()
		}
	}
	return w.text(from, to)
}

// assign renders an assignment as NAME=value. strict: a non-literal value
// is unprovable (leading assignments become a command's environment, and
// allow rules require them verbatim).
func (w *walker) assign(as *syntax.Assign, strict bool) string {
	name := ""
	if as.Name != nil {
		name = as.Name.Value
	}
	if as.Index != nil {
		// The hazard walk judges the subscript.
		name += "[" + w.text(as.Index.Pos(), as.Index.End()) + "]"
	}
	op := "="
	if as.Append {
		op = "+="
	}
	switch {
	case as.Array != nil:
		// The hazard walk judges the elements and their subscripts.
		return name + op + w.fix(w.text(as.Array.Pos(), as.Array.End()))
	case as.Value == nil:
		return name + op
	}
	v := w.word(as.Value)
	if !v.lit && strict {
		w.a.unprovable("the value assigned to %s is not a literal", name)
	}
	return name + op + v.s
}

// shellAssign records a variable set in the shell itself.
func (w *walker) shellAssign(name, entry string) {
	w.a.ShellAssigns = append(w.a.ShellAssigns, entry)
	if dangerousVar(name) {
		w.a.unprovable("setting %s in the shell changes how later commands run", name)
	}
}

// dangerousVar reports variables that change which program runs, run
// code, or change how commands parse their arguments (security.md §1 #10).
func dangerousVar(name string) bool {
	switch name {
	case "PATH", "IFS", "BASH_ENV", "ENV", "CDPATH", "GLOBIGNORE", "SHELLOPTS", "BASHOPTS",
		"PS4", "PROMPT_COMMAND", "BASH_LOADABLES_PATH", "EXECIGNORE", "HOME", "POSIXLY_CORRECT",
		"BASH_XTRACEFD", "BASH_COMPAT":
		return true
	}
	return strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "DYLD_") || strings.HasPrefix(name, "BASH_FUNC_")
}

// record adds a finished command.
func (w *walker) record(c Command) {
	if len(w.wrappers) > 0 {
		c.Wrappers = append(slices.Clip(w.wrappers), c.Wrappers...)
	}
	if len(w.assigns) > 0 {
		c.Assigns = append(slices.Clip(w.assigns), c.Assigns...)
	}
	if len(w.redirs) > 0 {
		c.Redirects = append(slices.Clip(w.redirs), c.Redirects...)
	}
	c.Chdirs = w.a.chdirsNow()
	if w.hidden {
		w.a.Hidden = append(w.a.Hidden, c)
	} else {
		if w.a.Commands == nil {
			w.a.Commands = make([]Command, 0, 4)
		}
		w.a.Commands = append(w.a.Commands, c)
	}
}

// nested analyses a script run by a wrapper (sh -c, eval, watch, flock -c)
// whose own assignments, redirections and stripped wrappers are in c. It
// reports how many commands the script holds.
func (w *walker) nested(script string, l lang, c Command) int {
	if w.depth >= MaxDepth {
		w.a.unprovable("scripts nested more than %d deep are not analysed", MaxDepth)
		return 0
	}
	w.a.scripts = append(w.a.scripts, script)
	inner := &walker{
		a:        w.a,
		lang:     l,
		depth:    w.depth + 1,
		hidden:   w.hidden,
		wrappers: append(slices.Clip(w.wrappers), c.Wrappers...),
		assigns:  append(slices.Clip(w.assigns), c.Assigns...),
		redirs:   append(slices.Clip(w.redirs), c.Redirects...),
	}
	before := len(w.a.Commands) + len(w.a.Hidden)
	inner.script(script)
	return len(w.a.Commands) + len(w.a.Hidden) - before
}

func appendClone(s []string, v ...string) []string {
	return append(slices.Clip(s), v...)
}
