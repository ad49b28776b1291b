package bash

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func TestClassify(t *testing.T) {
	const (
		none = iota
		S    = 1 << iota // search
		R                // read
		L                // list
	)
	cases := []struct {
		cmd      string
		readOnly bool
		kinds    int
	}{
		// read-only
		{"ls", true, L},
		{"ls -la src/", true, L},
		{"pwd", true, L},
		{"du -sh .", true, L},
		{"tree -L 2 -I node_modules", true, L},
		{"cat x", true, R},
		{"cat x\n", true, R},
		{`c''at x`, true, R},
		{`"cat" x`, true, R},
		{`\cat x`, true, R},
		{`c'a't x`, true, R},
		{"head -n 5 a.txt | tail -n 2", true, R},
		{"wc -l a b c", true, R},
		{"jq .name package.json", true, R},
		{"sort -k2 -n x | uniq -c", true, R},
		{"uniq -f 1 x", true, R},
		{"uniq --skip-fields 1 x", true, R},
		{"uniq -", true, R},
		{"cut -d: -f1 /etc/passwd | sort -u", true, R},
		{"diff -u a b", true, R},
		{"stat -c %s x", true, R},
		{"file x", true, R},
		{"cat $HOME/x ${HOME}/y", true, R},
		{`cat "$f"`, true, R},
		{"cat *.go", true, R},
		{"grep -rn foo .", true, S},
		{"grep -r foo . | head -20", true, S | R},
		{"find . -name '*.go'", true, S},
		{`find . -name "*.go" -type f | wc -l`, true, S | R},
		{"find . -newer x -print0", true, S},
		{"rg -n foo src", true, S},
		{"rg --pre-glob '*.gz' --passthru foo", true, S},
		{"ag foo", true, S},
		{"ack foo", true, S},
		{"which go; whereis ls", true, S},
		{"ls && cat x", true, L | R},
		{"ls || pwd", true, L},
		{"ls\ncat x", true, L | R},
		{"ls; cat x", true, L | R},
		{"cat x 2>/dev/null", true, R},
		{"cat x >/dev/null 2>&1", true, R},
		{"cat x &>/dev/null", true, R},
		{"ls 2>&1 >/dev/null", true, L},
		{"cat x >&2", true, R},
		{"cat x 2>&-", true, R},
		{"cat < x", true, R},
		{"cat <<'EOF'\nhello $(rm x)\nEOF", true, R},
		{"cat <<< hello", true, R},
		{"(ls; pwd)", true, L},
		{"{ ls; cat x; }", true, L | R},
		{"if grep -q x f; then cat f; else ls; fi", true, S | R | L},
		{"while false; do ls; done", true, L},
		{"case x in a) ls ;; *) cat y ;; esac", true, L | R},
		{"! grep -q x f", true, S},
		{"ls &", true, L},
		{"echo hi", true, none},
		{"echo hi | cat", true, R},
		{"true && false", true, none},
		{"ls # comment", true, L},

		// compound commands with anything else
		{"cat x; rm -rf y", false, none},
		{"ls && curl http://x", false, none},
		{"echo x | sh", false, none},
		{"ls | xargs rm", false, none},
		{"cat x |& tee y", false, none},
		{"ls\nrm x", false, none},
		{"(ls; rm x)", false, none},
		{"if ls; then rm x; fi", false, none},
		{"while ls; do rm x; done", false, none},
		{"case x in *) rm y ;; esac", false, none},

		// substitutions
		{"cat $(rm x)", false, none},
		{"ls `rm x`", false, none},
		{`cat "$(rm x)"`, false, none},
		{"cat <(rm x)", false, none},
		{"cat x >(rm y)", false, none},
		{"cat <<EOF\n$(rm x)\nEOF", false, none},
		{"echo $((1+2))", false, none},
		{"cat ${x:=y}", false, none},
		{"cat ${!x}", false, none},
		{"cat ${a[$i]}", false, none},
		{"cat ${x/a/b}", false, none},
		{"$CMD x", false, none},
		{"${CMD} x", false, none},
		{`"$(echo cat)" x`, false, none},

		// redirections
		{"cat x > y", false, none},
		{"cat x >> y", false, none},
		{"cat x >| y", false, none},
		{"cat x &> y", false, none},
		{"cat x &>> y", false, none},
		{"cat x >& y", false, none},
		{"cat x <> y", false, none},
		{"cat x 2> err.log", false, none},
		{`cat x > "$f"`, false, none},
		{"cat x > /dev/null/../../tmp/y", false, none},
		{"ls {fd}>/dev/null", false, none},
		{"{ cat x; } > y", false, none},
		{"(cat x) > y", false, none},

		// assignments, definitions, builtins that run code
		{"FOO=1 ls", false, none},
		{"PATH=/tmp ls", false, none},
		{"FOO=1", false, none},
		{"f() { ls; }", false, none},
		{"function f { ls; }; f", false, none},
		{"for PATH in /tmp; do ls; done", false, none},
		{"for ((i=0; i<3; i++)); do ls; done", false, none},
		{"export A=1", false, none},
		{"declare -a x", false, none},
		{"let x=1", false, none},
		{"((x=1))", false, none},
		{"[[ -f x ]]", false, none},
		{"[ -f x ]", false, none},
		{"eval ls", false, none},
		{"source x", false, none},
		{". x", false, none},
		{"exec ls", false, none},
		{"command ls", false, none},
		{"time ls", false, none},
		{"coproc ls", false, none},
		{"cd /tmp && ls", false, none},
		{"printf -v x hi", false, none},

		// command names
		{`r''m x`, false, none},
		{"./cat x", false, none},
		{"/bin/cat x", false, none},
		{"/tmp/x/cat x", false, none},
		{"~/cat x", false, none},
		{`$'\x63'at x`, false, none},
		{`$"cat" x`, false, none},
		{"{cat,x}", false, none},
		{"ca? x", false, none},
		{"ca[t] x", false, none},
		{"awk '{print}' x", false, none},
		{"sed -n 1p x", false, none},
		{"less x", false, none},
		{"git status", false, none},

		// characters
		{"cat x\r", false, none},
		{"TZ=UTC\recho curl x", false, none},
		{"ls\r\nrm x", false, none},
		{"cat x\u00a0y", false, none},
		{"ls \u202e", false, none},
		{"ls \u200b", false, none},
		{"ls \x1b[2J", false, none},
		{"ls \xff", false, none},
		{"ls " + strings.Repeat("a", maxClassifyLen), false, none},

		// parse failures and empty programs
		{"cat 'x", false, none},
		{"ls )", false, none},
		{"if ls", false, none},
		{"", false, none},
		{"# only a comment", false, none},

		// dual-use flags
		{"find . -delete", false, none},
		{`find . -exec rm {} \;`, false, none},
		{"find . -execdir rm {} +", false, none},
		{`find . -ok rm {} \;`, false, none},
		{`find . -okdir rm {} \;`, false, none},
		{"find . -fprint out", false, none},
		{"find . -fprint0 out", false, none},
		{"find . -fprintf out %p", false, none},
		{"find . -fls out", false, none},
		{"find . -name *.go", false, none},
		{"find . $ARGS", false, none},
		{`find . "-delete"`, false, none},
		{`find . -del''ete`, false, none},
		{"sort -o out x", false, none},
		{"sort -ro out x", false, none},
		{"sort --output=out x", false, none},
		{"sort --output out x", false, none},
		{"sort --out=x y", false, none},
		{"sort --compress-program=sh x", false, none},
		{"sort -output x", false, none},
		{"sort $FLAGS x", false, none},
		{"rg --pre sh foo", false, none},
		{"rg --pre=sh foo", false, none},
		{"rg --hostname-bin=sh foo", false, none},
		{"rg -z foo", false, none},
		{"rg -iz foo", false, none},
		{"rg --search-zip foo", false, none},
		{"rg *", false, none},
		{"tree -o out", false, none},
		{"tree -R -H x", false, none},
		{"uniq in out", false, none},
		{"uniq -c in out", false, none},
		{"uniq in -f1", false, none},
		{"uniq -- in out", false, none},
		{"uniq --=x in", false, none},
		{"file -C -m magic", false, none},
		{"diff -l a b", false, none},
		{"diff --paginate a b", false, none},
		{"ag --pager=sh foo", false, none},
		{"ack --pager=sh foo", false, none},
		{"ack -pager=sh foo", false, none},
		{"ack --output='$x' foo", false, none},
	}
	for _, c := range cases {
		got := classify(c.cmd)
		kinds := 0
		if got.search {
			kinds |= S
		}
		if got.read {
			kinds |= R
		}
		if got.list {
			kinds |= L
		}
		if got.readOnly != c.readOnly || kinds != c.kinds {
			t.Errorf("classify(%q) = readOnly %v kinds %03b; want %v %03b", c.cmd, got.readOnly, kinds, c.readOnly, c.kinds)
		}
	}
}

func TestStaticWordUnescapes(t *testing.T) {
	cases := map[string]string{
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
	}
	for in, want := range cases {
		f, err := parseForTest(in)
		if err != nil {
			t.Fatalf("parse %q: %v", in, err)
		}
		got, ok := staticWord(f)
		if !ok || got != want {
			t.Errorf("staticWord(%s) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

func TestStaticWordRefusesExpansions(t *testing.T) {
	for _, in := range []string{`a[b]`, `[a]`, `x*`, `?`, `{a,b}`, `a}`, `~/x`, `$x`, `"$x"`, `$'x'`, `$"x"`, "`x`", `$(x)`, `$((1))`} {
		f, err := parseForTest(in)
		if err != nil {
			t.Fatalf("parse %q: %v", in, err)
		}
		if got, ok := staticWord(f); ok {
			t.Errorf("staticWord(%s) = %q, want not static", in, got)
		}
	}
}

// parseForTest parses s as the argument of a command and returns it.
func parseForTest(s string) (*syntax.Word, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader("x "+s), "")
	if err != nil {
		return nil, err
	}
	return f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1], nil
}
