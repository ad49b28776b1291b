package sandbox

import (
	"errors"
	"syscall"
	"time"

	"github.com/toold/toold/internal/procgroup"
)

// killDescendants kills the helper's children until none is left. Killing
// one re-parents its own children to the helper, which the next round
// finds; a forking process is caught once its SIGKILL lands.
func killDescendants() {
	// The usual case: bash, reaped, was the only child. Then there is no
	// child to wait for, and no need to read the children's list.
	if _, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil); errors.Is(err, syscall.ECHILD) {
		return
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		kids := children(func(procStat) bool { return true })
		for _, p := range kids {
			if p.state != 'Z' {
				procgroup.KillProcess(p.pid)
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
