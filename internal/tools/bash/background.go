package bash

import (
	"context"
	"errors"
	"fmt"

	"github.com/toold/toold/internal/sandbox"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/shells"
)

// runBackground starts the command as a background shell of the session
// and returns its id at once. The shell runs like a foreground call (bash
// -c, the session's directory and environment, its own process group) but
// its output goes to the shells registry, its directory changes stay its
// own and no timeout applies.
func (c *call) runBackground(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	reg := c.tool.shells
	if reg == nil {
		return nil, tool.Errorf(tool.KindUnavailable, "background commands are not available on this server; run the command without run_in_background")
	}
	cwd := sessionDir(env)
	spec := shells.Spec{
		Path:        c.tool.bash,
		Args:        []string{c.tool.bash, "-c", c.command},
		Dir:         cwd,
		Env:         sessionEnviron(env),
		Command:     c.command,
		Description: c.description,
		ToolUseID:   env.ToolUseID,
	}
	if sb := c.tool.sandbox; sb != nil {
		// No context: a background shell outlives the call that
		// started it, until TaskStop or the end of its session.
		proc, err := sb.Command(context.Background(), sandbox.Request{
			SessionID: env.SessionID,
			Dirs:      env.Files.Dirs(),
			Dir:       cwd,
			Env:       spec.Env,
			Path:      spec.Path,
			Args:      spec.Args,
		})
		if err != nil {
			return nil, tool.Errorf(tool.KindUnavailable, "bash could not be prepared: %v", err)
		}
		spec.Process = proc
	}
	info, err := reg.Start(env.SessionID, spec)
	switch {
	case errors.Is(err, shells.ErrLimit):
		return nil, tool.Failf("The command was not started: this session already has %d background shells running, as many as it may have. Stop one with the TaskStop tool first.", len(reg.List(env.SessionID)))
	case errors.Is(err, shells.ErrClosed):
		return nil, tool.Errorf(tool.KindUnavailable, "The server is shutting down; background commands cannot be started.")
	case err != nil:
		return nil, c.startError(ctx, env, cwd, err)
	}
	return tool.Text(backgroundStarted(info.ID)).
		WithMeta("task_id", info.ID).
		WithMeta("background", true).
		WithMeta("cwd", cwd), nil
}

// sessionDir is the directory a command of the session starts in.
func sessionDir(env *tool.Env) string {
	if env.Cwd != "" {
		return env.Cwd
	}
	return env.Files.Primary()
}

// sessionEnviron is the environment of a command of the session.
func sessionEnviron(env *tool.Env) []string {
	if env.Environ == nil {
		// A nil Env would hand toold's own environment to the command.
		return []string{}
	}
	return env.Environ
}

// backgroundStarted is the result of a command started in the background:
// Claude Code's, naming the task's output file (its handle, which Read
// takes as file_path). The notification it promises is the one the
// registry's OnEnd posts (notify.Queue.ShellEnded).
func backgroundStarted(id string) string {
	return fmt.Sprintf("Command running in background with ID: %s. Output is being written to: %s. You will be notified when it completes. To check interim output, use Read on that file path.", id, tool.TaskOutputHandle(id))
}
