package sandbox

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"

	"github.com/toold/toold/internal/procgroup"
)

// Request is one command to start.
type Request struct {
	SessionID string
	// Dirs are the session's directories, primary first; commands may
	// write in them.
	Dirs []string
	// Dir is the working directory.
	Dir string
	// Env is the command's whole environment: the allow-listed part of
	// toold's and the session's own variables. HOME and TMPDIR are set to
	// the session's temporary directory on top of it.
	Env []string
	// Path is the program (bash) and Args its argv, Args[0] included.
	Path string
	Args []string
}

// Cmd is a command prepared by Command. Set Cmd's Stdin, Stdout, Stderr
// and WaitDelay, then call Start and Wait on the Cmd, never on Cmd.Cmd.
type Cmd struct {
	Cmd *exec.Cmd

	l    *Launcher
	sess *session
	cg   *commandCgroup
	spec *helperSpec
	// prefix is what was put before the script.
	prefix string
	// done is closed once Wait has cleaned up.
	done chan struct{}
	// drain is SetDrain's.
	drain func() error

	// ctx, helper and helped are set where a helper runs the command.
	ctx    context.Context
	helper *warmHelper
	helped *helped

	mu      sync.Mutex
	started bool
	ended   bool
	// killed: Kill ended the command (a helper, with it).
	killed bool
	// status is a helped command's wait status.
	status    syscall.WaitStatus
	hasStatus bool
}

// Command prepares a command: Args must be bash -c SCRIPT. With a non-nil
// ctx, cancelling it kills the command's whole tree (exec.CommandContext's
// Cancel). In ModeOff the command is Path itself in a process group of its
// own; where a cgroup holds it, toold starts Path confined; otherwise the
// helper supervises it.
func (l *Launcher) Command(ctx context.Context, req Request) (*Cmd, error) {
	c := &Cmd{l: l, done: make(chan struct{})}
	var cmd *exec.Cmd
	if ctx != nil {
		// The path is set below; an empty name makes CommandContext
		// record a lookup error, which is cleared here.
		cmd = exec.CommandContext(ctx, "")
		cmd.Err = nil
		cmd.Cancel = c.Kill
	} else {
		cmd = &exec.Cmd{}
	}
	c.Cmd = cmd
	cmd.Dir = req.Dir
	procgroup.Session(cmd)
	env := req.Env
	if env == nil {
		env = []string{}
	}
	if !l.Enabled() {
		cmd.Path, cmd.Args, cmd.Env = req.Path, req.Args, env
		cmd.SysProcAttr = nil
		procgroup.Prepare(cmd, 0)
		if ctx != nil {
			cmd.Cancel = c.Kill
		}
		return c, nil
	}
	sess, err := l.session(req.SessionID)
	if err != nil {
		return nil, err
	}
	if err := sess.prepare(req.Dirs); err != nil {
		return nil, err
	}
	c.sess = sess
	c.prefix = l.limits.ulimitPrefix(posixIn(env))
	args, err := limitArgs(req.Args, c.prefix)
	if err != nil {
		return nil, err
	}
	c.spec = l.spec(sess, req)
	env = l.environ(sess, env)
	cmd.Path, cmd.Args, cmd.Env = req.Path, args, env
	if l.cgroups == nil {
		// A helper will run it; cmd only carries the request.
		c.ctx = ctx
		return c, nil
	}
	cmd.SysProcAttr.Credential = c.spec.credential()
	cg, err := l.cgroups.create(l.limits)
	if err != nil {
		return nil, err
	}
	c.cg = cg
	cmd.SysProcAttr.UseCgroupFD = true
	cmd.SysProcAttr.CgroupFD = cg.fd
	return c, nil
}

// posixIn reports whether bash will start in POSIX mode.
func posixIn(env []string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, "POSIXLY_CORRECT=") {
			return true
		}
	}
	return false
}

// ScriptPrefix is the text the sandbox put before the command's script (the
// resource limits), which bash echoes with a syntax error on the first
// line.
func (c *Cmd) ScriptPrefix() string { return c.prefix }

// spec is how one command is confined.
func (l *Launcher) spec(s *session, req Request) *helperSpec {
	return &helperSpec{
		Path:        req.Path,
		SwitchUser:  l.status.UserSwitch,
		UID:         l.status.UID,
		GID:         l.status.GID,
		Landlock:    l.status.Landlock,
		LandlockABI: l.status.LandlockABI,
		ReadDirs:    l.read,
		WriteDirs:   append(append(append([]string(nil), req.Dirs...), s.dir), l.write...),
		DevFiles:    devFiles,
		DenyNetwork: !l.status.Network,
		Hidden:      l.status.Hidden,
	}
}

// devFiles are the device files every command may read and write.
var devFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"}

// Start starts the command. Every started command must be waited for.
func (c *Cmd) Start() error {
	if c.sess == nil {
		if err := procgroup.Start(c.Cmd); err != nil {
			return err
		}
		c.mu.Lock()
		c.started = true
		c.mu.Unlock()
		return nil
	}
	if err := c.sess.add(c); err != nil {
		c.release()
		return err
	}
	var err error
	if c.cg == nil {
		err = c.startHelped()
	} else {
		err = c.startInCgroup()
	}
	if err != nil {
		c.sess.remove(c)
		c.release()
		return err
	}
	c.mu.Lock()
	c.started = true
	c.mu.Unlock()
	if c.helped != nil {
		c.helped.watch(c.ctx, c.Kill)
	}
	return nil
}

// startInCgroup confines and starts the command itself, into its cgroup.
func (c *Cmd) startInCgroup() error {
	defer c.cg.closeFD()
	return startRecorded(c.Cmd, func() error {
		ports, err := c.l.portLayer()
		if err != nil {
			return err
		}
		r, err := c.sess.ruleset(c.spec)
		if err != nil {
			return err
		}
		return c.sess.start(r, ports, c.Cmd)
	})
}

// Wait waits for the command, then kills every process it left behind
// (those that left its process group and session included) and removes
// its cgroup.
func (c *Cmd) Wait() error {
	var err error
	if c.helped != nil {
		c.status, c.hasStatus, err = c.waitHelped()
	} else {
		err = c.Cmd.Wait()
	}
	if c.drain != nil {
		if derr := c.drain(); err == nil {
			err = derr
		}
	}
	c.mu.Lock()
	c.ended = true
	killed := c.killed
	c.mu.Unlock()
	if c.sess == nil {
		procgroup.Kill(c.Cmd.Process.Pid)
		procgroup.Forget(c.Cmd.Process.Pid)
		return err
	}
	reuse := false
	switch {
	case c.helper == nil:
		procgroup.Forget(c.Cmd.Process.Pid)
	case killed || c.helper.dead || !c.hasStatus:
		// Kill may have hit the helper after it sent the status.
		c.helper.discard()
		c.l.warm.refill()
	default:
		reuse = true
	}
	c.release()
	// Once back in the pool the helper is another command's.
	if reuse {
		c.l.warm.put(c.helper)
	}
	c.sess.remove(c)
	return err
}

// SetDrain makes Wait call drain once the command's top process has been
// reaped (or its helper has sent the command's status), before what the
// command left is killed and its cgroup removed: for a caller that reads
// the command's output through pipes of its own (procgroup.Pipe) and waits
// for them there, while the processes that hold them can still finish
// writing, as exec.Cmd waits for the pipes it makes (WaitDelay). drain's
// error is Wait's when the wait had none. Call it before Start.
func (c *Cmd) SetDrain(drain func() error) { c.drain = drain }

// Status is the command's wait status once Wait has returned; false when
// it could not be waited for.
func (c *Cmd) Status() (syscall.WaitStatus, bool) {
	if c.helped != nil {
		return c.status, c.hasStatus
	}
	if ps := c.Cmd.ProcessState; ps != nil {
		ws, ok := ps.Sys().(syscall.WaitStatus)
		return ws, ok
	}
	return 0, false
}

// release kills what is left of the command and frees its cgroup.
func (c *Cmd) release() {
	defer close(c.done)
	switch {
	case c.cg != nil:
		c.cg.remove()
	case c.helper != nil:
		// The helper has killed what the command left, or Kill has
		// killed the helper's group; the helper may serve another
		// command by now.
	case c.Cmd.Process != nil:
		procgroup.Kill(c.Cmd.Process.Pid)
	}
	// A helper kills what its command leaves before it exits; only one
	// killed with its command may leave strays to toold, which must be
	// gone before the call ends. The rest is reaping, which can wait.
	c.mu.Lock()
	killed := c.killed
	c.mu.Unlock()
	switch r := c.l.reaper; {
	case r == nil:
	case c.cg == nil && (killed || c.helper == nil || c.helper.dead):
		r.sweep()
	default:
		r.sweepSoon()
	}
}

// Kill kills every process of the command. Killing one that has ended is
// no error.
func (c *Cmd) Kill() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.started && c.sess != nil || c.ended {
		return os.ErrProcessDone
	}
	if c.cg != nil {
		if err := c.cg.kill(); err != nil {
			return err
		}
		return nil
	}
	if c.Cmd.Process == nil {
		return os.ErrProcessDone
	}
	c.killed = true
	return procgroup.Kill(c.Cmd.Process.Pid)
}

// Pid is the process id of the command's top process (bash, or the helper
// that supervises bash), which is also its process group id. A helper
// outlives the command and may run others after it.
func (c *Cmd) Pid() int {
	if c.Cmd.Process == nil {
		return 0
	}
	return c.Cmd.Process.Pid
}

// Exec is the underlying command, for setting its input and output.
func (c *Cmd) Exec() *exec.Cmd { return c.Cmd }
