package bash

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/shells"
)

// errNoMove: the command cannot be moved to the background and is killed
// at its timeout instead.
var errNoMove = errors.New("bash: command not moved to the background")

// movesAtTimeout reports whether the command, once past its timeout, is
// moved to the background rather than killed. As in Claude Code, a command
// whose first word is sleep is killed; any other keeps running as a
// background shell of the session, when the server keeps background
// shells and has not been told to kill at the timeout.
func (c *call) movesAtTimeout() bool {
	if c.tool.shells == nil || c.tool.timeoutKills {
		return false
	}
	return !c.sleepFirst()
}

// sleepFirst reports whether the command's first word is sleep.
func (c *call) sleepFirst() bool {
	words := strings.Fields(c.command)
	return len(words) > 0 && words[0] == "sleep"
}

// timer is how long the call waits before the command is moved to the
// background or killed: its timeout, except for a negative timeout, with
// which Claude Code kills a sleep at once and moves any other command
// after a second (its notice then says "1s"). When the command could not
// be moved, a negative timeout means the default, as before.
func (c *call) timer() time.Duration {
	switch {
	case c.negativeMS >= 0:
		return c.timeout
	case c.movesAtTimeout():
		return time.Second
	case c.sleepFirst():
		return 0
	}
	return c.timeout
}

// finishedInBackground registers a command that has already ended as a
// background shell, with its whole output, and reports it as started in
// the background, as Claude Code does for a command with a negative
// timeout that succeeded at once.
func (c *call) finishedInBackground(env *tool.Env, proc shells.Process, out *capture, cwd string, started time.Time, exited <-chan struct{}) (*tool.Result, error) {
	var info shells.Info
	var sofar string
	err := out.moveTo(func(raw []byte, text string) (io.Writer, error) {
		i, sink, err := c.tool.shells.Adopt(env.SessionID, shells.Adopted{
			Command: c.command, Description: c.description, Dir: cwd, ToolUseID: env.ToolUseID,
			Process: proc, Started: started, Output: raw, Exited: exited,
		})
		if err != nil {
			return nil, err
		}
		info, sofar = i, text
		return sink, nil
	})
	if err != nil {
		return nil, err
	}
	return tool.Text(joinText(sofar, backgroundStarted(info.ID))).
		WithMeta("task_id", info.ID).
		WithMeta("background", true).
		WithMeta("cwd", cwd), nil
}

// moveToBackground hands the running command to the session's background
// shells. The call's result, returned here, is final: the output so far
// and where the rest goes. All later output goes to the shell only. When
// the shell cannot be registered (the session's limit, shutdown) the
// command stays the call's and errNoMove is returned.
func (c *call) moveToBackground(env *tool.Env, proc shells.Process, out *capture, cwd string, started time.Time, exited <-chan struct{}, onEnd func()) (*tool.Result, error) {
	var info shells.Info
	var sofar string
	var empty bool
	err := out.moveTo(func(raw []byte, text string) (io.Writer, error) {
		i, sink, err := c.tool.shells.Adopt(env.SessionID, shells.Adopted{
			Command:     c.command,
			Description: c.description,
			Dir:         cwd,
			ToolUseID:   env.ToolUseID,
			Process:     proc,
			Started:     started,
			Output:      raw,
			Exited:      exited,
			OnEnd:       onEnd,
		})
		if err != nil {
			return nil, err
		}
		info, sofar, empty = i, text, len(raw) == 0
		return sink, nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errNoMove, err)
	}
	return tool.Text(joinText(sofar, movedText(c.timer(), info.ID, empty))).
		WithMeta("task_id", info.ID).
		WithMeta("background", true).
		WithMeta("moved_at_timeout", true).
		WithMeta("cwd", cwd), nil
}

// movedText is Claude Code's notice for a command moved to the background
// at its timeout, naming the task's output file (its handle, which Read
// takes as file_path), and promising the notification of its end (which
// the registry's OnEnd posts). toold does not stop it after 10 minutes,
// so that sentence of Claude Code's is left out. The timeout is in whole
// seconds, rounded to the nearest.
func movedText(timeout time.Duration, id string, empty bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Command did not complete within its %s timeout and was moved to the background (ID: %s). Output is being written to: %s. You will be notified when it completes. ", roundSeconds(timeout), id, tool.TaskOutputHandle(id))
	b.WriteString("It is running now: do not start a second copy while it runs. If it is no longer needed, stop it with TaskStop.")
	if empty {
		b.WriteString(" No output had been read from it when it was moved. A program that buffers its output, or a pipe into one such as tail, can keep the output file empty until the command finishes.")
	}
	b.WriteString(" To check interim output, use Read on that file path.")
	return b.String()
}

// roundSeconds formats a duration as Claude Code does in the notice of a
// moved command: whole seconds, rounded to the nearest, half up ("1s" for
// 1.2 s, "2s" for 1.5 s, "3s" for 2.5 s), and at least "1s".
func roundSeconds(d time.Duration) string {
	return fmt.Sprintf("%ds", max(1, int64(d.Round(time.Second)/time.Second)))
}
