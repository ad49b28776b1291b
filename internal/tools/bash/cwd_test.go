package bash

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toold/toold/internal/tool/tooltest"
)

func TestKeepsDir(t *testing.T) {
	cases := []struct {
		cmd   string
		keeps bool
	}{
		{"true", true},
		{"ls -la", true},
		{"go test ./... 2>&1 | tail -20", true},
		{"make && ./run --dir /tmp", true},
		{"FOO=1 npm test", true},
		{"if [ -f x ]; then rm x; fi", true},
		{"cd x", false},
		{"true && cd x", false},
		{"if true; then cd x; fi", false},
		{"for d in a b; do pushd $d; done", false},
		{"popd", false},
		{`c''d x`, false},
		{`\cd x`, false},
		{`"cd" x`, false},
		{"builtin cd x", false},
		{"command cd x", false},
		{"eval 'cd x'", false},
		{"source env.sh", false},
		{". env.sh", false},
		{"exec bash", false},
		{"trap 'cd /' EXIT", false},
		{"mapfile -C 'cd /' -c 1 < f", false},
		{"shopt -s expand_aliases; alias x='cd /'", false},
		{"enable -n cd", false},
		{"f() { cd /; }; f", false},
		{"$CMD x", false},
		{"${CMD} x", false},
		{"c? x", false},
		{"{cd,x}", false},
		{`$'cd' x`, false},
		{"echo $(cd / && pwd)", false},
		{"cd x\r", false},
		{"if", false},
	}
	for _, c := range cases {
		if got := classify(c.cmd).keepsDir; got != c.keeps {
			t.Errorf("keepsDir(%q) = %v, want %v", c.cmd, got, c.keeps)
		}
	}
}

// Code that bash runs from the environment before the command is not seen
// by keepsDir; the cwd is captured whenever there may be such code.
func TestShellInitFromEnvironment(t *testing.T) {
	tl := newTool(t)
	env, st, _ := tooltest.Env(t)
	sub := filepath.Join(env.Cwd, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	rc := filepath.Join(env.Cwd, "rc.sh")
	if err := os.WriteFile(rc, []byte("cd "+sub+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env.Environ = append(env.Environ, "BASH_ENV="+rc)
	res := mustRun(t, tl, env, "true")
	if st.Cwd != sub || res.Meta["cwd"] != sub {
		t.Errorf("State.Cwd = %q, meta cwd %v; want %q", st.Cwd, res.Meta["cwd"], sub)
	}
}

// Without a possible cd, the call creates no file at all.
func TestNoCwdFileWithoutCd(t *testing.T) {
	tl := newTool(t)
	env, st, _ := tooltest.Env(t)
	stateDir := tl.(*bashTool).stateDir
	res := mustRun(t, tl, env, "ls -A "+stateDir)
	if text := tooltest.Text(res); text != "(Bash completed with no output)" {
		t.Errorf("the private directory holds %q during a call without cd", text)
	}
	if st.Cwd != env.Cwd || res.Meta["cwd"] != env.Cwd {
		t.Errorf("State.Cwd = %q, meta cwd %v", st.Cwd, res.Meta["cwd"])
	}
}
