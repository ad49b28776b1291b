package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"unsafe"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Exit statuses of a helper that could not start the command, as a shell
// reports a command it cannot run.
const (
	exitSetup    = 126
	exitNotFound = 127
)

// HelperMain is the hidden subcommand `toold sandbox-exec SPEC -- ARGV...`.
// toold must call it before it parses flags or starts anything else, and
// exit with its result. It confines itself as SPEC says and then execs the
// command, so on success it does not return.
func HelperMain(args []string) int {
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "toold sandbox-exec: internal command of toold; not for direct use")
		return exitSetup
	}
	spec, err := decodeSpec(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "toold sandbox-exec:", err)
		return exitSetup
	}
	if spec.Supervise {
		return supervise(spec, args)
	}
	argv := args[2:]
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(spec.Unset, name)
	})
	// Everything from here to exec must happen on one thread: Landlock
	// and no_new_privs are per thread, and exec keeps only the caller.
	runtime.LockOSThread()
	// The address-space limit goes last, just before exec: the Go runtime
	// (and the race detector in tests) maps memory as it goes and must
	// not meet it.
	limits, addressSpace := splitAddressSpace(spec.Rlimits)
	if err := setRlimits(limits); err != nil {
		return setupFailed(err)
	}
	if spec.SwitchUser {
		if err := switchUser(spec.UID, spec.GID); err != nil {
			return setupFailed(err)
		}
	}
	if err := restrictThread(spec); err != nil {
		return setupFailed(err)
	}
	err = execve(spec.Path, argv, env, addressSpace)
	fmt.Fprintf(os.Stderr, "bash: %s: %v\n", spec.Path, err)
	if errors.Is(err, syscall.ENOENT) {
		return exitNotFound
	}
	return exitSetup
}

func setupFailed(err error) int {
	fmt.Fprintln(os.Stderr, "toold sandbox-exec: the command was not started:", err)
	return exitSetup
}

// setRlimits lowers soft and hard limits together, so that the command
// cannot raise them back. A value above the current hard limit keeps the
// hard limit.
func setRlimits(limits []rlimit) error {
	for _, l := range limits {
		var cur syscall.Rlimit
		if err := syscall.Getrlimit(l.Resource, &cur); err != nil {
			return fmt.Errorf("reading rlimit %d: %w", l.Resource, err)
		}
		v := min(l.Value, cur.Max)
		if err := syscall.Setrlimit(l.Resource, &syscall.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("setting rlimit %d to %d: %w", l.Resource, v, err)
		}
	}
	return nil
}

// splitAddressSpace takes RLIMIT_AS out of limits; 0 means unset.
func splitAddressSpace(limits []rlimit) ([]rlimit, uint64) {
	var as uint64
	rest := limits[:0:0]
	for _, l := range limits {
		if l.Resource == syscall.RLIMIT_AS {
			as = l.Value
			continue
		}
		rest = append(rest, l)
	}
	return rest, as
}

// execve replaces the helper with path, setting RLIMIT_AS (when not 0)
// between the last allocation and the exec system call.
func execve(path string, argv, env []string, addressSpace uint64) error {
	pathp, err := syscall.BytePtrFromString(path)
	if err != nil {
		return err
	}
	argvp, err := syscall.SlicePtrFromStrings(argv)
	if err != nil {
		return err
	}
	envp, err := syscall.SlicePtrFromStrings(env)
	if err != nil {
		return err
	}
	if addressSpace > 0 {
		lim := unix.Rlimit{Cur: addressSpace, Max: addressSpace}
		if _, _, e := syscall.RawSyscall6(unix.SYS_PRLIMIT64, 0, unix.RLIMIT_AS, uintptr(unsafe.Pointer(&lim)), 0, 0, 0); e != 0 {
			return fmt.Errorf("setting the address-space limit: %w", e)
		}
	}
	_, _, e := syscall.RawSyscall(syscall.SYS_EXECVE,
		uintptr(unsafe.Pointer(pathp)),
		uintptr(unsafe.Pointer(&argvp[0])),
		uintptr(unsafe.Pointer(&envp[0])))
	return e
}

// switchUser drops every supplementary group, then the group, then the
// user; Go applies each to all of the process's threads.
func switchUser(uid, gid int) error {
	if err := syscall.Setgroups(nil); err != nil {
		return fmt.Errorf("dropping supplementary groups: %w", err)
	}
	if err := syscall.Setresgid(gid, gid, gid); err != nil {
		return fmt.Errorf("switching to group %d: %w", gid, err)
	}
	if err := syscall.Setresuid(uid, uid, uid); err != nil {
		return fmt.Errorf("switching to user %d: %w", uid, err)
	}
	return nil
}

// restrictThread sets no_new_privs and, when asked, enforces the Landlock
// ruleset on the calling (locked) thread only: the process is about to be
// replaced by exec.
func restrictThread(spec *helperSpec) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no_new_privs: %w", err)
	}
	if !spec.Landlock {
		return nil
	}
	cfg, rules := landlockRuleset(spec)
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("building the Landlock ruleset: %w", err)
	}
	if fd < 0 {
		return errors.New("this kernel has no Landlock")
	}
	defer unix.Close(fd)
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("enforcing the Landlock ruleset: %w", err)
	}
	return nil
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
	if abi, _ := ll.LandlockGetABIVersion(); abi >= 2 {
		write = write.WithRefer()
	}
	rules := []landlock.Rule{
		landlock.RODirs(spec.ReadDirs...).IgnoreIfMissing(),
		write,
		landlock.RWFiles(spec.DevFiles...).WithIoctlDev().IgnoreIfMissing(),
	}
	return cfg.BestEffort(), rules
}
