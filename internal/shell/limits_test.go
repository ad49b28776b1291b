package shell

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckLimits(t *testing.T) {
	over := MaxStructure + 1
	tests := []struct {
		name string
		src  string
		bad  bool
	}{
		{"ordinary", "cd src && go test ./... | tee log.txt", false},
		{"at the bound", strings.Repeat("(", MaxStructure) + "a", false},
		{"nested subshells", strings.Repeat("(", over) + "a" + strings.Repeat(")", over), true},
		{"nested substitutions", strings.Repeat("$(", over) + "a" + strings.Repeat(")", over), true},
		{"in double quotes", strings.Repeat(`"$(`, over) + "a", true},
		{"groups", strings.Repeat("{ ", over) + "a", true},
		{"pipes", strings.Repeat("a | ", over) + "a", true},
		{"and lists", strings.Repeat("a && ", over/2+1) + "a", true},
		{"or lists", strings.Repeat("a || ", over/2+1) + "a", true},
		{"ifs", strings.Repeat("if ", over) + "a", true},
		{"whiles", strings.Repeat("while ", over) + "a", true},
		{"cases", strings.Repeat("case x in x) ", over) + "a", true},
		{"parameter expansions", strings.Repeat("${a:-", over) + "x", true},
		{"backquotes", strings.Repeat("`", over), true},
		{"keywords only as words", strings.Repeat("iffy ", over), false},
		// A quote-aware scan would skip this quoted text; the count does
		// not, so closing brackets in a string cannot hide real ones.
		{"quoted closers do not cancel", strings.Repeat("( '))' ", over), true},
		{"arithmetic chains", "echo $((" + strings.Repeat("1+", over) + "1))", true},
		{"arithmetic in an index", "echo ${a[" + strings.Repeat("1*", over) + "1]}", true},
		{"let", "let x=" + strings.Repeat("1-", over) + "1", true},
		{"operators without arithmetic are words", "echo " + strings.Repeat("a-b ", over), false},
		{"statements at the bound", strings.Repeat("a;", MaxStatements), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckLimits(tc.src)
			var le *LimitError
			if tc.bad != (errors.As(err, &le) && !le.Statements) {
				t.Fatalf("CheckLimits = %v, want a structure LimitError: %v", err, tc.bad)
			}
		})
	}
	for _, src := range []string{strings.Repeat("a;", MaxStatements+1), strings.Repeat("a\n", MaxStatements+1)} {
		var le *LimitError
		if err := CheckLimits(src); !errors.As(err, &le) || !le.Statements {
			t.Errorf("CheckLimits(%.10q...) = %v, want a statements LimitError", src, err)
		}
	}
}

// A command over the bound is not parsed: the analysis is unprovable,
// which is what makes a policy ask instead of allow.
func TestAnalyzeRefusesDeepNestingUnparsed(t *testing.T) {
	a := Analyze(strings.Repeat("(", 1500) + "ls" + strings.Repeat(")", 1500))
	if len(a.Commands) != 0 || len(a.Unprovable) != 1 || !strings.Contains(a.Unprovable[0], "more than 1000 brackets") {
		t.Fatalf("got %d commands, unprovable %q", len(a.Commands), a.Unprovable)
	}
}
