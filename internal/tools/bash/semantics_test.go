package bash

import "testing"

func TestBenignExit(t *testing.T) {
	for _, tt := range []struct {
		command string
		code    int
		want    bool
	}{
		{"grep x a.txt", 1, true},
		{"grep x a.txt", 2, false},
		{"rg x", 1, true},
		{"egrep x a", 1, true},
		{"find nowhere", 1, true},
		{"diff a b", 1, true},
		{"git diff --no-index a b", 1, true},
		{"git status", 1, false},
		{"test -f x", 1, true},
		{"[ -f x ]", 1, true},
		{"[[ -f x ]]", 1, false},
		{"cmp a b", 1, false},
		{"false", 1, false},
		{"cat a | grep x", 1, true},
		{"echo a; grep x a", 1, true},
		{"echo a && grep x a", 1, true},
		{"grep x a && echo yes", 1, false},
		{"grep x a\n", 1, true},
		{"echo x\ngrep x a", 1, true},
		{"grep 'a;b|c' f", 1, true},
		{`grep "a && b" f`, 1, true},
		{"grep x f 2>&1", 1, true},
		{"grep x f &> out", 1, true},
		{"LANG=C grep x f", 1, false},
		{"command grep x f", 1, false},
		{"grep x f", 0, false},
	} {
		if got := benignExit(tt.command, tt.code); got != tt.want {
			t.Errorf("benignExit(%q, %d) = %v, want %v", tt.command, tt.code, got, tt.want)
		}
	}
}
