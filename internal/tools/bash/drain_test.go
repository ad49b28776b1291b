package bash

import (
	"syscall"
	"testing"

	"github.com/toold/toold/internal/tool/tooltest"
)

// A background process that prints shortly after bash has exited is
// heard: the call reads the pipes for a while before it kills the rest of
// the group.
func TestLateOutputOfABackgroundProcessIsKept(t *testing.T) {
	tl := newTool(t)
	env, _, _ := tooltest.Env(t)
	res := mustRun(t, tl, env, "(sleep 0.02; echo late; echo late-err >&2) & echo now")
	if text := tooltest.Text(res); text != "now\nlate\nlate-err" || res.IsError {
		t.Errorf("text = %q, IsError %v", text, res.IsError)
	}
}

// A process that left the group (setsid) and holds stdout or stderr open
// cannot be killed with it; the call stops reading after the drain bound
// instead of waiting for that process, and keeps what came before.
func TestEscapedProcessHoldingAPipeDoesNotHoldTheCall(t *testing.T) {
	tl := newTool(t)
	for name, command := range map[string]string{
		"stdout": "setsid sleep 30 2>/dev/null & echo $! > pid; echo done",
		"stderr": "setsid sleep 30 >/dev/null & echo $! > pid; echo done >&2",
		"both":   "setsid sleep 30 & echo $! > pid; echo done",
	} {
		t.Run(name, func(t *testing.T) {
			env, _, _ := tooltest.Env(t)
			res := mustRun(t, tl, env, command)
			pid := readPid(t, env.Cwd, "pid")
			syscall.Kill(pid, syscall.SIGKILL)
			if text := tooltest.Text(res); text != "done" || res.IsError {
				t.Errorf("text = %q, IsError %v", text, res.IsError)
			}
		})
	}
}
