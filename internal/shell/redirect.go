package shell

import (
	"strconv"

	"mvdan.cc/sh/v3/syntax"
)

// redirect converts one redirection. Heredoc bodies are not a target;
// their substitutions are found by the hazard walk.
func (w *walker) redirect(r *syntax.Redirect) Redirect {
	out := Redirect{Op: r.Op.String(), FD: 1}
	input := false
	switch r.Op {
	case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		out.FD, input = 0, true
	}
	if r.N != nil {
		n, err := strconv.Atoi(r.N.Value)
		if err != nil || n < 0 {
			// {name}>file: bash picks a descriptor and assigns it to name.
			out.FD = -1
			w.a.ShellAssigns = append(w.a.ShellAssigns, r.N.Value)
			w.a.complex = true
		} else {
			out.FD = n
		}
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return out
	}
	t := w.word(r.Word)
	out.Target, out.Dynamic = t.s, !t.lit
	switch r.Op {
	case syntax.DplIn, syntax.DplOut:
		if t.lit && isDup(t.s) {
			out.Target = "&" + t.s
			return out
		}
		// >&file is &>file; <&file is an error in bash.
		out.Write = r.Op == syntax.DplOut && (out.Dynamic || t.s != "/dev/null")
	case syntax.RdrIn:
	default:
		out.Write = !input || r.Op == syntax.RdrInOut
		if t.lit && t.s == "/dev/null" {
			out.Write = false
		}
	}
	return out
}

// isDup reports a duplication target: a descriptor number, optionally
// followed by - (move), or - alone (close).
func isDup(s string) bool {
	if s == "-" {
		return true
	}
	if n := len(s); n > 1 && s[n-1] == '-' {
		s = s[:n-1]
	}
	return allDigits(s)
}
