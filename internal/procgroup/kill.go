package procgroup

import (
	"errors"
	"os"
	"syscall"
)

// Kill sends SIGKILL to every process of the group pgid. A group that is
// gone already (ESRCH) gives os.ErrProcessDone, which exec.Cmd's Cancel
// may return for a command that ended on its own; callers that only clean
// up ignore it.
func Kill(pgid int) error { return Signal(pgid, syscall.SIGKILL) }

// Signal sends sig to every process of the group pgid, with Kill's rule
// for a group that is gone.
func Signal(pgid int, sig syscall.Signal) error {
	if pgid <= 0 {
		// -0 and -(-1) would be this group and every process.
		return errors.New("procgroup: no process group")
	}
	return gone(syscall.Kill(-pgid, sig))
}

// KillProcess sends SIGKILL to the one process pid, with Kill's rule for
// one that is gone.
func KillProcess(pid int) error {
	if pid <= 0 {
		return errors.New("procgroup: no process")
	}
	return gone(syscall.Kill(pid, syscall.SIGKILL))
}

// Alive reports whether a process pid exists (a zombie counts). A process
// of another user (EPERM) exists.
func Alive(pid int) bool {
	return pid > 0 && !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// gone is the one rule for a process that is already gone.
func gone(err error) error {
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
