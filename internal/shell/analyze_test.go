package shell

import (
	"slices"
	"strings"
	"testing"
)

// lines returns the Line of every command.
func lines(cs []Command) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Line()
	}
	return out
}

func TestSeparatorsAndCompounds(t *testing.T) {
	cases := []struct {
		src  string
		want []string
	}{
		// https://code.claude.com/docs/en/permissions#compound-commands
		{"a; b", []string{"a", "b"}},
		{"a;b", []string{"a", "b"}},
		{"a && b", []string{"a", "b"}},
		{"a || b", []string{"a", "b"}},
		{"a | b", []string{"a", "b"}},
		{"a |& b", []string{"a", "b"}},
		{"a & b", []string{"a", "b"}},
		{"a\nb", []string{"a", "b"}},
		{"a;b&&c||d|e", []string{"a", "b", "c", "d", "e"}},
		// security.md §1 #3: subshells, groups and bodies are walked too
		{"(a; b)", []string{"a", "b"}},
		{"{ a; b; }", []string{"a", "b"}},
		{"if a; then b; elif c; then d; else e; fi", []string{"a", "b", "c", "d", "e"}},
		{"while a; do b; done", []string{"a", "b"}},
		{"until a; do b; done", []string{"a", "b"}},
		{"for x in 1 2; do a $x; done", []string{"a $x"}},
		{"select x in 1 2; do a; done", []string{"a"}},
		{"case $x in a) b ;; *) c ;; esac", []string{"b", "c"}},
		{"! a", []string{"a"}},
		{"time a | b", []string{"a", "b"}},
		{"a # comment", []string{"a"}},
		{"((1)) || (b && { c; })", []string{"b", "c"}}, // ((1)) is arithmetic, not a command
		// security.md §1 #2: a quoted separator is not a separator
		{`echo "x; rm -rf y"`, []string{"echo x; rm -rf y"}},
		{`echo 'a && b' \; c`, []string{"echo a && b ; c"}},
	}
	for _, c := range cases {
		a := Analyze(c.src)
		if got := lines(a.Commands); !slices.Equal(got, c.want) {
			t.Errorf("Analyze(%q) commands = %q, want %q", c.src, got, c.want)
		}
		if !a.Proven() {
			t.Errorf("Analyze(%q) unprovable: %q", c.src, a.Unprovable)
		}
	}
}

// security.md §1 #4: no cap that degrades; every command is listed.
func TestNoSubcommandCap(t *testing.T) {
	src := strings.Repeat("true; ", 60) + "curl http://evil.example"
	a := Analyze(src)
	if len(a.Commands) != 61 || a.Commands[60].Line() != "curl http://evil.example" {
		t.Fatalf("got %d commands, last %q", len(a.Commands), a.Commands[len(a.Commands)-1].Line())
	}
	if !a.Proven() {
		t.Errorf("unprovable: %q", a.Unprovable)
	}
}

func TestWrappers(t *testing.T) {
	cases := []struct {
		src      string
		line     string
		wrappers []string
		assigns  []string
	}{
		// https://code.claude.com/docs/en/permissions#wrappers
		{"timeout 5 rm x", "rm x", []string{"timeout"}, nil},
		{"timeout -s KILL 5 rm x", "rm x", []string{"timeout"}, nil},
		{"timeout -sKILL -k 2 --preserve-status 5s rm x", "rm x", []string{"timeout"}, nil},
		{"timeout --signal=KILL --sig KILL 5 rm x", "rm x", []string{"timeout"}, nil},
		{"time rm x", "rm x", []string{"time"}, nil},
		{"time -p rm x", "rm x", []string{"time"}, nil},
		{"nice rm x", "rm x", []string{"nice"}, nil},
		{"nice -n 10 rm x", "rm x", []string{"nice"}, nil},
		{"nice -n10 rm x", "rm x", []string{"nice"}, nil},
		{"nice -10 rm x", "rm x", []string{"nice"}, nil},
		{"nice --adjustment=5 rm x", "rm x", []string{"nice"}, nil},
		{"nohup rm x", "rm x", []string{"nohup"}, nil},
		{"stdbuf -oL rm x", "rm x", []string{"stdbuf"}, nil},
		{"stdbuf -o L -e0 rm x", "rm x", []string{"stdbuf"}, nil},
		{"command rm x", "rm x", []string{"command"}, nil},
		{"command -p rm x", "rm x", []string{"command"}, nil},
		{"builtin cd x", "cd x", []string{"builtin"}, nil},
		{"xargs rm", "rm", []string{"xargs"}, nil},
		// Not stripped: command -v and xargs with flags.
		{"command -v rm", "command -v rm", nil, nil},
		{"xargs -n1 rm", "xargs -n1 rm", nil, nil},
		// security.md R6: the broader list
		{"env rm x", "rm x", []string{"env"}, nil},
		{"env -i A=1 rm x", "rm x", []string{"env"}, []string{"A=1"}},
		{"env -u HOME -i - A=1 B=2 rm x", "rm x", []string{"env"}, []string{"A=1", "B=2"}},
		{"exec rm x", "rm x", []string{"exec"}, nil},
		{"exec -a name rm x", "rm x", []string{"exec"}, nil},
		{"setsid -f rm x", "rm x", []string{"setsid"}, nil},
		{"ionice -c 3 -n7 rm x", "rm x", []string{"ionice"}, nil},
		{"ionice -p 12", "ionice -p 12", nil, nil},
		{"taskset -c 0-3 rm x", "rm x", []string{"taskset"}, nil},
		{"taskset 0x1 rm x", "rm x", []string{"taskset"}, nil},
		{"chrt -f 10 rm x", "rm x", []string{"chrt"}, nil},
		{"chrt -m", "chrt -m", nil, nil},
		{"flock /tmp/l rm x", "rm x", []string{"flock"}, nil},
		{"flock -w 5 /tmp/l rm x", "rm x", []string{"flock"}, nil},
		{"flock /tmp/l -c 'rm x'", "rm x", []string{"flock"}, nil},
		{"flock 9", "flock 9", nil, nil},
		{"watch -n 1 rm x", "rm x", []string{"watch"}, nil},
		{"watch -x rm x", "rm x", []string{"watch"}, nil},
		{"sudo -u root rm x", "rm x", []string{"sudo"}, nil},
		{"sudo -l", "sudo -l", nil, nil},
		{"doas rm x", "rm x", []string{"doas"}, nil},
		{"busybox rm x", "rm x", []string{"busybox"}, nil},
		{"/usr/bin/timeout 5 rm x", "rm x", []string{"timeout"}, nil},
		{"/usr/bin/env A=1 rm x", "rm x", []string{"env"}, []string{"A=1"}},
		// A wrapper outside a system directory is some other program.
		{"./timeout 5 rm x", "./timeout 5 rm x", nil, nil},
		{"/tmp/env rm x", "/tmp/env rm x", nil, nil},
		// A path never names the builtins.
		{"/usr/bin/command rm x", "/usr/bin/command rm x", nil, nil},
		// Wrappers stack, outermost first.
		{"timeout 5 nice -n 1 env A=1 nohup rm x", "rm x", []string{"timeout", "nice", "env", "nohup"}, []string{"A=1"}},
		// A wrapper with no command is the command.
		{"timeout 5", "timeout 5", nil, nil},
		{"env", "env", nil, nil},
		{"env A=1", "env A=1", nil, nil},
		{"nice", "nice", nil, nil},
		// https://code.claude.com/docs/en/permissions#wrappers: leading
		// assignments are kept apart from Argv
		{"NODE_ENV=test npm test", "npm test", nil, []string{"NODE_ENV=test"}},
		{"A=1 B='x y' timeout 5 rm x", "rm x", []string{"timeout"}, []string{"A=1", "B=x y"}},
	}
	for _, c := range cases {
		a := Analyze(c.src)
		if len(a.Commands) != 1 {
			t.Errorf("Analyze(%q): %d commands %q", c.src, len(a.Commands), lines(a.Commands))
			continue
		}
		got := a.Commands[0]
		if got.Line() != c.line || !slices.Equal(got.Wrappers, c.wrappers) || !slices.Equal(got.Assigns, c.assigns) {
			t.Errorf("Analyze(%q) = %q wrappers %q assigns %q; want %q %q %q",
				c.src, got.Line(), got.Wrappers, got.Assigns, c.line, c.wrappers, c.assigns)
		}
		if !a.Proven() {
			t.Errorf("Analyze(%q) unprovable: %q", c.src, a.Unprovable)
		}
	}
}

// security.md R6: a wrapper whose arguments cannot be read is unprovable,
// and stays the command.
func TestWrapperProblems(t *testing.T) {
	for _, src := range []string{
		"timeout --bogus 5 rm x",        // unknown option
		"timeout $T rm x",               // $T may split into "5 sh -c evil"
		"nice -n $N rm x",               // ditto
		"env -S 'rm x'",                 // env's own splitting
		"env -C / rm -rf usr",           // relative paths resolve elsewhere
		"env A=$X rm x",                 // non-literal environment
		"sudo -i rm x",                  // runs through a login shell
		"sudo -s rm x",                  //
		"nice time -o out rm x",         // /usr/bin/time -o writes a file
		"bash -c \"$CMD\"",              // non-literal script
		"bash -i -c ls",                 // interactive: aliases, rc files
		"bash --pretty-print -c ls",     // unknown long option
		"watch 'ls' $(rm x)",            // substitution
		"exec -a $N rm x",               // non-literal option value
		"stdbuf --output=$M rm x",       //
		"ionice -c $C rm x",             //
		"flock -E $E /tmp/l rm x",       //
		"chrt --sched-runtime $R 1 ls",  //
		"taskset --cpu-list $L 1 rm x",  //
		"command $C rm x",               // non-literal where an option may be
		"setsid --bogus rm x",           //
		"env --i rm x",                  // ambiguous abbreviation (--ignore-environment, --ignore-signal)
		"timeout 5 $CMD",                // dynamic program after the wrapper
		"bash -kc 'ls LD_PRELOAD=x.so'", // set -k
		"bash -o keyword -c ls",         //
		"bash -O extglob -c ls",         //
		"env -- $X",                     //
		"sh -c 'a' && bash -c 'b $(c)'", // nested substitution
	} {
		a := Analyze(src)
		if a.Proven() {
			t.Errorf("Analyze(%q) proven: %q", src, lines(a.Commands))
		}
		if len(a.Commands) == 0 {
			t.Errorf("Analyze(%q) lost the command", src)
		}
	}
}

func TestNestedShells(t *testing.T) {
	cases := []struct {
		src      string
		want     []string
		wrappers []string // of the last command
	}{
		// security.md §1 #7, R6: sh/bash -c 'literal' is analysed
		{"sh -c 'rm x'", []string{"rm x"}, []string{"sh -c"}},
		{"bash -c 'ls && rm x'", []string{"ls", "rm x"}, []string{"bash -c"}},
		{"dash -c 'rm x'", []string{"rm x"}, []string{"dash -c"}},
		{"zsh -c 'rm x'", []string{"rm x"}, []string{"zsh -c"}},
		{"bash -ec 'rm x'", []string{"rm x"}, []string{"bash -c"}},
		{"bash -e -o pipefail -c 'rm x' name arg", []string{"rm x"}, []string{"bash -c"}},
		{"bash -lc 'rm x'", []string{"rm x"}, []string{"bash -c"}},
		{"bash --norc --noprofile -c 'rm x'", []string{"rm x"}, []string{"bash -c"}},
		{"/bin/sh -c 'rm x'", []string{"rm x"}, []string{"sh -c"}},
		{`sh -c "bash -c 'rm x'"`, []string{"rm x"}, []string{"sh -c", "bash -c"}},
		{"timeout 5 bash -c 'nice rm x'", []string{"rm x"}, []string{"timeout", "bash -c", "nice"}},
		{"eval 'rm x'", []string{"eval rm x", "rm x"}, []string{"eval"}},
		{"watch 'ls | rm x'", []string{"ls", "rm x"}, []string{"watch"}},
		// A here-document or here-string given to a shell is its script.
		{"bash <<'EOF'\nls\nrm $x\nEOF", []string{"ls", "rm $x"}, []string{"bash -s"}},
		{"sh <<EOF\nrm x\nEOF", []string{"rm x"}, []string{"sh -s"}},
		{"bash <<-EOF\n\trm x\nEOF", []string{"rm x"}, []string{"bash -s"}},
		{"bash -s arg <<< 'rm x'", []string{"rm x"}, []string{"bash -s"}},
		{"timeout 5 bash <<< 'rm x'", []string{"rm x"}, []string{"timeout", "bash -s"}},
		// Without -c the shell runs a file or its input: it is the command.
		{"bash script.sh", []string{"bash script.sh"}, nil},
		{"echo ls | sh", []string{"echo ls", "sh"}, nil},
		{"bash -s < x", []string{"bash -s"}, nil},
		{"bash <<EOF\nrm $x \\$y\nEOF", []string{"bash"}, nil}, // unquoted body with escapes
		{"bash <<< 'rm x' < f", []string{"bash"}, nil},         // the last input wins
		// An empty script: the shell itself is what runs.
		{"sh -c ''", []string{"sh -c "}, nil},
	}
	for _, c := range cases {
		a := Analyze(c.src)
		got := lines(a.Commands)
		if !slices.Equal(got, c.want) {
			t.Errorf("Analyze(%q) = %q, want %q", c.src, got, c.want)
			continue
		}
		if last := a.Commands[len(a.Commands)-1]; !slices.Equal(last.Wrappers, c.wrappers) {
			t.Errorf("Analyze(%q) wrappers %q, want %q", c.src, last.Wrappers, c.wrappers)
		}
	}
}

// security.md R6: nesting is bounded; deeper is unprovable.
func TestNestingBound(t *testing.T) {
	nest := func(n int) string {
		s := "rm x"
		for range n {
			s = "sh -c " + shellQuoteForTest(s)
		}
		return s
	}
	a := Analyze(nest(MaxDepth))
	if !a.Proven() || len(a.Commands) != 1 || a.Commands[0].Line() != "rm x" || len(a.Commands[0].Wrappers) != MaxDepth {
		t.Errorf("depth %d: %q %q", MaxDepth, lines(a.Commands), a.Unprovable)
	}
	a = Analyze(nest(MaxDepth + 1))
	if a.Proven() {
		t.Errorf("depth %d proven: %q", MaxDepth+1, lines(a.Commands))
	}
}

func shellQuoteForTest(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Env assignments and redirections of a wrapper that runs a script reach
// the script's commands: FOO=1 sh -c 'ls' runs ls with FOO=1.
func TestNestedInheritsEnvAndRedirects(t *testing.T) {
	// security.md §1 #5, §1 #10
	a := Analyze("PATH=/tmp sh -c 'ls; echo x' > out")
	for _, c := range a.Commands {
		if !slices.Equal(c.Assigns, []string{"PATH=/tmp"}) || len(c.Redirects) != 1 || c.Redirects[0].Target != "out" || !c.Redirects[0].Write {
			t.Errorf("%q: assigns %q redirects %+v", c.Line(), c.Assigns, c.Redirects)
		}
	}
	// A redirection on a group applies to every command in it.
	a = Analyze("{ ls; cat x; } > out")
	for _, c := range a.Commands {
		if len(c.Redirects) != 1 || !c.Redirects[0].Write {
			t.Errorf("%q: redirects %+v", c.Line(), c.Redirects)
		}
	}
}

func TestQuoteRemoval(t *testing.T) {
	cases := []struct {
		src  string
		argv []string
	}{
		// security.md R7: quote splicing is normalised (bash runs rm)
		{`r''m x`, []string{"rm", "x"}},
		{`\rm x`, []string{"rm", "x"}},
		{`"rm" x`, []string{"rm", "x"}},
		{`r"m" x`, []string{"rm", "x"}},
		// ANSI-C quoting is decoded (bash manual "ANSI-C Quoting")
		{`$'\x72m' x`, []string{"rm", "x"}},
		{`$'\162m' x`, []string{"rm", "x"}},
		{`$'r\u006d' x`, []string{"rm", "x"}},
		{`echo $'a\tb\'c'`, []string{"echo", "a\tb'c"}},
		{`echo $'a\x00b'`, []string{"echo", "a"}},
		{`echo $'\q\x'`, []string{"echo", `\q\x`}},
		{`echo $'\cA'`, []string{"echo", "\x01"}},
		// openai/codex#20277 (security.md §2): escapes are removed as bash does
		{`echo -e\xec "a\"b\\c\x" 'a\b'`, []string{"echo", "-exec", `a"b\c\x`, `a\b`}},
		{"echo a\\\nb", []string{"echo", "ab"}},
		// A lone [ is the test command, {} is not a brace expansion.
		{"[ -f x ]", []string{"[", "-f", "x", "]"}},
		{`find . -exec rm {} \;`, []string{"find", ".", "-exec", "rm", "{}", ";"}},
		{"git log HEAD~3", []string{"git", "log", "HEAD~3"}},
		{"echo --prefix=~/x", []string{"echo", "--prefix=~/x"}},
	}
	for _, c := range cases {
		a := Analyze(c.src)
		if len(a.Commands) != 1 || !slices.Equal(a.Commands[0].Argv, c.argv) || a.Commands[0].Dynamic {
			t.Errorf("Analyze(%q) = %+v, want Argv %q", c.src, a.Commands, c.argv)
		}
		if !a.Proven() && c.argv[1] != "\x01" {
			t.Errorf("Analyze(%q) unprovable: %q", c.src, a.Unprovable)
		}
	}
}

func TestDynamicArguments(t *testing.T) {
	cases := []struct {
		src  string
		argv []string
	}{
		// The raw source word is kept for a non-literal argument.
		{`cat $HOME/x "$f" ${g}`, []string{"cat", "$HOME/x", `"$f"`, "${g}"}},
		{"ls *.go", []string{"ls", "*.go"}},
		{"ls a?", []string{"ls", "a?"}},
		{"ls [ab]", []string{"ls", "[ab]"}},
		{"ls @(a|b)", []string{"ls", "@(a|b)"}},
		{"echo {a,b}", []string{"echo", "{a,b}"}},
		{"echo {1..3}", []string{"echo", "{1..3}"}},
		// ~ is expanded by bash: treated as dynamic.
		{"rm -rf ~", []string{"rm", "-rf", "~"}},
		{"ls ~/x", []string{"ls", "~/x"}},
		{"echo a=~", []string{"echo", "a=~"}}, // bash 5.2 expands this
		{`echo $"x"`, []string{"echo", `$"x"`}},
		{`echo $'\u00e9'`, []string{"echo", `$'\u00e9'`}}, // locale-dependent
		{"echo ${x:-y}", []string{"echo", "${x:-y}"}},
	}
	for _, c := range cases {
		a := Analyze(c.src)
		if len(a.Commands) != 1 || !slices.Equal(a.Commands[0].Argv, c.argv) || !a.Commands[0].Dynamic {
			t.Errorf("Analyze(%q) = %+v, want dynamic Argv %q", c.src, a.Commands, c.argv)
		}
		if !a.Proven() {
			t.Errorf("Analyze(%q) unprovable: %q", c.src, a.Unprovable)
		}
	}
}

func TestUnprovable(t *testing.T) {
	cases := []struct {
		src  string
		why  string // a substring of one reason
		cmds []string
	}{
		// security.md R1: a parse error; the lines before it still run
		{"cat 'x", "parse", nil},
		{"ls\nrm x )", "parse", []string{"ls"}},
		// security.md R3, §3: substitutions anywhere, double quotes included
		{"echo $(rm x)", "$(...)", []string{"echo $(rm x)"}},
		{"echo `rm x`", "`...`", []string{"echo `rm x`"}},
		{`echo "$(rm x)"`, "$(...)", []string{`echo "$(rm x)"`}},
		{`git commit -m "fix ` + "`rm x`" + `"`, "`...`", nil}, // google-gemini/gemini-cli#14926
		{"cat <(rm x)", "process substitution", nil},
		{"tee >(rm x)", "process substitution", nil},
		{"echo x > $(rm y)", "$(...)", nil},
		{"cat <<EOF\n$(rm x)\nEOF", "$(...)", nil},
		{"A=$(rm x) ls", "$(...)", nil},
		{"case $(rm x) in *) ;; esac", "$(...)", nil},
		{"for f in $(rm x); do :; done", "$(...)", nil},
		// security.md R2
		{"eval ls", "eval", nil},
		{"source x.sh", "source", nil},
		{". x.sh", ". runs", nil},
		{"alias ls=rm", "alias", nil},
		{"f() { ls; }", "function", nil},
		{"function f { ls; }", "function", nil},
		{"trap 'rm x' EXIT", "trap", nil},
		{"enable -f x.so y", "enable", nil},
		{"shopt -s expand_aliases", "shopt", nil},
		{"coproc ls", "coproc", nil},
		{"hash -p /tmp/evil ls", "hash -p", nil},
		{"compgen -C 'rm x' y", "compgen", nil}, // runs rm (verified on bash 5.2)
		{"mapfile -C 'rm x' -c 1 < f", "-C", nil},
		// security.md R7: dynamic command names
		{"$CMD x", "not a literal", nil},
		{"${CMD} x", "not a literal", nil},
		{"{curl,-s} http://x", "not a literal", nil},
		{"/usr/bin/cur? http://x", "not a literal", nil},
		{"c[u]rl x", "parse", nil}, // mvdan.cc/sh refuses it; bash globs it
		{"cat${IFS}/etc/passwd", "not a literal", nil},
		{"~/bin/x", "not a literal", nil},
		{"'' x", "empty", nil},
		// security.md R3: arithmetic contexts that evaluate subscripts
		{"printf -v 'x[$(rm y)]' hi", "printf", nil},
		{"printf -vx[1] hi", "printf", nil},
		{"test -v 'a[$(rm y)]'", "-v", nil},
		{"[ -v 'a[0]' ]", "-v", nil},
		{"[[ 'a[$(rm y)]' -eq 0 ]]", "arithmetic", nil},
		{"[[ $x -lt 3 ]]", "arithmetic", nil},
		{"[[ -v a[1] ]]", "-v", nil},
		{"declare -i x", "declare", nil},
		{"local x=1", "local", nil},
		{"typeset x", "typeset", nil},
		{"let x=1", "let", nil},
		{"read 'a[$(rm y)]'", "read", nil},
		{"read -a 'a[0]'", "read", nil},
		{"read -r $name", "read", nil},
		{"unset 'a[$(rm y)]'", "unset", nil},
		{"wait -p 'a[1]'", "wait", nil},
		{"export 'a[$(rm y)]=1'", "export", nil},
		{"export $x", "export", nil},
		{"echo $((x))", "arithmetic", nil},
		{"echo $((1+$y))", "arithmetic", nil},
		{"((x=1))", "arithmetic", nil},
		{"for ((i=0; i<3; i++)); do :; done", "arithmetic", nil},
		{"echo ${a[$i]}", "subscript", nil},
		{"echo ${a[i]}", "subscript", nil},
		{"echo ${x:$off}", "arithmetic", nil},
		{"echo ${!x}", "indirect", nil},
		{"echo ${x@P}", "@P", nil},
		{"echo ${x:=y}", "assigns", nil},
		{"a[$i]=1 ls", "parse", nil},
		{"a[$i]=1", "arithmetic", nil},
		{"a[0]=1", "", nil},
		{"arr=([$i]=x)", "arithmetic", nil},
		{"arr=($(rm x))", "$(...)", nil},
		{`test "$a" "$b"`, "-v", nil},
		{"[ -n $x ]", "unquoted expansion", nil},
		{`printf "$f" "$x"`, "printf", nil},
		{"wait $pids", "unquoted expansion", nil},
		{"set -k; ls LD_PRELOAD=x.so", "set -k", nil},
		{"set -o keyword", "set -k", nil},
		{"set $x", "set -k", nil},
		// security.md R10, §1 #6: characters
		{"TZ=UTC\recho curl evil", "U+000D", []string{"curl evil"}},
		{"ls\r\nrm x", "U+000D", []string{"ls\r", "rm x"}},
		{"ls \x00", "U+0000", nil},
		{"ls \x1b[2J", "U+001B", nil},
		{"ls \u0085", "U+0085", nil},
		{"cat x\u00a0y", "U+00A0", nil},
		{"ls \u202e", "U+202E", nil},
		{"ls \u2066", "U+2066", nil},
		{"ls \u200b", "U+200B", nil},
		{"ls \ufeff", "U+FEFF", nil},
		{"ls \u3000", "U+3000", nil},
		{"ls \U000E0041", "U+E0041", nil},
		{"ls \xff", "UTF-8", nil},
		{"ｇｉｔ status", "printable ASCII", nil},
		{`$'\x01'ls`, "printable ASCII", nil},
		// https://code.claude.com/docs/en/permissions#read-only-commands
		{"ls " + strings.Repeat("a", MaxCommandLen), "characters long", nil},
		// security.md §1 #10: assignments in the shell that change how later commands run
		{"PATH=/tmp; ls", "PATH", []string{"ls"}},
		{"export PATH=/tmp:$PATH", "PATH", nil},
		{"for PATH in /tmp; do ls; done", "PATH", nil},
		{"IFS=/ read a b", "", nil}, // leading assignment: fine
		{"FOO=$BAR ls", "not a literal", nil},
		{"> f", "redirection without a command", nil},
		{"zsh -c 'ls *(e:rm x:)'", "zsh", nil},
	}
	for _, c := range cases {
		a := Analyze(c.src)
		if c.why == "" {
			if !a.Proven() {
				t.Errorf("Analyze(%q) unprovable: %q", c.src, a.Unprovable)
			}
			continue
		}
		if a.Proven() {
			t.Errorf("Analyze(%q) proven: %q", c.src, lines(a.Commands))
			continue
		}
		if !slices.ContainsFunc(a.Unprovable, func(s string) bool { return strings.Contains(s, c.why) }) {
			t.Errorf("Analyze(%q) reasons %q, want one with %q", c.src, a.Unprovable, c.why)
		}
		if c.cmds != nil && !slices.Equal(lines(a.Commands), c.cmds) {
			t.Errorf("Analyze(%q) commands %q, want %q", c.src, lines(a.Commands), c.cmds)
		}
	}
}

func TestProvableExpansions(t *testing.T) {
	for _, src := range []string{
		// Only plain forms of parameter expansion and numeric arithmetic.
		"echo $x ${x} $1 $# $? ${#x} ${x%.go} ${x/a/b} ${x^^} ${a[@]} ${a[0]} ${x@Q}",
		"echo $((1+2)) $((0x1f * 2#101))",
		"[[ $# -eq 0 && -n $x ]]",
		`[[ "$?" -ne 1 ]]`,
		"[[ -v HOME ]]",
		"test -v HOME",
		"read -r line",
		"read -p 'a[b]: ' -a arr",
		"printf -v out '%s' x",
		"export A=1 B",
		"A=1; B=2",
		"arr=(a 'b c' [2]=d)",
		"mapfile -t lines < f",
		"unset x",
		`[ -n "$x" ] && [ "$a" = "$b" ] && [ -f "$f" ] && test "$x" -eq 1`,
		`printf '%s\n' "$x" && printf "$x"`,
		"wait $! && wait",
		"set -euo pipefail; set -- $x",
		"cat <<'EOF'\n$(rm x) `rm y`\nEOF",
		"cat <<EOF\n$HOME\nEOF",
	} {
		if a := Analyze(src); !a.Proven() {
			t.Errorf("Analyze(%q) unprovable: %q", src, a.Unprovable)
		}
	}
}

func TestHidden(t *testing.T) {
	cases := []struct {
		src    string
		hidden []string
	}{
		// https://code.claude.com/docs/en/permission-modes#critical-paths:
		// the check sees inside $(...), backticks and <(...)
		{`echo "$(rm -rf ~)"`, []string{"rm -rf ~"}},
		{"echo `rm -rf /`", []string{"rm -rf /"}},
		{"diff <(rm -rf /) x", []string{"rm -rf /"}},
		{"echo $(ls $(rm x))", []string{"ls $(rm x)", "rm x"}},
		{"cat <<EOF\n$(rm x)\nEOF", []string{"rm x"}},
		{"echo $(sh -c 'rm x')", []string{"rm x"}},
		{"sh -c 'echo $(rm x)'", []string{"rm x"}},
		{"x=$(rm a) ls", []string{"rm a"}},
	}
	for _, c := range cases {
		a := Analyze(c.src)
		if got := lines(a.Hidden); !slices.Equal(got, c.hidden) {
			t.Errorf("Analyze(%q) Hidden = %q, want %q", c.src, got, c.hidden)
		}
		if a.Proven() {
			t.Errorf("Analyze(%q) proven", c.src)
		}
		for _, h := range a.Hidden {
			if slices.ContainsFunc(a.Commands, func(c Command) bool { return c.Raw == h.Raw && c.Line() == h.Line() }) {
				t.Errorf("Analyze(%q): hidden %q also in Commands", c.src, h.Line())
			}
		}
	}
}

func TestRedirects(t *testing.T) {
	cases := []struct {
		src  string
		want []Redirect
	}{
		// https://code.claude.com/docs/en/permissions#redirections, security.md R4
		{"echo x > out", []Redirect{{Op: ">", FD: 1, Target: "out", Write: true}}},
		{"echo x >> out", []Redirect{{Op: ">>", FD: 1, Target: "out", Write: true}}},
		{"echo x >| out", []Redirect{{Op: ">|", FD: 1, Target: "out", Write: true}}},
		{"echo x &> out", []Redirect{{Op: "&>", FD: 1, Target: "out", Write: true}}},
		{"echo x &>> out", []Redirect{{Op: "&>>", FD: 1, Target: "out", Write: true}}},
		{"echo x 2> err", []Redirect{{Op: ">", FD: 2, Target: "err", Write: true}}},
		{"echo x >& out", []Redirect{{Op: ">&", FD: 1, Target: "out", Write: true}}},
		{"echo x <> f", []Redirect{{Op: "<>", FD: 0, Target: "f", Write: true}}},
		{"echo x > ~/.bashrc", []Redirect{{Op: ">", FD: 1, Target: "~/.bashrc", Write: true, Dynamic: true}}},
		{`echo x > "$f"`, []Redirect{{Op: ">", FD: 1, Target: `"$f"`, Write: true, Dynamic: true}}},
		{"echo x > 'o u t'", []Redirect{{Op: ">", FD: 1, Target: "o u t", Write: true}}},
		// /dev/null and descriptor duplication do not write files
		{"echo x > /dev/null", []Redirect{{Op: ">", FD: 1, Target: "/dev/null"}}},
		{"echo x &>/dev/null", []Redirect{{Op: "&>", FD: 1, Target: "/dev/null"}}},
		{"echo x 2>&1", []Redirect{{Op: ">&", FD: 2, Target: "&1"}}},
		{"echo x >&2", []Redirect{{Op: ">&", FD: 1, Target: "&2"}}},
		{"echo x 2>&-", []Redirect{{Op: ">&", FD: 2, Target: "&-"}}},
		{"echo x 3>&1-", []Redirect{{Op: ">&", FD: 3, Target: "&1-"}}},
		{"echo x > /dev/null/../../tmp/y", []Redirect{{Op: ">", FD: 1, Target: "/dev/null/../../tmp/y", Write: true}}},
		{"cat < in", []Redirect{{Op: "<", FD: 0, Target: "in"}}},
		{"cat <<EOF\nx\nEOF", []Redirect{{Op: "<<", FD: 0}}},
		{"cat <<-EOF\nx\nEOF", []Redirect{{Op: "<<-", FD: 0}}},
		{"cat <<< x", []Redirect{{Op: "<<<", FD: 0}}},
		{"ls {fd}>/dev/null", []Redirect{{Op: ">", FD: -1, Target: "/dev/null"}}},
		{">out echo x", []Redirect{{Op: ">", FD: 1, Target: "out", Write: true}}},
	}
	for _, c := range cases {
		a := Analyze(c.src)
		if len(a.Commands) != 1 || !slices.Equal(a.Commands[0].Redirects, c.want) {
			t.Errorf("Analyze(%q) = %+v, want redirects %+v", c.src, a.Commands, c.want)
		}
	}
}

func TestRaw(t *testing.T) {
	cases := []struct {
		src string
		raw []string
	}{
		{"git status && go test ./... 2>&1 | tail -20", []string{"git status", "go test ./... 2>&1", "tail -20"}},
		{"FOO=1 timeout 5 rm x >/dev/null; ls", []string{"FOO=1 timeout 5 rm x >/dev/null", "ls"}},
		{"bash -c 'ls -l; rm  x'", []string{"ls -l", "rm  x"}},
		{"! >out cat x &", []string{">out cat x"}},
	}
	for _, c := range cases {
		a := Analyze(c.src)
		var got []string
		for _, cmd := range a.Commands {
			got = append(got, cmd.Raw)
		}
		if !slices.Equal(got, c.raw) {
			t.Errorf("Analyze(%q) Raw = %q, want %q", c.src, got, c.raw)
		}
	}
}

func TestShellAssigns(t *testing.T) {
	cases := []struct {
		src  string
		want []string
	}{
		{"A=1 B='x y'", []string{"A=1", "B=x y"}},
		{"export A=1 B", []string{"A=1", "B"}},
		{"for f in a; do :; done", []string{"f"}},
		{"read -r x y", []string{"x", "y"}},
		{"printf -v out hi", []string{"out"}},
		{"A=1 ls", nil},
	}
	for _, c := range cases {
		if got := Analyze(c.src).ShellAssigns; !slices.Equal(got, c.want) {
			t.Errorf("Analyze(%q).ShellAssigns = %q, want %q", c.src, got, c.want)
		}
	}
}

func TestNameAndLine(t *testing.T) {
	cases := []struct {
		src, name, line string
	}{
		{"/usr/bin/rm -rf x", "rm", "/usr/bin/rm -rf x"},
		{"./x a  b", "x", "./x a b"},
		{`git   commit -m "a  b"`, "git", "git commit -m a  b"},
	}
	for _, c := range cases {
		cmd := Analyze(c.src).Commands[0]
		if cmd.Name() != c.name || cmd.Line() != c.line {
			t.Errorf("Analyze(%q): Name %q Line %q; want %q %q", c.src, cmd.Name(), cmd.Line(), c.name, c.line)
		}
	}
	if (Command{}).Name() != "" {
		t.Error("Name of an empty command is not empty")
	}
}

func TestEmptyAndComments(t *testing.T) {
	for _, src := range []string{"", " \n\t", "# only a comment"} {
		a := Analyze(src)
		if a == nil || len(a.Commands) != 0 || !a.Proven() || a.ReadOnly() {
			t.Errorf("Analyze(%q) = %+v", src, a)
		}
	}
}

// security.md §1 #4, R8: a long hostile command cannot make the analysis
// slow through its reasons; the list is bounded, the verdict unchanged.
func TestReasonsBounded(t *testing.T) {
	var b strings.Builder
	for i := range 5000 {
		b.WriteString("$'\\x0" + string(rune('1'+i%7)) + "'x" + strings.Repeat("y", i%50) + "; ")
	}
	a := Analyze(b.String())
	if a.Proven() || len(a.Unprovable) != maxReasons+1 || len(a.Commands) != 5000 {
		t.Errorf("%d reasons, %d commands", len(a.Unprovable), len(a.Commands))
	}
}
