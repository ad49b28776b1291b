package shells

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// KilledBy says how a signal killed a command, for the Bash and TaskOutput
// results: "killed by signal 9 (SIGKILL)", then who sends that signal when
// a resource limit does. shell: bash itself was killed; otherwise a
// process bash waited for was, which bash reports as exit status 128+N.
func KilledBy(sig syscall.Signal) string {
	s := fmt.Sprintf("killed by signal %d (%s)", int(sig), unix.SignalName(sig))
	if why := signalCause(sig); why != "" {
		s += ": " + why
	}
	return s
}

// ExitSignal is the signal that an exit status of 128+N from bash names,
// or 0 when the status names none.
func ExitSignal(code int) syscall.Signal {
	if code <= 128 || code > 128+64 || unix.SignalName(syscall.Signal(code-128)) == "" {
		return 0
	}
	return syscall.Signal(code - 128)
}

// signalCause says who sends the signals that resource limits send; "" for
// the others, which a program sends itself or gets for its own fault.
func signalCause(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGKILL:
		return "sent by the kernel when the command runs out of memory (a memory limit of the sandbox), at the hard CPU time limit, or by kill -9"
	case syscall.SIGXCPU:
		return "the command used up its CPU time limit"
	case syscall.SIGXFSZ:
		return "the command wrote past its file size limit"
	}
	return ""
}
