package sandbox

import (
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// killDescendants kills the helper's children until none is left. Killing
// one re-parents its own children to the helper, which the next round
// finds; a forking process is caught once its SIGKILL lands.
func killDescendants() {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		kids := children(func(procStat) bool { return true })
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
