package shell

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzAnalyze checks that Analyze never panics and that what it proves
// holds together: every proven command has a plain literal program name
// and comes from the source (or a nested script), and its normalized Line
// analyses back to the same command when its words need no quoting.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{
		"git status && go test ./... 2>&1 | tail -20",
		"ls -la; cat x | grep y > /dev/null",
		"TZ=UTC\recho curl evil",
		"timeout -s KILL 5 nice -n 10 env -i A=1 stdbuf -oL rm -rf /",
		`sh -c "bash -c 'rm x; ls'"`,
		`r''m x; \rm y; "rm" z; $'\x72m' w`,
		"{curl,-s} x; /usr/bin/cur? x",
		`echo "$(rm x)" <(ls) ` + "`id`",
		"cat <<EOF\n$(rm x)\nEOF\ncat <<'EOF'\n$(rm y)\nEOF",
		"if a; then b; elif c; then d; else e; fi; while f; do g; done",
		"for x in a b; do rm $x; done; case $y in a) z ;; esac",
		"f() { rm -rf /; }; f",
		"[[ $x -eq 1 ]] && [ -v 'a[0]' ] && printf -v 'x[$(id)]' y",
		"echo ${x@P} ${!y} $((z)) ${a[$i]}",
		"watch -n1 'ls; rm x' && flock /tmp/l -c 'rm y' && xargs rm",
		"eval 'rm x'; source y; alias z=w",
		"export PATH=/tmp; A=1 B=2; PATH=/x ls",
		"echo x > ~/.bashrc 2>&1 >&- <> f {fd}>g",
		"cd a && cat ../.env; tar -C d -czf - x | jq --rawfile s f -n; grep -rf.env .; git -C d show HEAD:x",
		"for d in a b; do cd $d || pushd ~; done; popd; sed -i.bak 's/x/y/' f; cp -t d a b",
		"\\if x; \\timeout 5; \\export A=1; command -v ls",
		"a\u00a0b \u202e c\x00d",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		a := Analyze(src)
		if a == nil {
			t.Fatal("nil analysis")
		}
		// The path table reads any command without panicking, and every
		// command keeps the directory changes before it.
		for i := range a.Commands {
			a.Commands[i].PathArgs()
			if len(a.Commands[i].Chdirs) > len(a.chdirs) {
				t.Fatalf("%q: a command has more directory changes than the line", src)
			}
		}
		for _, u := range a.Unprovable {
			if strings.HasPrefix(u, analysisFailed) {
				t.Fatalf("%q: %s", src, u)
			}
		}
		if !a.Proven() {
			return
		}
		if len(a.Hidden) > 0 {
			t.Fatalf("%q: proven with hidden commands", src)
		}
		for _, c := range a.Commands {
			if len(c.Argv) == 0 || c.Argv[0] == "" {
				t.Fatalf("%q: proven command without a program: %+v", src, c)
			}
			for i := 0; i < len(c.Argv[0]); i++ {
				if b := c.Argv[0][i]; b <= 0x20 || b >= 0x7f {
					t.Fatalf("%q: proven program name %q", src, c.Argv[0])
				}
			}
			if !fromSource(a, src, c.Raw) {
				t.Fatalf("%q: Raw %q is not in the source or a nested script", src, c.Raw)
			}
			if len(c.Wrappers) > 0 || len(c.Assigns) > 0 || len(c.Redirects) > 0 || c.Dynamic || !plainArgv(c.Argv) {
				continue
			}
			again := Analyze(c.Line())
			if len(again.Commands) != 1 || strings.Join(again.Commands[0].Argv, "\x00") != strings.Join(c.Argv, "\x00") {
				t.Fatalf("%q: Line %q analyses to %+v", src, c.Line(), again.Commands)
			}
		}
	})
}

func fromSource(a *Analysis, src, raw string) bool {
	if strings.Contains(src, raw) {
		return true
	}
	for _, s := range a.scripts {
		if strings.Contains(s, raw) {
			return true
		}
	}
	return false
}

// plainArgv reports words that mean the same to bash without quoting.
func plainArgv(argv []string) bool {
	if syntax.IsKeyword(argv[0]) || argv[0] == "[[" || argv[0] == "]]" || strings.ContainsRune(argv[0], '=') {
		return false
	}
	for _, a := range argv {
		if a == "" || a[0] == '#' || a[0] == '~' {
			return false
		}
		for i := 0; i < len(a); i++ {
			c := a[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_./:,%+@-=", c) >= 0) {
				return false
			}
		}
	}
	return true
}
