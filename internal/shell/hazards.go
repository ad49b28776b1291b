package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// hazards looks anywhere in a statement (arguments, double quotes,
// redirection targets, here-document bodies, case patterns, loop words)
// for code that runs whatever command it appears in (security.md R3).
// The commands of each substitution are walked into Hidden.
func (w *walker) hazards(st *syntax.Stmt) {
	syntax.Walk(st, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			if n.Backquotes {
				w.a.unprovable("a `...` command substitution runs commands")
			} else {
				w.a.unprovable("a $(...) command substitution runs commands")
			}
			w.substitution(n.Stmts)
		case *syntax.ProcSubst:
			w.a.unprovable("a process substitution <(...) or >(...) runs commands")
			w.substitution(n.Stmts)
		case *syntax.ArithmExp:
			w.a.complex = true
			w.arithmetic(n.X)
		case *syntax.ArithmCmd:
			w.arithmetic(n.X)
		case *syntax.CStyleLoop:
			w.a.complex = true
			w.arithmetic(n.Init)
			w.arithmetic(n.Cond)
			w.arithmetic(n.Post)
		case *syntax.ParamExp:
			w.paramExp(n)
		case *syntax.ExtGlob:
			w.a.complex = true
		case *syntax.Assign:
			if n.Index != nil {
				w.arithmetic(n.Index)
			}
		case *syntax.ArrayElem:
			if n.Index != nil {
				w.arithmetic(n.Index)
			}
		}
		return true
	})
}

// substitution walks the commands of a substitution into Hidden. The
// hazard walk goes on into them by itself.
func (w *walker) substitution(stmts []*syntax.Stmt) {
	inner := *w
	inner.hidden = true
	inner.wrappers, inner.assigns, inner.redirs = nil, nil, nil
	inner.stmts(stmts, nil)
}

// arithmetic refuses expressions other than numbers and operators: bash
// evaluates the value of a variable named in an arithmetic context as an
// expression itself, and an array subscript in it runs command
// substitutions (x='a[$(cmd)]'; echo $((x)) runs cmd; verified on bash
// 5.2, security.md R3).
func (w *walker) arithmetic(x syntax.ArithmExpr) {
	if x != nil && !pureArith(x) {
		w.a.unprovable("arithmetic on variables can run commands through their values")
	}
}

func pureArith(x syntax.ArithmExpr) bool {
	switch x := x.(type) {
	case *syntax.Word:
		lit := x.Lit()
		return lit != "" && isNumber(lit)
	case *syntax.BinaryArithm:
		return pureArith(x.X) && pureArith(x.Y)
	case *syntax.UnaryArithm:
		return pureArith(x.X)
	case *syntax.ParenArithm:
		return pureArith(x.X)
	}
	return false
}

// isNumber accepts bash integer constants: decimal, octal, 0x hex and
// base#digits.
func isNumber(s string) bool {
	if base, digits, ok := strings.Cut(s, "#"); ok {
		return allDigits(base) && digits != "" && strings.Trim(digits, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ@_") == ""
	}
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		return strings.Trim(s[2:], "0123456789abcdefABCDEF") == ""
	}
	return allDigits(s)
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

// paramExp accepts $name, ${name}, and the operators that only transform
// a value. Indirection, @P (prompt expansion runs substitutions stored in
// the value), assignment operators, and subscripts or slices that are not
// plain numbers (arithmetic) are unprovable; zsh and mksh forms are not
// analysed.
func (w *walker) paramExp(p *syntax.ParamExp) {
	plain := p.Index == nil && p.Slice == nil && p.Repl == nil && p.Exp == nil && !p.Excl && !p.Length &&
		!p.Width && !p.IsSet && p.Names == 0 && p.Flags == nil && p.NestedParam == nil && len(p.Modifiers) == 0
	if plain && p.Param != nil {
		return
	}
	w.a.complex = true
	switch {
	case p.Excl || p.Names != 0:
		w.a.unprovable("indirect expansion ${!...} can run commands through a variable's value")
	case p.Param == nil || p.Width || p.IsSet || p.Flags != nil || p.NestedParam != nil || len(p.Modifiers) > 0:
		w.a.unprovable("a parameter expansion the analysis does not follow")
	}
	if p.Index != nil {
		if ix, ok := p.Index.(*syntax.Word); !ok || (ix.Lit() != "@" && ix.Lit() != "*" && !isNumber(ix.Lit())) {
			w.a.unprovable("an array subscript is evaluated as arithmetic")
		}
	}
	if p.Slice != nil {
		w.arithmetic(p.Slice.Offset)
		w.arithmetic(p.Slice.Length)
	}
	if p.Exp != nil {
		switch p.Exp.Op {
		case syntax.AssignUnset, syntax.AssignUnsetOrNull:
			w.a.unprovable("${name:=value} assigns a shell variable")
		case syntax.OtherParamOps:
			if p.Exp.Word == nil || p.Exp.Word.Lit() == "P" || p.Exp.Word.Lit() == "" {
				w.a.unprovable("${name@P} expands a prompt string, which runs the substitutions it holds")
			}
		}
	}
}
