package bash

import (
	"os"
	"os/exec"
	"sync"

	"github.com/toold/toold/internal/procgroup"
	"github.com/toold/toold/internal/sandbox"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/shells"
)

// command prepares `bash -c script`: through the sandbox when the tool has
// one, else in a process group of its own. It has no context: Run kills
// it (Process.Kill) where the call ends early, and a command moved to the
// background outlives the call; without a context, os/exec starts no
// goroutine to watch one. The process's Wait calls drain once bash has
// been reaped, before the rest of the command is killed.
func (t *bashTool) command(env *tool.Env, cwd string, environ []string, script string, drain func() error) (shells.Process, error) {
	// argv[0] is the full path, so that bash's messages read
	// "/bin/bash: line 1: ...", as in Claude Code.
	args := []string{t.bash, "-c", script}
	if t.sandbox != nil {
		c, err := t.sandbox.Command(nil, sandbox.Request{
			SessionID: env.SessionID,
			Dirs:      env.Files.Dirs(),
			Dir:       cwd,
			Env:       environ,
			Path:      t.bash,
			Args:      args,
		})
		if err != nil {
			return nil, err
		}
		c.SetDrain(drain)
		return c, nil
	}
	cmd := &exec.Cmd{Path: t.bash, Args: args, Dir: cwd, Env: environ}
	procgroup.Prepare(cmd, 0) // the drain is bounded by Run, sandboxed or not
	return shells.DrainedGroupProcess(cmd, drain), nil
}

// cwdFile makes the per-call file the shell's EXIT trap writes its final
// directory to: in the tool's private directory, or under the sandbox in
// the session's temporary directory, where the confined shell may write.
func (t *bashTool) cwdFile(sessionID string) (*os.File, error) {
	if t.sandbox != nil {
		return t.sandbox.TempFile(sessionID, "cwd-")
	}
	return os.CreateTemp(t.stateDir, "cwd-")
}

// devNull is the commands' standard input, opened once for the life of
// the process: left nil, os/exec (and the sandbox) would open /dev/null
// for every command, which is an open, a failed poller registration, four
// fcntl calls and a close each time. The child gets a copy of the
// descriptor; /dev/null has no offset to share. Nil when it cannot be
// opened: each command then opens its own.
var devNull = sync.OnceValue(func() *os.File {
	f, err := os.Open(os.DevNull)
	if err != nil {
		return nil
	}
	return f
})

// stdin sets cmd's standard input to devNull unless it has one.
func stdin(cmd *exec.Cmd) {
	if f := devNull(); cmd.Stdin == nil && f != nil {
		cmd.Stdin = f
	}
}
