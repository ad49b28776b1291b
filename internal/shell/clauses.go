package shell

import (
	"mvdan.cc/sh/v3/syntax"
)

// test records [[ ... ]] as a command "[[ ... ]]". Its arithmetic
// comparisons evaluate their operands as arithmetic, and -v evaluates a
// subscript: [[ 'a[$(cmd)]' -eq 0 ]] runs cmd even single-quoted
// (security.md R3). Operands that are numbers or $#, $?, $$, $! are fine.
func (w *walker) test(s *syntax.Stmt, t *syntax.TestClause, redirs []Redirect) {
	c := Command{Raw: w.callRaw(s, t), Redirects: redirs, Argv: []string{"[["}}
	w.testExpr(&c, t.X)
	c.Argv = append(c.Argv, "]]")
	w.record(c)
}

func (w *walker) testExpr(c *Command, x syntax.TestExpr) {
	switch x := x.(type) {
	case *syntax.Word:
		wd := w.word(x)
		c.Argv = append(c.Argv, wd.s)
		c.Dynamic = c.Dynamic || !wd.lit
	case *syntax.UnaryTest:
		c.Argv = append(c.Argv, x.Op.String())
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			if wd, ok := x.X.(*syntax.Word); !ok || !syntax.ValidName(w.word(wd).s) {
				w.a.unprovable("[[ -v ]] of an array element evaluates its subscript as arithmetic")
			}
		}
		w.testExpr(c, x.X)
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			if !arithOperand(x.X) || !arithOperand(x.Y) {
				w.a.unprovable("[[ %s ]] evaluates its operands as arithmetic, which can run commands through variable values", x.Op)
			}
		}
		w.testExpr(c, x.X)
		c.Argv = append(c.Argv, x.Op.String())
		w.testExpr(c, x.Y)
	case *syntax.ParenTest:
		c.Argv = append(c.Argv, "(")
		w.testExpr(c, x.X)
		c.Argv = append(c.Argv, ")")
	}
}

// arithOperand accepts a number or a special parameter that always holds
// one.
func arithOperand(x syntax.TestExpr) bool {
	wd, ok := x.(*syntax.Word)
	if !ok {
		return false
	}
	parts := wd.Parts
	if len(parts) == 1 {
		if dq, ok := parts[0].(*syntax.DblQuoted); ok {
			parts = dq.Parts
		}
	}
	if len(parts) != 1 {
		return false
	}
	switch p := parts[0].(type) {
	case *syntax.Lit:
		return isNumber(p.Value)
	case *syntax.ParamExp:
		return numericParam(p)
	}
	return false
}

// decl records declare/local/export/readonly/typeset/nameref as a
// command with its arguments, then checks it like the builtin.
func (w *walker) decl(s *syntax.Stmt, d *syntax.DeclClause, redirs []Redirect) {
	w.a.complex = true
	c := Command{Raw: w.callRaw(s, d), Redirects: redirs}
	words := []word{{s: d.Variant.Value, lit: true}}
	for _, as := range d.Args {
		switch {
		case as.Naked && as.Name != nil:
			words = append(words, word{s: as.Name.Value, lit: as.Index == nil})
		case as.Naked:
			words = append(words, w.word(as.Value))
		default:
			text := w.assign(as, false)
			words = append(words, word{s: text, lit: as.Index == nil && as.Array == nil && (as.Value == nil || w.word(as.Value).lit)})
		}
	}
	w.finish(c, words)
}

// let records let with its expressions as written; let is unprovable.
func (w *walker) let(s *syntax.Stmt, l *syntax.LetClause, redirs []Redirect) {
	c := Command{Raw: w.callRaw(s, l), Redirects: redirs, Argv: []string{"let"}, Dynamic: true}
	for _, x := range l.Exprs {
		c.Argv = append(c.Argv, w.text(x.Pos(), x.End()))
	}
	w.a.unprovable("%s", codeBuiltins["let"])
	w.record(c)
}
