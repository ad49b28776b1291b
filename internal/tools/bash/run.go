package bash

import (
	"context"
	"errors"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/shells"
)

var (
	errTimeout  = errors.New("bash: command timed out")
	errOverflow = errors.New("bash: output limit exceeded")
)

// Run starts bash in its own process group, streams its output, and once
// bash has exited kills whatever is left of the group, so no process of the
// call outlives it (unless it left the group with setsid).
func (c *call) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	t := c.tool
	if t.initErr != nil {
		return nil, tool.Errorf(tool.KindUnavailable, "%v", t.initErr)
	}
	if c.background {
		return c.runBackground(ctx, env)
	}
	cwd := sessionDir(env)
	progress := env.Progress
	if progress == nil {
		progress = tool.NopProgress{}
	}
	environ := sessionEnviron(env)
	script, prefix := c.command, ""
	var cwdFile *os.File
	if !c.class.keepsDir || shellInitIn(environ) {
		f, err := t.cwdFile(env.SessionID)
		if err != nil {
			return nil, tool.Errorf(tool.KindInternal, "the Bash tool could not create its working file: %v", err)
		}
		cwdFile = f
		// A command moved to the background removes the file when it
		// ends; cwdFile is then nil here.
		defer func() {
			if cwdFile != nil {
				cwdFile.Close()
				os.Remove(cwdFile.Name())
			}
		}()
		prefix = cwdScript(f.Name())
		script = prefix + c.command
	}

	// The command's context is not the call's: a command moved to the
	// background outlives the call. The call's end, the output cap and
	// the timeout cancel it below.
	runCtx, stop := context.WithCancelCause(context.Background())
	moved := false
	defer func() {
		if !moved {
			stop(nil)
		}
	}()

	pipes, err := newOutputPipes()
	if err != nil {
		return nil, tool.Errorf(tool.KindInternal, "the Bash tool could not make the pipes for the command's output: %v", err)
	}
	// Background processes may hold the output pipes open after bash has
	// exited; the drain stops waiting for them after waitDelay.
	proc, err := t.command(env, cwd, environ, script, func() error { return pipes.drain(waitDelay) })
	if err != nil {
		pipes.close()
		return nil, tool.Errorf(tool.KindUnavailable, "bash could not be prepared: %v", err)
	}
	cmd := proc.Exec()
	out := newCapture(progress, t.keepChars, func() { stop(errOverflow) })
	// The sandbox may put its own text (resource limits) before ours.
	if sp, ok := proc.(interface{ ScriptPrefix() string }); ok {
		prefix = sp.ScriptPrefix() + prefix
	}
	if prefix != "" {
		out.err.hide = []byte(prefix)
	}
	pipes.attach(cmd)
	stdin(cmd)

	started := time.Now()
	if err := proc.Start(); err != nil {
		pipes.close()
		return nil, c.startError(ctx, env, cwd, err)
	}
	pipes.started(&out.out, &out.err)
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = proc.Wait()
		close(exited)
	}()
	timer := time.NewTimer(c.timer())
	defer timer.Stop()
	select {
	case <-exited:
	case <-runCtx.Done(): // the output cap
		kill(proc, exited)
	case <-ctx.Done():
		stop(ctx.Err())
		kill(proc, exited)
	case <-timer.C:
		if c.movesAtTimeout() {
			cf := cwdFile
			r, err := c.moveToBackground(env, proc, out, cwd, started, exited, func() {
				stop(nil)
				if cf != nil {
					cf.Close()
					os.Remove(cf.Name())
				}
			})
			if err == nil {
				moved, cwdFile = true, nil
				return r, nil
			}
		}
		stop(errTimeout)
		kill(proc, exited)
	}

	finalCwd, note := cwd, ""
	if cwdFile != nil {
		finalCwd, note = carryCwd(ctx, env, cwd, readCwdFile(cwdFile))
	}
	text, truncated := out.text()
	status, ok := proc.Status()
	if !ok {
		return nil, tool.Errorf(tool.KindInternal, "waiting for bash failed: %v", waitErr)
	}
	selfExited := status.Exited()

	switch {
	case out.overflow.Load():
		r := c.result(joinText(outputCapLine(), text), note, truncated, -1, finalCwd, true)
		r.Meta["killed_by"] = killedByOutputCap
		return r, nil
	case !selfExited && ctx.Err() != nil:
		return nil, ctx.Err()
	case !selfExited && context.Cause(runCtx) == errTimeout:
		// Claude Code's words: bash's status after SIGTERM (128+15),
		// the timeout in whole seconds, rounded down, then the output.
		after := seconds(c.timeout)
		if c.negativeMS < 0 {
			// Claude Code's words for a negative timeout: the value in
			// seconds with one decimal ("-1.5s", "-0.0s" for -1 ms).
			after = strconv.FormatFloat(c.negativeMS/1000, 'f', 1, 64) + "s"
		}
		msg := joinText("Exit code "+strconv.Itoa(timeoutExit)+"\nCommand timed out after "+after, text)
		if note != "" {
			msg += "\n" + note
		}
		return nil, tool.Errorf(tool.KindTimeout, "%s", msg)
	case status.Signaled():
		sig := status.Signal()
		r := c.result(joinText(signalLine(sig), text), note, truncated, 128+int(sig), finalCwd, true)
		r.Meta["killed_by"], r.Meta["signal"] = killedBySignal, unix.SignalName(sig)
		return r, nil
	}
	code := status.ExitStatus()
	failed := code != 0 && !benignExit(c.command, code)
	if failed {
		text = joinText(exitLine(code), text)
	}
	if c.negativeMS < 0 && code == 0 && c.movesAtTimeout() {
		// Claude Code reports a command with a negative timeout that
		// succeeded within the first second as started in the background.
		if r, err := c.finishedInBackground(env, proc, out, cwd, started, exited); err == nil {
			return r, nil
		}
	}
	return c.result(text, note, truncated, code, finalCwd, failed), nil
}

func (c *call) result(text, note string, truncated bool, code int, cwd string, isErr bool) *tool.Result {
	if note != "" {
		text = joinText(text, note)
	}
	if text == "" {
		// Claude Code's words for a command that printed nothing.
		text = "(Bash completed with no output)"
	}
	r := tool.Text(text)
	if isErr {
		r.IsError, r.Kind = true, tool.KindFailed
	}
	r.Meta = map[string]any{"exit_code": code, "truncated": truncated, "cwd": cwd}
	return r
}

// startError explains a failed start. The usual cause is a working
// directory that was removed; the session then goes back to its primary
// directory so that the next call can run.
func (c *call) startError(ctx context.Context, env *tool.Env, cwd string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if _, statErr := os.Stat(cwd); statErr != nil {
		primary := env.Files.Primary()
		if primary != cwd {
			if err := env.State.SetCwd(context.WithoutCancel(ctx), primary); err == nil {
				return tool.Failf("The shell's working directory %s is gone (%v). Shell cwd was reset to %s; run the command again.", cwd, statErr, primary)
			}
		}
		return tool.Failf("The shell's working directory %s is gone (%v).", cwd, statErr)
	}
	return tool.Errorf(tool.KindUnavailable, "bash could not be started: %v", err)
}

// kill kills the command unless it has exited (and been reaped: its pid
// may then be another process's), and waits until it has.
func kill(proc shells.Process, exited <-chan struct{}) {
	select {
	case <-exited:
	default:
		proc.Kill()
		<-exited
	}
}

// joinText joins two parts of a result with a newline; either may be empty.
// A failure's status line goes first, as in Claude Code ("Exit code 1"
// above the output), where a cut of the output cannot hide it.
func joinText(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}

// timeoutExit is the exit status Claude Code reports for a command it
// stopped at its timeout.
const timeoutExit = 143

// seconds formats a duration as Claude Code does in its timeout message:
// whole seconds, rounded down ("120s", "1s" for 1.5 s).
func seconds(d time.Duration) string {
	return strconv.FormatInt(int64(d/time.Second), 10) + "s"
}
