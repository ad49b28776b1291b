package bash

import (
	"encoding/binary"
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// pump reads the command's stdout and stderr, each from a pipe of its
// own, in one goroutine that waits for both in poll(2). os/exec would copy
// each stream in a goroutine of its own, with both pipes in the runtime's
// poller: three wakeups and two goroutines more per call, about a third
// of what toold spends on a short command.
type pump struct {
	// outW and errW are the write ends, for the command; Start closes
	// ours once it has its copies.
	outW, errW *os.File
	// fds are the read ends; wake stops the pump when the drain bound
	// has passed (an eventfd).
	fds  [2]int
	wake int
	w    [2]*stream
	done chan struct{}
}

// newPump makes the pipes of out and errs. The read ends stay in blocking
// mode and out of the runtime's poller: only the pump's poll waits on them.
func newPump(out, errs *stream) (*pump, error) {
	p := &pump{fds: [2]int{-1, -1}, wake: -1, w: [2]*stream{out, errs}, done: make(chan struct{})}
	var ws [2]*os.File
	for i := range 2 {
		var fds [2]int
		if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
			p.closeAll(ws)
			return nil, err
		}
		p.fds[i], ws[i] = fds[0], os.NewFile(uintptr(fds[1]), "|1")
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		p.closeAll(ws)
		return nil, err
	}
	p.wake = wake
	p.outW, p.errW = ws[0], ws[1]
	return p, nil
}

// closeAll closes every descriptor, for a command that did not start.
func (p *pump) closeAll(ws [2]*os.File) {
	for _, f := range ws {
		if f != nil {
			f.Close()
		}
	}
	for _, fd := range append(p.fds[:], p.wake) {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}

// started closes our copies of the write ends, so that the read ends see
// the end of the output when the last process writing to them is gone,
// and starts the pump.
func (p *pump) started() {
	p.outW.Close()
	p.errW.Close()
	go p.run()
}

func (p *pump) run() {
	defer close(p.done)
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	pfds := []unix.PollFd{
		{Fd: int32(p.fds[0]), Events: unix.POLLIN},
		{Fd: int32(p.fds[1]), Events: unix.POLLIN},
		{Fd: int32(p.wake), Events: unix.POLLIN},
	}
	open := 2
	for open > 0 {
		if _, err := unix.Poll(pfds, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			break
		}
		if pfds[2].Revents != 0 {
			break // the drain bound has passed
		}
		for i := range 2 {
			if pfds[i].Fd < 0 || pfds[i].Revents == 0 {
				continue
			}
			n, err := unix.Read(int(pfds[i].Fd), buf)
			if n > 0 {
				p.w[i].Write(buf[:n])
				continue
			}
			if errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) {
				continue
			}
			// The end of the stream (or a pipe that cannot be read).
			unix.Close(int(pfds[i].Fd))
			pfds[i].Fd = -1
			open--
		}
	}
	// Past the drain bound, a process that left the command's group
	// still holds a pipe: it gets EPIPE from now on, as after os/exec's
	// WaitDelay.
	for i := range 2 {
		if pfds[i].Fd >= 0 {
			unix.Close(int(pfds[i].Fd))
		}
	}
}

// drain waits for the pump to read both streams to their end, for at
// most bound, then stops it. Call it once, after the command has exited
// (and before what is left of it is killed, so that a background process
// that prints a last line in that time is heard).
func (p *pump) drain(bound time.Duration) {
	t := time.NewTimer(bound)
	select {
	case <-p.done:
	case <-t.C:
		var one [8]byte // an eventfd takes a counter in host order
		binary.NativeEndian.PutUint64(one[:], 1)
		unix.Write(p.wake, one[:])
		<-p.done
	}
	t.Stop()
	unix.Close(p.wake)
}
