package policy

import (
	"strings"
	"testing"

	"github.com/toold/toold/internal/shell"
)

// bashMatches is the engine's use of one rule on one Bash call: an allow
// rule must match every command of the call; a deny or ask rule matches
// when it matches any command, substitutions included.
func bashMatches(t testing.TB, r *Rule, src string, input map[string]any) bool {
	t.Helper()
	a := shell.Analyze(src)
	q := Query{Tool: "Bash", Script: src, Input: input}
	if r.Behavior == Allow {
		if len(a.Commands) == 0 {
			return false
		}
		for i := range a.Commands {
			q.Command = &a.Commands[i]
			if !r.matches(&q) {
				return false
			}
		}
		return true
	}
	all := append(append([]shell.Command{}, a.Commands...), a.Hidden...)
	if len(all) == 0 {
		return r.matches(&q)
	}
	for i := range all {
		q.Command = &all[i]
		if r.matches(&q) {
			return true
		}
	}
	return false
}

func mustRule(t testing.TB, text string, b Behavior) *Rule {
	t.Helper()
	r, err := ParseRule(text, b, SourceCLIArg, "/proj")
	if err != nil {
		t.Fatalf("ParseRule(%q): %v", text, err)
	}
	return r
}

func TestBashMatch(t *testing.T) {
	tests := []struct {
		rule  string
		b     Behavior
		cmd   string
		input map[string]any
		want  bool
	}{
		// https://code.claude.com/docs/en/permissions#wildcard-patterns
		{rule: "Bash(npm run build)", b: Allow, cmd: "npm run build", want: true},
		// https://code.claude.com/docs/en/permissions#wildcard-patterns
		{rule: "Bash(npm run build)", b: Allow, cmd: "npm run build --prod", want: false},
		// https://code.claude.com/docs/en/permissions#wildcard-patterns
		{rule: "Bash(npm run test *)", b: Allow, cmd: "npm run test --watch", want: true},
		// https://code.claude.com/docs/en/permissions#wildcard-patterns
		{rule: "Bash(npm run test *)", b: Allow, cmd: "npm run test", want: true},
		// https://code.claude.com/docs/en/permissions#wildcard-patterns
		{rule: "Bash(npm run test *)", b: Allow, cmd: "npm run testing", want: false},
		// https://code.claude.com/docs/en/permissions#wildcard-patterns
		{rule: "Bash(* install)", b: Allow, cmd: "npm install", want: true},
		// https://code.claude.com/docs/en/permissions#wildcard-patterns
		{rule: "Bash(* install)", b: Allow, cmd: "npm install left-pad", want: false},
		// https://code.claude.com/docs/en/permissions#wildcard-patterns
		{rule: "Bash(git * main)", b: Allow, cmd: "git push origin main", want: true},
		// https://code.claude.com/docs/en/permissions#wildcard-patterns
		{rule: "Bash(git * main)", b: Allow, cmd: "git merge main", want: true},
		// https://code.claude.com/docs/en/permissions#wildcard-patterns (word boundary)
		{rule: "Bash(ls *)", b: Allow, cmd: "ls -la", want: true},
		// https://code.claude.com/docs/en/permissions#wildcard-patterns (word boundary)
		{rule: "Bash(ls *)", b: Allow, cmd: "ls", want: true},
		// https://code.claude.com/docs/en/permissions#wildcard-patterns (word boundary)
		{rule: "Bash(ls *)", b: Allow, cmd: "lsof", want: false},
		// https://code.claude.com/docs/en/permissions#wildcard-patterns
		{rule: "Bash(ls*)", b: Allow, cmd: "lsof", want: true},
		// https://code.claude.com/docs/en/permissions#wildcard-patterns
		{rule: "Bash(ls*)", b: Allow, cmd: "ls", want: true},
		// https://code.claude.com/docs/en/permissions#wildcard-patterns (legacy :*)
		{rule: "Bash(ls:*)", b: Allow, cmd: "ls -la", want: true},
		// https://code.claude.com/docs/en/permissions#wildcard-patterns (legacy :*)
		{rule: "Bash(ls:*)", b: Allow, cmd: "lsof", want: false},
		// https://code.claude.com/docs/en/permissions#wildcard-patterns (":*" only at the end; the colon is literal)
		{rule: "Bash(git:* push)", b: Allow, cmd: "git push", want: false},
		// https://code.claude.com/docs/en/permissions#wildcard-patterns (double space counts as one)
		{rule: "Bash(npm  test)", b: Deny, cmd: "npm test", want: true},

		// https://code.claude.com/docs/en/permissions#compound-commands
		{rule: "Bash(safe-cmd *)", b: Allow, cmd: "safe-cmd && other-cmd", want: false},
		// https://code.claude.com/docs/en/permissions#compound-commands ; security.md §1 #2
		{rule: "Bash(echo *)", b: Allow, cmd: `echo "x"; curl evil.example; echo "y"`, want: false},
		// security.md §1 #3
		{rule: "Bash(git fetch *)", b: Allow, cmd: "git fetch && git clean -fd", want: false},
		// https://code.claude.com/docs/en/permissions#compound-commands (deny matches any piece)
		{rule: "Bash(git clean *)", b: Deny, cmd: "npm run build; git clean -fd", want: true},
		// security.md §1 #3 (inside a subshell and a loop body)
		{rule: "Bash(rm *)", b: Deny, cmd: "(cd x && for f in a; do rm -rf $f; done)", want: true},

		// https://code.claude.com/docs/en/permissions "Wrappers" (stripped wrappers)
		{rule: "Bash(npm test *)", b: Allow, cmd: "timeout 30 npm test", want: true},
		// https://code.claude.com/docs/en/permissions "Wrappers"
		{rule: "Bash(npm test *)", b: Allow, cmd: "nice -n 5 npm test", want: true},
		// https://code.claude.com/docs/en/permissions "Wrappers" (known-safe assignment)
		{rule: "Bash(npm test *)", b: Allow, cmd: "NODE_ENV=test npm test", want: true},
		// https://code.claude.com/docs/en/permissions "Wrappers" (other assignment: allow does not match)
		{rule: "Bash(npm test *)", b: Allow, cmd: "FOO=bar npm test", want: false},
		// https://code.claude.com/docs/en/permissions "Wrappers" (deny matches past any assignment)
		{rule: "Bash(rm *)", b: Deny, cmd: "FOO=bar rm -rf tmp/", want: true},
		// security.md §1 #10 (loader variables never auto-allowed)
		{rule: "Bash(sort *)", b: Allow, cmd: "LD_PRELOAD=/tmp/x.so sort f", want: false},
		// security.md §1 #10
		{rule: "Bash(sort *)", b: Allow, cmd: "PATH=/tmp/evil sort f", want: false},
		// security.md §1 #10 (a safe name with a path value: glibc reads it as a path)
		{rule: "Bash(sort *)", b: Allow, cmd: "LC_ALL=/tmp/loc sort f", want: false},
		// https://code.claude.com/docs/en/permissions "Wrappers"
		{rule: "Bash(sort *)", b: Allow, cmd: "LC_ALL=C TZ=Europe/Paris sort f", want: true},
		// security.md §4 R5 (deny can spell the assignment)
		{rule: "Bash(LD_PRELOAD=*)", b: Deny, cmd: "LD_PRELOAD=/tmp/x.so ls", want: true},
		// https://code.claude.com/docs/en/permissions "Wrappers" (exec wrappers: only an exact full-string rule)
		{rule: "Bash(ls *)", b: Allow, cmd: "watch -n1 ls", want: false},
		// https://code.claude.com/docs/en/permissions "Wrappers"
		{rule: "Bash(watch *)", b: Allow, cmd: "watch -n1 ls", want: false},
		// https://code.claude.com/docs/en/permissions "Wrappers"
		{rule: "Bash(watch -n1 ls)", b: Allow, cmd: "watch -n1 ls", want: true},
		// https://code.claude.com/docs/en/permissions "Wrappers"
		{rule: "Bash(ls)", b: Allow, cmd: "setsid ls", want: false},
		// https://code.claude.com/docs/en/permissions "Wrappers"
		{rule: "Bash(flock *)", b: Allow, cmd: "flock /tmp/l rm -rf x", want: false},
		// security.md §1 #7 (Bash(env *) would be arbitrary execution)
		{rule: "Bash(env *)", b: Allow, cmd: "env rm -rf x", want: false},
		// security.md §1 #7
		{rule: "Bash(npm test *)", b: Allow, cmd: "env A=1 npm test", want: false},
		// security.md §1 #7 (a shell's -c script is an exec wrapper)
		{rule: "Bash(ls *)", b: Allow, cmd: "sh -c 'ls -la'", want: false},
		// security.md §1 #7 (deny sees through wrappers)
		{rule: "Bash(rm *)", b: Deny, cmd: "sh -c 'rm -rf /'", want: true},
		// security.md §1 #7
		{rule: "Bash(rm *)", b: Deny, cmd: "timeout 5 setsid rm -rf /", want: true},
		// security.md §1 #7 (deny names the wrapper)
		{rule: "Bash(watch *)", b: Deny, cmd: "watch -n1 ls", want: true},
		// security.md §1 #7 (deny spells the wrapper's options, as written)
		{rule: "Bash(timeout 5 *)", b: Deny, cmd: "timeout 5 ls", want: true},
		// https://code.claude.com/docs/en/permissions "Wrappers" (bare xargs: the arguments come from stdin)
		{rule: "Bash(grep *)", b: Allow, cmd: "xargs grep p", want: false},
		// https://code.claude.com/docs/en/permissions "Wrappers"
		{rule: "Bash(grep *)", b: Deny, cmd: "xargs grep p", want: true},
		// https://code.claude.com/docs/en/permissions "Wrappers" (command -v is not a wrapper)
		{rule: "Bash(command -v *)", b: Allow, cmd: "command -v git", want: true},

		// https://code.claude.com/docs/en/permissions "Wrappers" (find -exec/-delete: exact only) ; security.md §4 R9
		{rule: "Bash(find *)", b: Allow, cmd: "find . -delete", want: false},
		// https://code.claude.com/docs/en/permissions "Wrappers"
		{rule: "Bash(find . -delete)", b: Allow, cmd: "find . -delete", want: true},
		// https://code.claude.com/docs/en/permissions "Wrappers"
		{rule: "Bash(find * -delete)", b: Allow, cmd: "find . -delete", want: false},
		// https://code.claude.com/docs/en/permissions "Wrappers"
		{rule: "Bash(find *)", b: Allow, cmd: "find . -exec rm {} +", want: false},
		// https://code.claude.com/docs/en/permissions "Wrappers" (exact as written, quotes and all)
		{rule: `Bash(find . -name x -exec rm {} \;)`, b: Allow, cmd: `find . -name x -exec rm {} \;`, want: true},
		// security.md §4 R9
		{rule: "Bash(find *)", b: Allow, cmd: "find . -name '*.go'", want: true},
		// security.md §4 R9
		{rule: "Bash(find *)", b: Allow, cmd: "find . -fprint /tmp/out", want: false},
		// security.md §4 R9 (the rule spells the flag)
		{rule: "Bash(find * -fprint *)", b: Allow, cmd: "find . -fprint /tmp/out", want: true},
		// security.md §4 R9 ; §1 #11
		{rule: "Bash(sed *)", b: Allow, cmd: "sed -i s/a/b/ f", want: false},
		// security.md §4 R9
		{rule: "Bash(sed -i *)", b: Allow, cmd: "sed -i s/a/b/ f", want: true},
		// security.md §4 R9
		{rule: "Bash(sed *)", b: Allow, cmd: "sed -ni 10p f", want: false},
		// security.md §4 R9
		{rule: "Bash(sed *)", b: Allow, cmd: "sed --in-pl s/a/b/ f", want: false},
		// security.md §4 R9
		{rule: "Bash(sed *)", b: Allow, cmd: "sed -n 10,20p f", want: true},
		// security.md §4 R9
		{rule: "Bash(sed *)", b: Allow, cmd: "sed 's/hello world/bye/g' f", want: true},
		// security.md §1 #11 (sed -n 'w FILE')
		{rule: "Bash(sed *)", b: Allow, cmd: "sed -n 'w /tmp/out' f", want: false},
		// security.md §4 R9 (s///w)
		{rule: "Bash(sed *)", b: Allow, cmd: "sed 's/a/b/w /tmp/out' f", want: false},
		// security.md §1 #11 (sed e, s///e)
		{rule: "Bash(sed *)", b: Allow, cmd: "sed s/x/id/e f", want: false},
		// security.md §1 #11
		{rule: "Bash(sed *)", b: Allow, cmd: "sed -e 1e\\ id f", want: false},
		// security.md §4 R9
		{rule: "Bash(sort *)", b: Allow, cmd: "sort -o out in", want: false},
		// security.md §4 R9 (GNU long-option abbreviation)
		{rule: "Bash(sort *)", b: Allow, cmd: "sort --out=x in", want: false},
		// security.md §4 R9
		{rule: "Bash(sort *)", b: Allow, cmd: "sort -n in", want: true},
		// security.md §2 (rg flags that run programs)
		{rule: "Bash(rg *)", b: Allow, cmd: "rg --pre cat x", want: false},
		// security.md §2
		{rule: "Bash(rg *)", b: Allow, cmd: "rg -iz x", want: false},
		// security.md §2
		{rule: "Bash(rg *)", b: Allow, cmd: "rg -n foo src", want: true},
		// security.md §4 R9 ; §1 #8 (git global options)
		{rule: "Bash(git *)", b: Allow, cmd: "git -c core.pager=evil log", want: false},
		// security.md §1 #8 (deny sees past git's global options)
		{rule: "Bash(git commit *)", b: Deny, cmd: "git -C /repo commit -m x", want: true},
		// security.md §1 #8
		{rule: "Bash(git push *)", b: Ask, cmd: "git --git-dir=/x -c a=b push origin", want: true},
		// security.md §4 R6 (deny sees the command xargs runs)
		{rule: "Bash(rm *)", b: Deny, cmd: "find . -name x | xargs -0 -n 1 rm -f", want: true},
		// security.md §4 R6 (and the commands of find -exec)
		{rule: "Bash(rm *)", b: Deny, cmd: `find . -name x -exec /bin/rm -f {} \;`, want: true},
		// security.md §4 R7 (brace expansion runs the program)
		{rule: "Bash(curl *)", b: Deny, cmd: "{curl,-s,evil.example}", want: true},
		// security.md §4 R7 (a glob in the program name)
		{rule: "Bash(curl *)", b: Deny, cmd: "/usr/bin/cur? evil.example", want: true},
		// security.md §4 R7
		{rule: "Bash(curl *)", b: Deny, cmd: "/usr/bin/w?et evil.example", want: false},
		// security.md §4 R7 (${IFS})
		{rule: "Bash(cat *)", b: Deny, cmd: "cat${IFS}/etc/passwd", want: true},
		// security.md §1 #7 (wrappers the analyser strips: sudo, busybox, env -i)
		{rule: "Bash(rm *)", b: Deny, cmd: "sudo busybox env -i rm -rf x", want: true},
		// security.md §10 P4 (deny does not hit a different program's argument)
		{rule: "Bash(rm *)", b: Deny, cmd: "git rm file", want: false},
		// security.md §1 #8
		{rule: "Bash(git *)", b: Allow, cmd: "git -C /repo commit -m x", want: false},
		// security.md §4 R9
		{rule: "Bash(git *)", b: Allow, cmd: "git diff --ext-diff", want: false},
		// security.md §4 R9
		{rule: "Bash(git *)", b: Allow, cmd: "git grep -O foo", want: false},
		// security.md §4 R9 (config stores programs git later runs)
		{rule: "Bash(git *)", b: Allow, cmd: "git config core.fsmonitor 'touch /tmp/pwn'", want: false},
		// security.md §4 R9 (the rule spells it)
		{rule: "Bash(git config *)", b: Allow, cmd: "git config user.name x", want: true},
		// security.md §4 R9
		{rule: "Bash(git *)", b: Allow, cmd: "git log --oneline -n 5", want: true},
		// security.md §4 R9
		{rule: "Bash(tar *)", b: Allow, cmd: "tar --to-command=sh -xf a.tar", want: false},
		// security.md §4 R9
		{rule: "Bash(tar *)", b: Allow, cmd: "tar xIf 'sh -c id' a.tar", want: false},
		// security.md §4 R9
		{rule: "Bash(base64 *)", b: Allow, cmd: "base64 -o out in", want: false},
		// security.md §4 R9 (interpreters with inline programs)
		{rule: "Bash(python3 *)", b: Allow, cmd: "python3 -c 'import os'", want: false},
		// security.md §4 R9 (an option after the script belongs to the script)
		{rule: "Bash(python3 *)", b: Allow, cmd: "python3 script.py -c x", want: true},
		// security.md §4 R9
		{rule: "Bash(python *)", b: Allow, cmd: "python -Bc 'x'", want: false},
		// security.md §4 R9
		{rule: "Bash(node *)", b: Allow, cmd: "node -e 'x'", want: false},
		// security.md §4 R9
		{rule: "Bash(node *)", b: Allow, cmd: "node --ev='x'", want: false},
		// security.md §4 R9
		{rule: "Bash(perl *)", b: Allow, cmd: "perl -lne 'print' f", want: false},
		// security.md §4 R9
		{rule: "Bash(perl *)", b: Allow, cmd: "perl script.pl -e", want: true},
		// security.md §4 R9
		{rule: "Bash(ruby *)", b: Allow, cmd: "ruby -e 'x'", want: false},
		// security.md §4 R9 ; §1 #11 (awk system())
		{rule: "Bash(awk *)", b: Allow, cmd: `awk '{system("id")}' f`, want: false},
		// security.md §4 R9
		{rule: "Bash(awk *)", b: Allow, cmd: `awk '{print $1 | "sh"}' f`, want: false},
		// security.md §1 #11 (awk -f script)
		{rule: "Bash(awk *)", b: Allow, cmd: "awk -f prog.awk f", want: false},
		// security.md §4 R9
		{rule: "Bash(awk *)", b: Allow, cmd: `awk -F: '{print $1}' /etc/passwd`, want: true},
		// security.md §3 (eval/source never covered by a wildcard)
		{rule: "Bash(bash *)", b: Allow, cmd: "bash -c 'ls'", want: false},
		// security.md §3
		{rule: "Bash(bash *)", b: Allow, cmd: "bash build.sh", want: true},

		// security.md §1 #5 ; §4 R4 (write redirections are not covered)
		{rule: "Bash(echo *)", b: Allow, cmd: "echo payload > ~/.bashrc", want: false},
		// security.md §1 #5
		{rule: "Bash(echo *)", b: Allow, cmd: "echo payload >> out.txt", want: false},
		// security.md §1 #5 (a pipe into an allowed command that writes)
		{rule: "Bash(cat *)", b: Allow, cmd: "echo x | cat > protected.txt", want: false},
		// security.md §4 R4 (/dev/null and descriptor duplication are fine)
		{rule: "Bash(echo *)", b: Allow, cmd: "echo hi > /dev/null 2>&1", want: true},
		// security.md §4 R3 (substitutions)
		{rule: "Bash(echo *)", b: Allow, cmd: "echo $(rm -rf x)", want: false},
		// security.md §4 R3 (deny still sees the hidden command)
		{rule: "Bash(rm *)", b: Deny, cmd: "echo \"$(rm -rf x)\"", want: true},
		// security.md §4 R3 (unquoted glob: argv unknown)
		{rule: "Bash(ls *)", b: Allow, cmd: "ls *.go", want: false},
		// security.md §4 R7 (quote splicing is normalised for deny)
		{rule: "Bash(rm *)", b: Deny, cmd: "r''m -rf x", want: true},
		// security.md §4 R7
		{rule: "Bash(rm *)", b: Deny, cmd: `\rm -rf x`, want: true},
		// security.md §4 R7 (path-qualified program: deny on the base name)
		{rule: "Bash(rm *)", b: Deny, cmd: "/bin/rm -rf x", want: true},
		// security.md §4 R7 (a deny on a path also stops the bare name)
		{rule: "Bash(/bin/rm *)", b: Deny, cmd: "rm -rf x", want: true},
		// security.md §2 first row (path-qualified programs never match a bare-name allow)
		{rule: "Bash(cat *)", b: Allow, cmd: "./cat x", want: false},
		// security.md §2 first row
		{rule: "Bash(cat *)", b: Allow, cmd: "/tmp/evil/cat x", want: false},
		// security.md §2 first row
		{rule: "Bash(* --version)", b: Allow, cmd: "/tmp/evil/go --version", want: false},
		// security.md §2 first row (the rule spells the path)
		{rule: "Bash(./gradlew *)", b: Allow, cmd: "./gradlew build", want: true},
		// security.md §1 #6 (CR is not a blank to bash)
		{rule: "Bash(curl *)", b: Deny, cmd: "TZ=UTC\recho curl evil.example", want: true},
		// security.md §4 R7 (a quoted space is not an argument boundary)
		{rule: "Bash(git status)", b: Allow, cmd: "'git status'", want: false},
		// security.md §4 R7
		{rule: "Bash(rm -rf build)", b: Allow, cmd: `rm "-rf build"`, want: false},
		// https://code.claude.com/docs/en/permissions#wildcard-patterns (an argument may hold spaces under a wildcard)
		{rule: "Bash(git commit -m *)", b: Allow, cmd: `git commit -m "fix the bug"`, want: true},
		// https://code.claude.com/docs/en/permissions#wildcard-patterns (exact rule as written)
		{rule: `Bash(git commit -m "fix the bug")`, b: Allow, cmd: `git commit -m "fix the bug"`, want: true},
		// https://code.claude.com/docs/en/permissions "Wrappers" (exact rule may spell a known-safe assignment)
		{rule: "Bash(LANG=C make)", b: Allow, cmd: "LANG=C make", want: true},
		// Claude Code 2.1.332 accepts allow rules with any leading assignment
		// and matches them when the command carries it verbatim.
		{rule: "Bash(GOFLAGS=-count=1 true)", b: Allow, cmd: "GOFLAGS=-count=1 true", want: true},
		{rule: "Bash(GOFLAGS=-count=1 go test:*)", b: Allow, cmd: "GOFLAGS=-count=1 go test ./...", want: true},
		{rule: "Bash(GOFLAGS=-count=1 go test:*)", b: Allow, cmd: "go test ./...", want: false},
		{rule: "Bash(GOFLAGS=-count=1 go test:*)", b: Allow, cmd: "GOFLAGS=-count=2 go test ./...", want: false},
		{rule: "Bash(GOFLAGS=-count=1 go test:*)", b: Allow, cmd: "GOFLAGS=-count=1 LD_PRELOAD=x go test ./...", want: false},
		{rule: "Bash(GOFLAGS=-count=1 go test:*)", b: Allow, cmd: "GOFLAGS=-count=1 go test ./... && rm -rf x", want: false},
		{rule: "Bash(FOO=1 make *)", b: Allow, cmd: "FOO=1 make all", want: true},
		{rule: "Bash(FOO=1 make *)", b: Allow, cmd: "FOO=1 make", want: true},
		{rule: "Bash(FOO=1 make *)", b: Allow, cmd: "make all", want: false},
		{rule: "Bash(LANG=C make *)", b: Allow, cmd: "LANG=C make all", want: true},
		{rule: "Bash(make *)", b: Allow, cmd: "FOO=1 make all", want: false},

		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (Bash ≡ Bash(*))
		{rule: "Bash", b: Allow, cmd: "make -j8", want: true},
		// security.md §1 #5 (a tool-level allow still does not vouch for a redirect write)
		{rule: "Bash", b: Allow, cmd: "echo x > f", want: false},
		// security.md §4 R3
		{rule: "Bash(*)", b: Allow, cmd: "ls $DIR", want: false},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{rule: "Bash(*)", b: Deny, cmd: "ls", want: true},

		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (parameter rules)
		{rule: "Bash(run_in_background:true)", b: Deny, cmd: "sleep 100", input: map[string]any{"run_in_background": true}, want: true},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{rule: "Bash(run_in_background:true)", b: Deny, cmd: "sleep 100", input: map[string]any{"run_in_background": false}, want: false},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (omitted never matches)
		{rule: "Bash(run_in_background : *)", b: Ask, cmd: "sleep 100", input: map[string]any{}, want: false},
		// ambiguity documented on parseBashRule: both readings in deny
		{rule: "Bash(timeout:*)", b: Deny, cmd: "ls", input: map[string]any{"timeout": 5000.0}, want: true},
		// ambiguity documented on parseBashRule
		{rule: "Bash(timeout:*)", b: Deny, cmd: "timeout 5 ls", input: map[string]any{}, want: true},
		// ambiguity documented on parseBashRule: the prefix rule in allow
		{rule: "Bash(timeout:*)", b: Allow, cmd: "timeout 5 ls", want: false},
	}
	for _, tc := range tests {
		t.Run(tc.b.String()+" "+tc.rule+" "+tc.cmd, func(t *testing.T) {
			r := mustRule(t, tc.rule, tc.b)
			if got := bashMatches(t, r, tc.cmd, tc.input); got != tc.want {
				a := shell.Analyze(tc.cmd)
				t.Errorf("match = %v, want %v (commands %+v)", got, tc.want, a.Commands)
			}
		})
	}
}

func TestBashRuleNeedsCommand(t *testing.T) {
	// ruleset.go Query.Command: specifier rules never match without one.
	r := mustRule(t, "Bash(rm *)", Deny)
	if r.matches(&Query{Tool: "Bash", Script: "rm -rf /"}) {
		t.Error("a Bash specifier rule matched a query without a command")
	}
}

func TestDualUseTokens(t *testing.T) {
	tests := []struct {
		argv      string
		tokens    []string
		exactOnly bool
	}{
		// security.md §4 R9
		{argv: "find . -name x", tokens: nil},
		// https://code.claude.com/docs/en/permissions "Wrappers"
		{argv: "find . -execdir x ;", exactOnly: true},
		// security.md §4 R9
		{argv: "git -p log", tokens: []string{"-p"}},
		// security.md §4 R9
		{argv: "git --git-dir x --work-tree y status", tokens: []string{"--git-dir", "--work-tree"}},
		// security.md §4 R9
		{argv: "git fetch --upload-pack=x origin", tokens: []string{"--upload-pack=x"}},
		// security.md §4 R9
		{argv: "git rebase -x make main", tokens: []string{"-x"}},
		// security.md §4 R9
		{argv: "sed -e s/a/b/ -e 5w/tmp/x f", tokens: []string{"-e", "5w/tmp/x"}},
		// security.md §4 R9
		{argv: "sed -f script f", tokens: []string{"-f"}},
		// security.md §4 R9
		{argv: "sed -n /foo/,/bar/p f", tokens: nil},
		// security.md §4 R9
		{argv: "sed 1r/etc/shadow f", tokens: []string{"1r/etc/shadow"}},
		// security.md §4 R9
		{argv: "sort --compress-program=sh f", tokens: []string{"--compress-program=sh"}},
		// security.md §3 (eval/source never covered by a wildcard)
		{argv: "eval ls", exactOnly: true},
		// security.md §1 #7
		{argv: "sudo ls", exactOnly: true},
		// security.md §4 R9
		{argv: "deno eval x", tokens: []string{"eval"}},
		// security.md §4 R9
		{argv: "zsh -lc x", tokens: []string{"-lc"}},
		// security.md §4 R9
		{argv: "rsync -e 'ssh -o ProxyCommand=x' a b", tokens: []string{"-e"}},
	}
	for _, tc := range tests {
		t.Run(tc.argv, func(t *testing.T) {
			argv := strings.Fields(tc.argv)
			d := dualUse(argv[0], argv)
			if d.exactOnly != tc.exactOnly || strings.Join(d.tokens, "|") != strings.Join(tc.tokens, "|") {
				t.Errorf("dualUse = %+v, want tokens %q exactOnly %v", d, tc.tokens, tc.exactOnly)
			}
		})
	}
}

// FuzzBashMatch: no panic on any rule and command, and an allow rule never
// matches a command whose text still holds a command separator outside
// quotes: allow rules see only the simple commands the analyser split out.
func FuzzBashMatch(f *testing.F) {
	seeds := [][2]string{
		{"Bash(echo *)", `echo "a"; curl x; echo "b"`},
		{"Bash(*)", "a && b || c | d & e\nf"},
		{"Bash(ls *)", "ls -la\nrm -rf /"},
		{"Bash(git * main)", "git push origin main |& tee log"},
		{"Bash(find *)", "find . -delete"},
		{"Bash(* install)", "npm install; pip install"},
		{"Bash(echo ;*)", "echo ;x"},
		{"Bash(echo a*b)", "echo 'a;b'"},
		{"Bash(x & y)", "x & y"},
		{"Bash(watch ls; rm -rf /)", "watch ls; rm -rf /"},
		{"Bash(sed *)", "sed 's/a/b/;w x' f"},
		{"Bash(go test *)", "go test ./... 2>&1 | tail -20"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, ruleText, src string) {
		a := shell.Analyze(src)
		all := append(append([]shell.Command{}, a.Commands...), a.Hidden...)
		for _, b := range []Behavior{Allow, Deny, Ask} {
			r, err := ParseRule(ruleText, b, SourceCLIArg, "/proj")
			if err != nil {
				continue
			}
			for i := range all {
				q := Query{Tool: "Bash", Command: &all[i], Script: src, Input: map[string]any{"timeout": 1.0}}
				if r.matches(&q) && b == Allow && !strings.Contains(src, "<<") && hasUnquotedSeparator(all[i].Raw) {
					t.Fatalf("allow %q matched %q, which holds a separator (from %q)", ruleText, all[i].Raw, src)
				}
			}
		}
	})
}

// hasUnquotedSeparator reports a ';', '&', '|' or newline outside quotes
// and escapes, other than in the redirection operators >&, <&, &>, >|.
func hasUnquotedSeparator(s string) bool {
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
		case c == '\\':
			i++
		case quote == '"':
			if c == '"' {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == ';' || c == '\n':
			return true
		case c == '&':
			prev := byte(0)
			if i > 0 {
				prev = s[i-1]
			}
			if prev != '>' && prev != '<' && !(i+1 < len(s) && s[i+1] == '>') {
				return true
			}
		case c == '|':
			if i == 0 || s[i-1] != '>' {
				return true
			}
		}
	}
	return false
}
