package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"

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
// exit with its result.
//
// toold needs it only where no cgroup can hold a command. The helper then
// stays as the command's parent and a child subreaper: a process that the
// command orphans (double fork, setsid) is re-parented to the helper rather
// than to toold, so it stays attributed to this call. The helper stays
// toold's user and unconfined, so that a command switched to another user
// cannot kill it (it runs no code but this); it starts bash confined as
// SPEC says, as toold does where cgroups exist, waits for it, kills every
// process left under it and exits with bash's status.
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
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return setupFailed(fmt.Errorf("becoming a child subreaper: %w", err))
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(spec.Unset, name)
	})
	cmd := &exec.Cmd{
		Path: spec.Path, Args: args[2:], Env: env,
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		SysProcAttr: &syscall.SysProcAttr{Credential: spec.credential()},
	}
	fd, flags, err := spec.rulesetFD()
	if err != nil {
		return setupFailed(err)
	}
	// Signals meant for the command's group reach the helper too; it must
	// outlive the command to clean up after it.
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE)
	err = startConfined(cmd, fd, flags)
	if fd >= 0 {
		unix.Close(fd)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "bash: %s: %v\n", spec.Path, err)
		if errors.Is(err, syscall.ENOENT) {
			return exitNotFound
		}
		return exitSetup
	}
	cmd.Wait()
	killDescendants()
	status, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if status.Signaled() {
		raise(status.Signal())
		return 128 + int(status.Signal())
	}
	return status.ExitStatus()
}

func setupFailed(err error) int {
	fmt.Fprintln(os.Stderr, "toold sandbox-exec: the command was not started:", err)
	return exitSetup
}
