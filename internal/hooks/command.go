package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/toold/toold/internal/procgroup"
)

// waitDelay bounds how long a hook's leftover background processes may
// hold its output pipes after it exited or was killed.
const waitDelay = 2 * time.Second

var (
	errTimeout  = errors.New("timed out")
	errOverflow = errors.New("output cap exceeded")
)

// attempt is what running one handler produced, before the event decides
// what it means.
type attempt struct {
	// exitCode is the hook's exit status; -1 when it did not exit by
	// itself.
	exitCode int
	stdout   []byte
	stderr   []byte
	// out is the decision of a gRPC hook, which needs no parsing.
	out *output
	// failure is set when the hook did not run to an exit of its own: it
	// could not start, timed out, was killed, overflowed its output cap,
	// or (gRPC) the call failed. timedOut distinguishes timeouts.
	failure  error
	timedOut bool
}

// runCommand runs a command hook in its own process group in the session's
// workspace, writes the event to its stdin and collects its output. The
// whole group is killed when the hook exits (nothing it left behind
// outlives it), on timeout, on cancellation and when its output passes the
// cap.
func (r *Runner) runCommand(ctx context.Context, h *Handler, in input, timeout time.Duration) attempt {
	payload, err := json.Marshal(in)
	if err != nil {
		return attempt{exitCode: -1, failure: fmt.Errorf("encoding the hook input: %w", err)}
	}
	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	runCtx, cancel := context.WithTimeoutCause(runCtx, timeout, errTimeout)
	defer cancel()

	var cmd *exec.Cmd
	if len(h.Args) > 0 {
		// Exec form: no shell, so the project directory is substituted here.
		args := make([]string, len(h.Args))
		for i, a := range h.Args {
			args[i] = expandProjectDir(a, in.projectDir)
		}
		cmd = exec.CommandContext(runCtx, expandProjectDir(h.Command, in.projectDir), args...)
	} else {
		cmd = exec.CommandContext(runCtx, r.bash, "-c", h.Command)
		cmd.Args[0] = "bash"
	}
	cmd.Dir = in.projectDir
	cmd.Env = r.environ(in.projectDir)
	cmd.Stdin = bytes.NewReader(payload)
	stdout := &procgroup.Capped{Limit: r.opts.MaxOutputBytes, Overflow: func() { stop(errOverflow) }}
	stderr := &procgroup.Capped{Limit: r.opts.MaxOutputBytes, Overflow: func() { stop(errOverflow) }}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	procgroup.Prepare(cmd, waitDelay)

	if err := procgroup.Start(cmd); err != nil {
		return attempt{exitCode: -1, failure: fmt.Errorf("could not start: %w", err)}
	}
	waitErr := procgroup.Wait(cmd)

	a := attempt{exitCode: -1, stdout: stdout.Bytes(), stderr: stderr.Bytes()}
	ps := cmd.ProcessState
	if ps == nil {
		a.failure = fmt.Errorf("waiting for the hook failed: %v", waitErr)
		return a
	}
	status, _ := ps.Sys().(syscall.WaitStatus)
	switch cause := context.Cause(runCtx); {
	case errors.Is(cause, errOverflow):
		a.failure = fmt.Errorf("killed: its output passed %d bytes", r.opts.MaxOutputBytes)
	case !status.Exited() && errors.Is(cause, errTimeout):
		a.failure, a.timedOut = fmt.Errorf("timed out after %s and was killed", timeout), true
	case !status.Exited() && ctx.Err() != nil:
		a.failure = fmt.Errorf("cancelled: %w", context.Cause(ctx))
	case status.Signaled():
		a.failure = fmt.Errorf("killed by signal %d (%s)", int(status.Signal()), status.Signal())
	default:
		a.exitCode = status.ExitStatus()
		// bash's 126 and 127: the command could not be run at all (not
		// found, not executable). Claude Code counts them as ordinary
		// non-blocking errors, so a mistyped path silently disables a
		// gate; toold counts them as a failed hook.
		if a.exitCode == 126 || a.exitCode == 127 {
			a.failure = fmt.Errorf("exit code %d: the command could not be run: %s", a.exitCode, firstLine(string(a.stderr)))
		}
	}
	return a
}

// environ is the hook's environment: the runner's base environment minus
// OTEL_* (Claude Code removes them so that a hook does not report into the
// agent's telemetry), plus CLAUDE_PROJECT_DIR.
func (r *Runner) environ(projectDir string) []string {
	env := make([]string, 0, len(r.opts.Environ)+1)
	for _, kv := range r.opts.Environ {
		if strings.HasPrefix(kv, "OTEL_") || strings.HasPrefix(kv, "CLAUDE_PROJECT_DIR=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "CLAUDE_PROJECT_DIR="+projectDir)
}

func expandProjectDir(s, dir string) string {
	s = strings.ReplaceAll(s, "${CLAUDE_PROJECT_DIR}", dir)
	return strings.ReplaceAll(s, "$CLAUDE_PROJECT_DIR", dir)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
