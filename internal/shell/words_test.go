package shell

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// wordFor parses s as the argument of a command and converts it.
func wordFor(t *testing.T, s string) word {
	t.Helper()
	src := "x " + s
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	w := &walker{a: &Analysis{}, src: src}
	return w.word(f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1])
}

func TestWordUnescapes(t *testing.T) {
	cases := map[string]string{
		// security.md R7: quote splicing is removed as bash removes it
		`cat`:         "cat",
		`c''at`:       "cat",
		`"c"a't'`:     "cat",
		`\c\a\t`:      "cat",
		`"a\"b\\c\x"`: `a"b\c\x`,
		`'a\b'`:       `a\b`,
		`"-del"ete`:   "-delete",
		`[`:           "[",
		`'[a]'`:       "[a]",
		`\[a]`:        "[a]",
		`{}`:          "{}",
		`a{b}`:        "a{b}",
		`'{a,b}'`:     "{a,b}",
		`\{a,b}`:      "{a,b}",
		`\*`:          "*",
		`"*"`:         "*",
		`x\~`:         "x~",
		`\~`:          "~",
		`'~'`:         "~",
		`a:~`:         "a:~",
		`--opt=~`:     "--opt=~",
		// bash manual "ANSI-C Quoting"
		`$'\x63'at`:         "cat",
		`$'\e[0m'`:          "\x1b[0m",
		`$'\101\x42\u0043'`: "ABC",
		`$'a\'b'`:           "a'b",
		`$'\\'`:             `\`,
		`$'\c@'`:            "\x00"[:0],
	}
	for in, want := range cases {
		got := wordFor(t, in)
		if !got.lit || got.s != want {
			t.Errorf("word(%s) = %q, lit %v; want %q", in, got.s, got.lit, want)
		}
	}
}

func TestWordRefusesExpansions(t *testing.T) {
	// security.md R3, R7: what bash expands is not a literal
	for _, in := range []string{
		`a[b]`, `[a]`, `x*`, `?`, `{a,b}`, `a{1..3}`, `~/x`, `~`, `~root`, `a=~/x`, `x=a:~`,
		`$x`, `"$x"`, `$"x"`, "`x`", `$(x)`, `$((1))`, `@(a|b)`, `<(x)`, `${x}`, `$'\u00e9'`,
	} {
		if got := wordFor(t, in); got.lit {
			t.Errorf("word(%s) = %q, want not a literal", in, got.s)
		} else if got.s != in {
			t.Errorf("word(%s) kept %q, want the source text", in, got.s)
		}
	}
}

func TestWordSplits(t *testing.T) {
	cases := map[string]bool{
		`$x`: true, `a$x`: true, `$(x)`: true, `*`: true, `[ab]`: true, `{a,b}`: true, `@(a)`: true,
		`"$x"`: false, `$#`: false, `"$@"`: true, `"${a[@]}"`: true, `"${a[0]}"`: true, `$!`: false, `~`: false, `"*"`: false, `[`: false,
	}
	for in, want := range cases {
		if got := wordFor(t, in); got.splits != want {
			t.Errorf("word(%s).splits = %v, want %v", in, got.splits, want)
		}
	}
}

// security.md §1 #6: the byte standing for \r must be an ordinary word
// character for the parser, as \r is for bash.
func TestCRStandInIsAWordByte(t *testing.T) {
	for b := byte(1); b < 0x20; b++ {
		if b == '\t' || b == '\n' || b == '\r' {
			continue
		}
		src := "TZ=UTC" + string(rune(b)) + "echo curl evil"
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
		if err != nil {
			t.Errorf("byte %#x: %v", b, err)
			continue
		}
		call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
		if !ok || len(call.Assigns) != 1 || len(call.Args) != 2 || call.Args[0].Lit() != "curl" {
			t.Errorf("byte %#x is not read as part of a word", b)
		}
	}
	// With \x01 to \x05 in use, the stand-in is another byte.
	a := Analyze("\x01\x02\x03\x04\x05; TZ=UTC\recho curl evil")
	if last := a.Commands[len(a.Commands)-1]; last.Line() != "curl evil" || last.Assigns[0] != "TZ=UTC\recho" {
		t.Errorf("got %+v", last)
	}
}
