package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// starter is an OS thread of its own that has set no_new_privs and, when
// its ruleset is not -1, enforced a Landlock ruleset, and from which
// commands are cloned. Both are attributes of the thread, not of the
// process, and a clone inherits them from the thread that calls it, so a
// command starts confined while toold's other threads stay as they were:
// there is no helper process to exec between toold and bash.
//
// One starter serves every command of a ruleset (a session's): enforcing
// a ruleset copies each of its rules into a new domain, which with the
// 65,535 port rules of portRules costs tens of milliseconds, while a
// clone only takes a reference to the thread's domain. The layers are
// enforced in order, each one narrowing the last: the session's file
// ruleset, then the launcher's shared port ruleset. The thread is
// never unlocked, so the Go runtime ends it with the goroutine instead
// of reusing it.
//
// A domain with the port rules takes about 4.5 MB of kernel memory, so a
// starter left idle for starterIdle ends, and the session's next command
// makes a new one; running commands keep their own reference.
//
// The rest of the confinement comes from cmd's SysProcAttr: the user
// switch (Credential) and the cgroup (CgroupFD), both applied by the
// kernel or by Go's child code before exec.
type starter struct {
	reqs chan startRequest
	// stop asks the thread to end; done is closed once it no longer
	// takes requests.
	stop, done chan struct{}
	once       sync.Once
	idle       time.Duration
}

// starterIdle is how long a starter waits for its next command.
var starterIdle = 30 * time.Second

// errStarterGone: the starter ended (idle, or closed) before it took the
// request; the caller makes a new one.
var errStarterGone = errors.New("sandbox: the confined thread ended")

type startRequest struct {
	cmd  *exec.Cmd
	errc chan error
}

// layer is one Landlock ruleset to enforce; fd -1 is none.
type layer struct {
	fd    int
	flags uint32
}

// newStarter confines a new thread with the layers (none: no_new_privs
// only). The caller may close the descriptors once it returns.
func newStarter(layers ...layer) (*starter, error) {
	s := &starter{reqs: make(chan startRequest), stop: make(chan struct{}), done: make(chan struct{}), idle: starterIdle}
	ready := make(chan error, 1)
	go s.serve(layers, ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	return s, nil
}

func (s *starter) serve(layers []layer, ready chan<- error) {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		// The runtime cannot end the main thread; it would park it
		// for good, confined. Holding it until the other goroutine has
		// locked a thread of its own, that one is sure to be another.
		inner := make(chan error, 1)
		go s.serve(layers, inner)
		err := <-inner
		runtime.UnlockOSThread()
		ready <- err
		return
	}
	// The thread ends when serve returns: it stays locked.
	defer close(s.done)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		ready <- fmt.Errorf("sandbox: setting no_new_privs: %w", err)
		return
	}
	for _, l := range layers {
		if l.fd < 0 {
			continue
		}
		if err := ll.LandlockRestrictSelf(l.fd, l.flags); err != nil {
			ready <- fmt.Errorf("sandbox: enforcing the Landlock ruleset: %w", err)
			return
		}
	}
	ready <- nil
	idle := time.NewTimer(s.idle)
	defer idle.Stop()
	for {
		select {
		case r := <-s.reqs:
			r.errc <- r.cmd.Start()
			idle.Reset(s.idle)
		case <-idle.C:
			return
		case <-s.stop:
			return
		}
	}
}

// start clones cmd from the confined thread, or returns errStarterGone.
func (s *starter) start(cmd *exec.Cmd) error {
	errc := make(chan error, 1)
	select {
	case s.reqs <- startRequest{cmd, errc}:
		return <-errc
	case <-s.done:
		return errStarterGone
	}
}

// close ends the thread.
func (s *starter) close() { s.once.Do(func() { close(s.stop) }) }

// startConfined starts one command from a starter made for it alone.
func startConfined(cmd *exec.Cmd, layers ...layer) error {
	s, err := newStarter(layers...)
	if err != nil {
		return err
	}
	defer s.close()
	return s.start(cmd)
}

// credential is the SysProcAttr.Credential of a command: the sandbox user
// with no supplementary groups, or nil to stay toold's user.
func (s *helperSpec) credential() *syscall.Credential {
	if !s.SwitchUser {
		return nil
	}
	return &syscall.Credential{Uid: uint32(s.UID), Gid: uint32(s.GID), Groups: []uint32{}}
}

// rulesetFD builds the Landlock ruleset the spec describes. It returns -1
// when the spec asks for no Landlock. The caller closes the descriptor.
func (s *helperSpec) rulesetFD() (int, uint32, error) {
	if !s.Landlock {
		return -1, 0, nil
	}
	cfg, rules := landlockRuleset(s)
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return -1, 0, fmt.Errorf("sandbox: building the Landlock ruleset: %w", err)
	}
	if fd < 0 {
		return -1, 0, errors.New("sandbox: this kernel has no Landlock")
	}
	return fd, flags, nil
}

// landlockRuleset is the newest configuration go-landlock knows, cut down
// to what the kernel supports. Scoping (ABI 6) keeps commands from
// signalling toold or reaching abstract Unix sockets outside the sandbox.
// The hidden paths are cut out of every grant (see hiddenSet); the denied
// ports are a ruleset of their own (portRuleset).
func landlockRuleset(spec *helperSpec) (landlock.Config, []landlock.Rule) {
	cfg := landlock.Config{
		HandledAccessFS: landlock.V11.HandledAccessFS,
		Scoped:          landlock.V11.Scoped,
	}
	var rules []landlock.Rule
	if spec.DenyNetwork {
		cfg.HandledAccessNet = landlock.V11.HandledAccessNet
	}
	hidden := newHiddenSet(spec.Hidden)
	read := hidden.split(spec.ReadDirs)
	write := hidden.split(spec.WriteDirs)
	writeDirs := landlock.RWDirs(write.dirs...).IgnoreIfMissing()
	// Moving a file between directories (mv, git) needs "refer", which
	// exists from ABI 2 on; asking for it on ABI 1 would make go-landlock
	// give up on Landlock altogether.
	if spec.LandlockABI >= 2 {
		writeDirs = writeDirs.WithRefer()
	}
	dev := slices.DeleteFunc(slices.Clone(spec.DevFiles), hidden.covers)
	rules = append(rules,
		landlock.RODirs(read.dirs...).IgnoreIfMissing(),
		landlock.ROFiles(read.files...).IgnoreIfMissing(),
		writeDirs,
		landlock.RWFiles(write.files...).IgnoreIfMissing(),
		landlock.RWFiles(dev...).WithIoctlDev().IgnoreIfMissing(),
	)
	return cfg.BestEffort(), rules
}

// portRuleset builds the ruleset that grants TCP connect to every port but
// the denied ones, and handles nothing else. Landlock rules only grant,
// one port each, so "all but these" is 65,535 rules minus a few: building
// them takes a few hundred milliseconds, so it is done once per launcher
// and the ruleset stacked on each session's (see starter).
//
// Landlock refuses linking or renaming a file into another directory
// ("refer") in every layer that does not grant it, even in a layer that
// handles no file access at all: a ports-only layer would make every
// cross-directory link and rename fail with EXDEV (git's object store, a
// package manager's unpacking). So this layer grants refer everywhere;
// the session's own layer still decides where it may happen.
func portRuleset(denied []uint16) (layer, error) {
	cfg := landlock.Config{HandledAccessFS: ll.AccessFSRefer, HandledAccessNet: ll.AccessNetConnectTCP}
	rules := append(portRules(denied), landlock.PathAccess(ll.AccessFSRefer, "/"))
	fd, flags, err := cfg.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return layer{fd: -1}, fmt.Errorf("sandbox: building the port ruleset: %w", err)
	}
	return layer{fd, flags}, nil
}

func portRules(denied []uint16) []landlock.Rule {
	rules := make([]landlock.Rule, 0, 65535)
	for p := 1; p <= 65535; p++ {
		if !slices.Contains(denied, uint16(p)) {
			rules = append(rules, landlock.ConnectTCP(uint16(p)))
		}
	}
	return rules
}
