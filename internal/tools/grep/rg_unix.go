//go:build unix

package grep

import (
	"os/exec"
	"syscall"
	"time"
)

// ownProcessGroup puts rg in a process group of its own and makes
// cancelling the command kill the whole group, so that nothing it started
// outlives the call.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 2 * time.Second
}
