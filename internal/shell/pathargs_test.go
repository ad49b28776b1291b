package shell

import (
	"strings"
	"testing"
)

// pathArgsText renders PathArgs as "access:path" words, d for dynamic.
func pathArgsText(c *Command) string {
	var out []string
	for _, p := range c.PathArgs() {
		var acc []string
		for _, a := range []struct {
			bit  Access
			name string
		}{{Read, "r"}, {Write, "w"}, {Recursive, "R"}, {Names, "n"}, {Mention, "m"}, {Inline, "i"}, {Run, "x"}} {
			if p.Access&a.bit != 0 {
				acc = append(acc, a.name)
			}
		}
		s := strings.Join(acc, "") + ":" + p.Path
		if p.Dynamic {
			s += "(d)"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

// The table of which argument of which program is a file.
func TestPathArgs(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"cat a b", "r:a r:b"},
		{"cat -n -- -x", "r:-x"},
		{"cat - a", "r:a"},
		{"head -n 5 a", "r:a"},
		{"head -n5 -c 3 a", "r:a"},
		{"tail -f --lines=3 a", "r:a"},
		{"grep pat a b", "r:a r:b"},
		{"grep -e pat a", "r:a"},
		{"grep -f pats a", "r:pats r:a"},
		{"grep -fpats a", "r:pats r:a"},
		{"grep --fil=pats a", "r:pats r:a"},
		{"grep -A 3 pat a", "r:a"},
		{"grep -r pat", "rR:."},
		{"grep -rn pat d", "rR:d"},
		{"rg pat", "rR:."},
		{"rg --files d", "rR:d"},
		{"sed -n 1p a", "i:1p r:a"},
		{"sed -i.bak s/x/y/ a", "i:s/x/y/ rw:a"},
		{"sed -e 'r secret' a", "i:r i:secret r:a"},
		{"awk -F: '{print $1}' a", "i:print r:a"},
		{"awk -f prog.awk a", "r:prog.awk r:a"},
		{"jq . a.json", "r:a.json"},
		{"jq -n --rawfile s f '$s'", "r:f"},
		{"jq -n --arg x f '$x'", ""},
		{"jq -n --args '$ARGS' a b", ""},
		{"sort -o out -k 2 a", "w:out r:a"},
		{"uniq a b", "r:a w:b"},
		{"tr a b < f", "r:f"},
		{"cp a b c", "r:a r:b w:c"},
		{"cp -r d e", "rR:d w:e"},
		{"cp -t dir a b", "w:dir r:a r:b"},
		{"mv a b", "rw:a w:b"},
		{"tee -a a b", "w:a w:b"},
		{"tar -C d -cf out.tar x", "n:d w:out.tar rR:d/x"},
		{"tar czf out.tgz x", "w:out.tgz rR:x"},
		{"tar xf in.tar -C d", "r:in.tar wR:d"},
		{"zip -r z.zip d", "w:z.zip rR:d"},
		{"dd if=a of=b bs=1", "r:a w:b m:bs=1"},
		{"find d -name x", "n:d"},
		{"find d -exec cat {} +", "rR:d"},
		{"find . -fprint out", "n:. w:out"},
		{"git show HEAD:a", "rw:show rw:a"},
		{"git -C d diff -- a", "n:d rw:d/diff rw:d/a"},
		{"curl -d @f -o out http://x", "r:f w:out m:http://x"},
		{"python3 s.py a", "r:s.py m:a"},
		{"python3 -c 'open(\"f\")' a", "i:open i:f m:open(\"f\") m:a"},
		{"python3.12 s.py", "r:s.py"},
		{"bash s.sh", "r:s.sh"},
		{"source f", "r:f"},
		{"./run.sh a", "x:./run.sh m:a"},
		{"mycmd --config=c -fF a", "m:c m:F m:a"},
		{"cat < a > b 2>&1 2>/dev/null", "r:a w:b"},
		{"cat <> a", "rw:a"},
		{"cat *.go ~/x", "r:*.go(d) r:~/x(d)"},
		{"echo a/b", ""},
		{"ls -la d", "n:d"},
		{"xargs cat < list", "r:list r:(d)"},
		{"make -C d -f mk all", "n:d r:d/mk m:d/all"},
		{"xargs -0 cat", "m:cat rw:(d)"},
		{"script -c 'cat f'", "m:cat f i:cat i:f"},
	} {
		a := Analyze(tc.cmd)
		var got []string
		for i := range a.Commands {
			if s := pathArgsText(&a.Commands[i]); s != "" {
				got = append(got, s)
			}
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s: got %q, want %q", tc.cmd, g, tc.want)
		}
	}
}

// Directory changes reach the commands after them, marked Sure when the
// command runs only if the change succeeded.
func TestChdirs(t *testing.T) {
	render := func(c Command) string {
		var out []string
		for _, ch := range c.Chdirs {
			s := ch.Target
			switch {
			case ch.Unknown:
				s = "?"
			case ch.Sure:
				s += "!"
			}
			out = append(out, s)
		}
		return c.Name() + "[" + strings.Join(out, ",") + "]"
	}
	for _, tc := range []struct{ cmd, want string }{
		{"cd a && cat x", "cd[] cat[a!]"},
		{"cd a; cat x", "cd[] cat[a]"},
		{"cd a || cat x", "cd[] cat[a]"},
		{"cd a && cd b && cat x", "cd[] cd[a!] cat[a!,b!]"},
		{"cd a && cd b; cat x", "cd[] cd[a!] cat[a,b]"},
		{"if cd a; then cat x; else cat y; fi", "cd[] cat[a!] cat[a]"},
		{"cd; cat x", "cd[] cat[~]"},
		{"cd - && cat x", "cd[] cat[?]"},
		{"pushd a && popd && cat x", "pushd[] popd[a!] cat[a!,?]"},
		{"for i in 1; do cat x; cd ..; done; cat y", "cat[?] cd[?] cat[..,?]"},
		{"CDPATH=/ cd etc && cat x", "cd[] cat[?]"},
		{"sh -c 'cd a && cat x'", "cd[] cat[a!]"},
		{"! cd a && cat x", "cd[] cat[a]"},
		{"cd -- -a && cat x", "cd[] cat[-a!]"},
		{"/usr/bin/cd a && cat x", "cd[] cat[]"},
	} {
		a := Analyze(tc.cmd)
		var got []string
		for _, c := range a.Commands {
			got = append(got, render(c))
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s: got %q, want %q", tc.cmd, g, tc.want)
		}
	}
}
