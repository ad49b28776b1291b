package sandbox

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Launcher starts the commands of every session, confined. It is safe for
// concurrent use.
type Launcher struct {
	status Status
	exe    string
	args   []string
	env    []string
	read   []string
	write  []string
	// deniedPorts are the TCP ports commands may not connect to; ports
	// is their ruleset, built on first use.
	deniedPorts []uint16
	portsOnce   sync.Once
	ports       layer
	portsErr    error
	limits      Limits
	// cgroups is nil without a writable cgroup v2 subtree; reaper is set
	// instead.
	cgroups *cgroupTree
	reaper  *reaper
	// warm holds helpers started ahead, where there are no cgroups.
	warm *warmPool
	// stateDir holds one temporary directory per session.
	stateDir string

	mu       sync.Mutex
	closed   bool
	sessions map[string]*session
}

// New probes the machine, sets up the cgroup subtree or the subreaper and
// logs which protections are active. With ModeRequired it fails when any is
// missing; with ModeOff it probes nothing and commands run unconfined.
func New(opts Options, log *slog.Logger) (*Launcher, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	mode := opts.Mode
	if mode == "" {
		mode = ModeBestEffort
	}
	l := &Launcher{status: Status{Mode: mode, Network: opts.Network}, sessions: make(map[string]*session)}
	if mode == ModeOff {
		log.Warn("sandbox off: commands run as toold's user with toold's access", "sandbox", l.status)
		return l, nil
	}
	if err := l.setup(opts); err != nil {
		l.Close()
		return nil, err
	}
	if mode == ModeRequired && len(l.status.Missing) > 0 {
		l.Close()
		return nil, fmt.Errorf("sandbox required but this machine lacks: %s", strings.Join(l.status.Missing, "; "))
	}
	log.Info("sandbox", "sandbox", l.status)
	for _, m := range l.status.Missing {
		log.Warn("sandbox protection missing", "reason", m)
	}
	return l, nil
}

func (l *Launcher) setup(opts Options) error {
	st := &l.status
	l.limits = opts.Limits
	st.Limits = opts.Limits
	l.exe = opts.Executable
	if l.exe == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("sandbox: finding toold's binary for the helper: %w", err)
		}
		l.exe = exe
	}
	l.args = opts.HelperArgs
	if len(l.args) == 0 {
		l.args = []string{HelperCommand}
	}
	l.env = opts.HelperEnv
	l.read = append(append([]string(nil), DefaultReadDirs...), opts.ReadDirs...)
	l.write = opts.WriteDirs

	var why string
	st.LandlockABI, why = landlockABI()
	st.Landlock = st.LandlockABI > 0
	l.miss(why)
	if !opts.Network {
		st.NetworkDenied = st.LandlockABI >= 4
		if !st.NetworkDenied {
			l.miss(fmt.Sprintf("network: the operator turned the network off, but Landlock ABI %d cannot deny TCP connect and bind (ABI 4, Linux 6.7, is needed)", st.LandlockABI))
		}
	}
	if err := l.setupReach(opts); err != nil {
		return err
	}

	st.UID, st.GID = os.Getuid(), os.Getgid()
	st.User = opts.User
	if st.User == "" {
		st.User = "nobody"
	}
	if os.Geteuid() == 0 {
		uid, gid, err := sandboxUser(st.User)
		if err != nil {
			l.miss("user switch: " + err.Error())
			st.User = "root"
		} else {
			st.UserSwitch, st.UID, st.GID = true, uid, gid
		}
	} else {
		st.User = fmt.Sprintf("uid %d (toold's own)", st.UID)
	}
	if !st.UserSwitch && st.UID == 0 {
		// Root ignores RLIMIT_NPROC.
		l.limits.Processes = 0
	}
	l.limits = l.limits.clamp()
	st.Limits = l.limits

	l.setupCgroups(opts.CgroupDir)
	if l.cgroups == nil {
		size := opts.WarmHelpers
		if size == 0 {
			size = DefaultWarmHelpers
		}
		l.warm = newWarmPool(l, max(size, 0))
	}

	dir, err := os.MkdirTemp(opts.StateDir, "toold-sandbox-")
	if err != nil {
		return fmt.Errorf("sandbox: making the sessions' temporary directory: %w", err)
	}
	l.stateDir = dir
	// Other users may pass through to their own session's directory but
	// not list the others.
	if err := os.Chmod(dir, 0o711); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if st.UserSwitch {
		return reachable(dir)
	}
	return nil
}

// reachable checks that every directory above dir lets others pass, so
// that the sandbox user can reach its HOME and TMPDIR below it.
func reachable(dir string) error {
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		if fi.Mode().Perm()&0o001 == 0 {
			return fmt.Errorf("sandbox: the sandbox user cannot pass through %s (mode %o) to the sessions' directories; choose another state directory", d, fi.Mode().Perm())
		}
		if d == "/" || d == "." {
			return nil
		}
	}
}

// setupCgroups makes the per-command cgroup subtree or, failing that,
// turns toold into a child subreaper.
func (l *Launcher) setupCgroups(override string) {
	st := &l.status
	var err error
	own := override
	switch {
	case override == "-":
		err = errors.New("turned off by configuration")
	case override == "":
		own, err = ownCgroupDir()
	}
	if err == nil {
		l.cgroups, err = newCgroupTree(own)
	}
	if err != nil {
		l.miss("cgroup: " + err.Error() + "; commands are tracked through a child subreaper instead, and memory.max and pids.max cannot be set")
		if r, rerr := newReaper(true); rerr != nil {
			l.miss("subreaper: " + rerr.Error())
		} else {
			l.reaper, st.Subreaper = r, true
		}
		return
	}
	st.Cgroup, st.CgroupDir = true, l.cgroups.base
	st.SweptCgroups = l.cgroups.swept
	// Not fatal: without it orphans of killed commands are init's to reap.
	l.reaper, _ = newReaper(false)
	st.MemoryMax, st.PidsMax = l.cgroups.memory, l.cgroups.pids
	if (l.limits.MemoryMax > 0 && !st.MemoryMax) || (l.limits.PidsMax > 0 && !st.PidsMax) {
		l.miss("cgroup limits: " + l.cgroups.note)
	}
}

func (l *Launcher) miss(why string) {
	if why != "" {
		l.status.Missing = append(l.status.Missing, why)
	}
}

// Status reports the protections in force.
func (l *Launcher) Status() Status {
	st := l.status
	st.Missing = append([]string(nil), st.Missing...)
	st.Hidden = append([]string(nil), st.Hidden...)
	st.DeniedPorts = append([]int(nil), st.DeniedPorts...)
	return st
}

// Enabled reports whether commands are confined (any mode but off).
func (l *Launcher) Enabled() bool { return l != nil && l.status.Mode != ModeOff }

// Close kills every command still running, removes every session's
// temporary directory and the cgroup subtree. Call it on shutdown, after
// the background shells are closed.
func (l *Launcher) Close() error {
	if l.warm != nil {
		l.warm.close()
	}
	l.mu.Lock()
	l.closed = true
	sessions := l.sessions
	l.sessions = make(map[string]*session)
	l.mu.Unlock()
	var errs []error
	for _, s := range sessions {
		errs = append(errs, s.close())
	}
	if l.stateDir != "" {
		errs = append(errs, os.RemoveAll(l.stateDir))
	}
	if l.cgroups != nil {
		errs = append(errs, l.cgroups.close())
	}
	if l.ports.fd > 0 { // the zero layer (never built) is not a descriptor of ours
		unix.Close(l.ports.fd)
	}
	if l.reaper != nil {
		l.reaper.stop()
	}
	return errors.Join(errs...)
}

// CloseSession kills the session's commands that are still running and
// removes its temporary directory. Call it when the session is deleted or
// expires, after the shells registry's CloseSession.
func (l *Launcher) CloseSession(sessionID string) error {
	l.mu.Lock()
	s := l.sessions[sessionID]
	delete(l.sessions, sessionID)
	l.mu.Unlock()
	if s == nil {
		return nil
	}
	return s.close()
}
