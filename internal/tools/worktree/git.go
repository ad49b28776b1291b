package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/toold/toold/internal/procgroup"
	"github.com/toold/toold/internal/sandbox"
)

// gitTimeout bounds one git command: creating a worktree checks out a
// whole tree, which takes seconds on a large repository, never minutes.
const gitTimeout = 2 * time.Minute

// maxGitOutput bounds what one git command may print before it is cut:
// status of a worktree with very many changed files is counted, not kept.
const maxGitOutput = 4 << 20

// gitRunner runs git for a session: confined as the session's Bash
// commands are when a sandbox is given (git reads the repository's
// configuration, which the model can write), else as toold's user.
// Hooks and the fsmonitor are switched off on every command, so that
// creating a worktree runs no program of the repository's choosing.
type gitRunner struct {
	git     string
	bash    string
	sandbox *sandbox.Launcher
}

// gitResult is one finished git command.
type gitResult struct {
	stdout, stderr string
	exit           int
}

var errGitOutput = errors.New("git printed more than 4 MiB")

// run runs git args in dir for the session, with environ (the session's
// allow-listed environment). A non-zero exit is a result, not an error.
func (g *gitRunner) run(ctx context.Context, session string, dirs []string, dir string, environ []string, args ...string) (gitResult, error) {
	return g.runWithin(ctx, gitTimeout, session, dirs, dir, environ, args...)
}

// runWithin is run with a time limit of its own.
func (g *gitRunner) runWithin(ctx context.Context, limit time.Duration, session string, dirs []string, dir string, environ []string, args ...string) (gitResult, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	argv := append([]string{"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "advice.detachedHead=false"}, args...)
	env := append(append([]string(nil), environ...), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	var out, errb capped
	var cmd interface {
		Start() error
		Wait() error
	}
	if g.sandbox.Enabled() {
		// The sandbox starts bash -c SCRIPT (it puts the resource
		// limits in front of the script); the arguments follow as "$@".
		c, err := g.sandbox.Command(ctx, sandbox.Request{
			SessionID: session, Dirs: dirs, Dir: dir, Env: env, Path: g.bash,
			Args: append([]string{g.bash, "-c", `exec "$0" "$@"`, g.git}, argv...),
		})
		if err != nil {
			return gitResult{}, err
		}
		c.Cmd.Stdout, c.Cmd.Stderr = &out, &errb
		c.Cmd.WaitDelay = time.Second
		cmd = c
	} else {
		c := exec.CommandContext(ctx, g.git, argv...)
		c.Dir, c.Env = dir, env
		c.Stdout, c.Stderr = &out, &errb
		// Its own group, which a cancel kills whole.
		procgroup.Prepare(c, time.Second)
		cmd = c
	}
	if err := cmd.Start(); err != nil {
		return gitResult{}, fmt.Errorf("starting git: %w", err)
	}
	err := cmd.Wait()
	res := gitResult{stdout: out.String(), stderr: strings.TrimSpace(errb.String())}
	if out.over || errb.over {
		return res, errGitOutput
	}
	if st, ok := cmd.(interface {
		Status() (syscall.WaitStatus, bool)
	}); ok {
		if ws, known := st.Status(); known {
			if ws.Signaled() {
				return res, fmt.Errorf("git was killed by signal %v", ws.Signal())
			}
			res.exit = ws.ExitStatus()
			return res, nil
		}
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.exit = ee.ExitCode()
		if res.exit < 0 {
			return res, fmt.Errorf("git was killed: %w", err)
		}
	default:
		if ctx.Err() != nil {
			return res, fmt.Errorf("git did not finish within %s", limit)
		}
		return res, err
	}
	return res, nil
}

// capped is a buffer that keeps at most maxGitOutput bytes.
type capped struct {
	bytes.Buffer
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := maxGitOutput - c.Len(); len(p) > room {
		c.over = true
		if room > 0 {
			c.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return c.Buffer.Write(p)
}
