package shell

import (
	"slices"
	"strings"
)

// Chdir is a change of directory (cd, pushd, popd) that runs before a
// command in the same command line. The policy resolves a command's path
// arguments against every directory the command may run in: the call's
// working directory and each result of the changes before it, any of
// which may have failed or been skipped (cd a || cd b).
type Chdir struct {
	// Target is the directory as written after quote removal; for a
	// Dynamic one, its source text. cd with no operand is "~".
	Target string
	// Dynamic: bash expands the target (~, a variable, a glob).
	Dynamic bool
	// Unknown: the analysis cannot tell where the change leads: cd -,
	// popd, pushd +N, cd under CDPATH, or a change inside a loop or a
	// function, whose commands run after it as well as before.
	Unknown bool
	// Sure: the command runs only if this change succeeded (cd sub &&
	// cat x, if cd sub; then ...), so it runs in the new directory and
	// not in the old one.
	Sure bool
}

// chdirsNow is the list of changes for a command recorded now, with the
// ones its running implies marked Sure.
func (a *Analysis) chdirsNow() []Chdir {
	if len(a.sure) == 0 {
		return slices.Clip(a.chdirs)
	}
	out := slices.Clone(a.chdirs)
	for _, i := range a.sure {
		out[i].Sure = true
	}
	return out
}

// sureWhile walks what runs only when the changes sure succeeded.
func (w *walker) sureWhile(sure []int, walk func()) {
	old := w.a.sure
	w.a.sure = append(slices.Clip(old), sure...)
	walk()
	w.a.sure = old
}

// chdirCommands are the builtins that change the shell's directory.
var chdirCommands = map[string]bool{"cd": true, "pushd": true, "popd": true, "chdir": true}

// chdir records the directory change c makes, if it is one. A change
// made by a path-qualified program (/usr/bin/cd) changes nothing: only
// the builtin does.
func (w *walker) chdir(c *Command, words []word) {
	if len(words) == 0 || !words[0].lit || !chdirCommands[words[0].s] {
		return
	}
	w.a.chdirs = append(w.a.chdirs, chdirOf(words, c.Assigns, w.a.ShellAssigns))
}

func chdirOf(words []word, assigns, shellAssigns []string) Chdir {
	unknown := Chdir{Target: "?", Unknown: true}
	if words[0].s == "popd" {
		return unknown
	}
	for _, as := range append(append([]string(nil), assigns...), shellAssigns...) {
		if strings.HasPrefix(as, "CDPATH") {
			return unknown
		}
	}
	var operands []word
	endOpts := false
	for _, wd := range words[1:] {
		switch {
		case endOpts || !wd.lit || !strings.HasPrefix(wd.s, "-") || wd.s == "-":
			operands = append(operands, wd)
		case wd.s == "--":
			endOpts = true
		}
	}
	switch {
	case len(operands) == 0 && words[0].s == "pushd":
		return unknown // swaps the top two directories
	case len(operands) == 0:
		return Chdir{Target: "~", Dynamic: true}
	case len(operands) > 1:
		return unknown // bash refuses; zsh substitutes
	}
	t := operands[0]
	if t.lit && (t.s == "-" || words[0].s == "pushd" && (strings.HasPrefix(t.s, "+") || strings.HasPrefix(t.s, "-"))) {
		return unknown
	}
	if t.lit && t.s == "" {
		return Chdir{Target: "."}
	}
	return Chdir{Target: t.s, Dynamic: !t.lit}
}

// loopStart and loopEnd bracket a loop or a function body: a directory
// change inside it may run before any of its commands (the next
// iteration, a later call), so those commands and everything after run in
// a directory the analysis cannot place.
type loopMark struct{ commands, hidden, chdirs int }

func (w *walker) loopStart() loopMark {
	return loopMark{len(w.a.Commands), len(w.a.Hidden), len(w.a.chdirs)}
}

func (w *walker) loopEnd(m loopMark) {
	if len(w.a.chdirs) == m.chdirs {
		return
	}
	u := Chdir{Target: "?", Unknown: true}
	for _, list := range [][]Command{w.a.Commands[m.commands:], w.a.Hidden[m.hidden:]} {
		for i := range list {
			list[i].Chdirs = append(list[i].Chdirs[:len(list[i].Chdirs):len(list[i].Chdirs)], u)
		}
	}
	w.a.chdirs = append(w.a.chdirs, u)
}
