package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// startConfined starts cmd from an OS thread of its own that first sets
// no_new_privs and, when rulesetFD is not -1, enforces that Landlock
// ruleset. Both are attributes of the thread, not of the process, and a
// clone inherits them from the thread that calls it, so the command starts
// confined while toold's other threads stay as they were: there is no
// helper process to exec between toold and bash. The thread is never
// unlocked, so the Go runtime ends it with the goroutine instead of
// reusing it.
//
// The rest of the confinement comes from cmd's SysProcAttr: the user
// switch (Credential) and the cgroup (CgroupFD), both applied by the
// kernel or by Go's child code before exec.
func startConfined(cmd *exec.Cmd, rulesetFD int, flags uint32) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if unix.Gettid() == unix.Getpid() {
			// The runtime cannot end the main thread; it would park
			// it for good, confined. Holding it here, the recursive
			// call's goroutine is sure to get another thread.
			errc <- startConfined(cmd, rulesetFD, flags)
			runtime.UnlockOSThread()
			return
		}
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			errc <- fmt.Errorf("sandbox: setting no_new_privs: %w", err)
			return
		}
		if rulesetFD >= 0 {
			if err := ll.LandlockRestrictSelf(rulesetFD, flags); err != nil {
				errc <- fmt.Errorf("sandbox: enforcing the Landlock ruleset: %w", err)
				return
			}
		}
		errc <- cmd.Start()
	}()
	return <-errc
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
func landlockRuleset(spec *helperSpec) (landlock.Config, []landlock.Rule) {
	cfg := landlock.Config{
		HandledAccessFS: landlock.V11.HandledAccessFS,
		Scoped:          landlock.V11.Scoped,
	}
	if spec.DenyNetwork {
		cfg.HandledAccessNet = landlock.V11.HandledAccessNet
	}
	write := landlock.RWDirs(spec.WriteDirs...).IgnoreIfMissing()
	// Moving a file between directories (mv, git) needs "refer", which
	// exists from ABI 2 on; asking for it on ABI 1 would make go-landlock
	// give up on Landlock altogether.
	if spec.LandlockABI >= 2 {
		write = write.WithRefer()
	}
	rules := []landlock.Rule{
		landlock.RODirs(spec.ReadDirs...).IgnoreIfMissing(),
		write,
		landlock.RWFiles(spec.DevFiles...).WithIoctlDev().IgnoreIfMissing(),
	}
	return cfg.BestEffort(), rules
}
