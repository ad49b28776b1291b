package procgroup

import (
	"os"

	"golang.org/x/sys/unix"
)

// Pipe makes a pipe for a child's standard output or error: give w to the
// command as its output (an *os.File, which exec.Cmd passes on as it is)
// and close it once the command has started; read r.
//
// Only the read end is in Go's poller, so that a read parks the goroutine
// rather than a thread. The write end, which only the child writes to,
// stays out of it and blocking. os.Pipe, which exec.Cmd uses for an output
// that is not a file, registers both ends: the write end is writable at
// once, so its registration wakes an idle thread for nothing, and setting
// and then clearing O_NONBLOCK on it costs four fcntl calls more.
func Pipe() (r, w *os.File, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	// F_SETFL takes the status flags alone: 0 clears O_NONBLOCK.
	if _, err := unix.FcntlInt(uintptr(p[1]), unix.F_SETFL, 0); err != nil {
		unix.Close(p[0])
		unix.Close(p[1])
		return nil, nil, os.NewSyscallError("fcntl", err)
	}
	return os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1"), nil
}
