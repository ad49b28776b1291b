package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"sync"
	"syscall"
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
	// done is closed once Wait has cleaned up.
	done chan struct{}

	mu      sync.Mutex
	started bool
	ended   bool
}

// Command prepares a command. With a non-nil ctx, cancelling it kills the
// command's whole tree (exec.CommandContext's Cancel). Without the helper
// (ModeOff) the command is Path itself in a process group of its own.
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
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	env := req.Env
	if env == nil {
		env = []string{}
	}
	if !l.Enabled() {
		cmd.Path, cmd.Args, cmd.Env = req.Path, req.Args, env
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
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
	spec := l.spec(sess, req)
	cmd.Path = l.exe
	cmd.Args = append(append(append([]string{l.exe}, l.args...), spec.encode(), "--"), req.Args...)
	cmd.Env = append(l.environ(sess, env), l.env...)
	if l.cgroups != nil {
		cg, err := l.cgroups.create(l.limits)
		if err != nil {
			return nil, err
		}
		c.cg = cg
		cmd.SysProcAttr.UseCgroupFD = true
		cmd.SysProcAttr.CgroupFD = cg.fd
	}
	return c, nil
}

// spec is the helper's instructions for one command.
func (l *Launcher) spec(s *session, req Request) *helperSpec {
	spec := &helperSpec{
		Path:        req.Path,
		SwitchUser:  l.status.UserSwitch,
		UID:         l.status.UID,
		GID:         l.status.GID,
		Landlock:    l.status.Landlock,
		ReadDirs:    l.read,
		WriteDirs:   append(append(append([]string(nil), req.Dirs...), s.dir), l.write...),
		DevFiles:    devFiles,
		DenyNetwork: !l.status.Network,
		Rlimits:     l.limits.rlimits(),
		Supervise:   l.cgroups == nil,
		Unset:       l.unset,
	}
	return spec
}

// devFiles are the device files every command may read and write.
var devFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"}

// rlimits lists the limits that are set.
func (lim Limits) rlimits() []rlimit {
	var out []rlimit
	for _, r := range []rlimit{
		{syscall.RLIMIT_CPU, lim.CPUSeconds},
		{syscall.RLIMIT_AS, lim.AddressSpace},
		{syscall.RLIMIT_NOFILE, lim.OpenFiles},
		{rlimitNproc, lim.Processes},
		{syscall.RLIMIT_FSIZE, lim.FileSize},
	} {
		if r.Value > 0 {
			out = append(out, r)
		}
	}
	return out
}

// rlimitNproc is RLIMIT_NPROC, which package syscall does not name.
const rlimitNproc = 6

// Start starts the command. Every started command must be waited for.
func (c *Cmd) Start() error {
	if c.sess == nil {
		return c.Cmd.Start()
	}
	if err := c.sess.add(c); err != nil {
		c.release()
		return err
	}
	var err error
	if r := c.l.reaper; r != nil {
		err = r.starting(func() (int, error) {
			if err := c.Cmd.Start(); err != nil {
				return 0, err
			}
			return c.Cmd.Process.Pid, nil
		})
	} else {
		err = c.Cmd.Start()
	}
	if c.cg != nil {
		c.cg.closeFD()
	}
	if err != nil {
		c.sess.remove(c)
		c.release()
		return err
	}
	c.mu.Lock()
	c.started = true
	c.mu.Unlock()
	return nil
}

// Wait waits for the command, then kills every process it left behind
// (those that left its process group and session included) and removes
// its cgroup.
func (c *Cmd) Wait() error {
	err := c.Cmd.Wait()
	c.mu.Lock()
	c.ended = true
	c.mu.Unlock()
	if c.sess == nil {
		killGroup(c.Cmd.Process.Pid)
		return err
	}
	if r := c.l.reaper; r != nil {
		r.ended(c.Cmd.Process.Pid)
	}
	c.release()
	c.sess.remove(c)
	return err
}

// release kills what is left of the command and frees its cgroup.
func (c *Cmd) release() {
	defer close(c.done)
	if c.cg != nil {
		c.cg.remove()
	} else if c.Cmd.Process != nil {
		killGroup(c.Cmd.Process.Pid)
	}
	if r := c.l.reaper; r != nil {
		r.sweep()
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
	err := killGroup(c.Cmd.Process.Pid)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// Pid is the process id of the command's top process (bash, or the helper
// that becomes or supervises bash), which is also its process group id.
func (c *Cmd) Pid() int {
	if c.Cmd.Process == nil {
		return 0
	}
	return c.Cmd.Process.Pid
}

// Exec is the underlying command, for setting its input and output.
func (c *Cmd) Exec() *exec.Cmd { return c.Cmd }
