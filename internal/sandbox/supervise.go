package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// supervise runs the command under a supervisor when no cgroup holds it.
// The supervisor stays toold's user and unconfined (so that a command
// switched to another user cannot kill it; it runs no code but this) and
// becomes a child subreaper: a process that the command orphans (double
// fork, setsid) is re-parented to the supervisor rather than to toold, so it
// stays attributed to this call. Its child is the helper again, without
// Supervise, which confines itself and execs bash as in the cgroup case.
// When that child exits the supervisor kills every process left under it
// and exits with the child's status.
func supervise(spec *helperSpec, args []string) int {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return setupFailed(fmt.Errorf("becoming a child subreaper: %w", err))
	}
	exe, err := os.Executable()
	if err != nil {
		return setupFailed(err)
	}
	inner := *spec
	inner.Supervise = false
	// The subcommand's own words come before args in the helper's argv.
	prefix := os.Args[1 : len(os.Args)-len(args)]
	argv := append(append(append([]string{os.Args[0]}, prefix...), inner.encode()), args[1:]...)
	cmd := &exec.Cmd{
		Path: exe, Args: argv,
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
	}
	// Signals meant for the command's group reach the supervisor too; it
	// must outlive the command to clean up after it.
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE)
	if err := cmd.Start(); err != nil {
		return setupFailed(err)
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

// killDescendants kills the helper's children until none is left. Killing
// one re-parents its own children to the helper, which the next round
// finds; a forking process is caught once its SIGKILL lands.
func killDescendants() {
	self := os.Getpid()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		kids := processes(func(p procStat) bool { return p.ppid == self })
		for _, p := range kids {
			if p.state != 'Z' {
				syscall.Kill(p.pid, syscall.SIGKILL)
			}
		}
		reaped := false
		for {
			pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				if errors.Is(err, syscall.ECHILD) {
					return
				}
				break
			}
			reaped = true
		}
		if !reaped {
			time.Sleep(time.Millisecond)
		}
	}
}

// raise ends the helper with the signal that ended bash, so that toold sees
// the same status as without the helper.
func raise(sig syscall.Signal) {
	signal.Reset(sig)
	syscall.Kill(os.Getpid(), sig)
	// A signal the runtime keeps (SIGSEGV and kin) returns here.
	time.Sleep(10 * time.Millisecond)
}
