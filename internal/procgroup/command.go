package procgroup

import (
	"os/exec"
	"syscall"
	"time"
)

// Prepare makes cmd start in a process group of its own: Setpgid is added
// to its SysProcAttr (whose other fields stay; a Setsid already there
// makes a new session, whose group is new as well). When cmd was made by
// exec.CommandContext, cancelling the context kills the whole group.
// drain, when positive, becomes cmd.WaitDelay: how long Wait waits, after
// the command has exited or been killed, for processes that left its group
// but hold its output pipes open, before it closes them.
func Prepare(cmd *exec.Cmd, drain time.Duration) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if !cmd.SysProcAttr.Setsid {
		cmd.SysProcAttr.Setpgid = true
	}
	if cmd.Cancel != nil {
		cmd.Cancel = func() error { return Kill(cmd.Process.Pid) }
	}
	if drain > 0 {
		cmd.WaitDelay = drain
	}
}

// Start starts cmd (made ready by Prepare) and records it as a child that
// Wait will collect.
func Start(cmd *exec.Cmd) error {
	return StartFunc(func() (int, error) {
		if err := cmd.Start(); err != nil {
			return 0, err
		}
		return cmd.Process.Pid, nil
	})
}

// Wait waits for cmd, started by Start, then kills what is left of its
// group, so that nothing it started outlives it unless it left the group.
// The group id is not reused while a member lives, and Linux hands out
// pids in sequence, so the kill right after the reap cannot hit a
// stranger's group.
func Wait(cmd *exec.Cmd) error { return WaitDrain(cmd, nil) }

// WaitDrain is Wait with drain, when not nil, called between the reap and
// the kill: for a caller that reads cmd's output through pipes of its own
// (Pipe), and waits for them there while the processes that hold them are
// still alive to finish writing, as exec.Cmd waits for the pipes it makes
// itself (WaitDelay) before it returns. drain's error is returned when
// the wait had none.
func WaitDrain(cmd *exec.Cmd, drain func() error) error {
	err := cmd.Wait()
	if drain != nil {
		if derr := drain(); err == nil {
			err = derr
		}
	}
	Kill(cmd.Process.Pid)
	Forget(cmd.Process.Pid)
	return err
}

// Run is Start, then Wait.
func Run(cmd *exec.Cmd) error {
	if err := Start(cmd); err != nil {
		return err
	}
	return Wait(cmd)
}

// Status is the wait status of a command that has been waited for; false
// before that, or when it could not be waited for.
func Status(cmd *exec.Cmd) (syscall.WaitStatus, bool) {
	if cmd.ProcessState == nil {
		return 0, false
	}
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ws, ok
}

// Session makes cmd start in a session of its own, and so in a process
// group of its own too, whose id is its pid: for the sandbox's commands
// and helpers, which must not share toold's session. Other SysProcAttr
// fields stay.
func Session(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid, cmd.SysProcAttr.Setpgid = true, false
}
