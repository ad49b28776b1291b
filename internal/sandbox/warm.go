package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/toold/toold/internal/procgroup"
)

// warmPool keeps helpers started before they are needed, and takes them
// back after each command. A helper is a Go program, and starting one takes
// a few milliseconds on a slow machine, several times what the command
// itself may take; a fresh process is slow at first too, as its pages are
// touched for the first time. Started ahead and reused, a helper only has
// to receive its command and clone bash.
type warmPool struct {
	l    *Launcher
	size int

	mu sync.Mutex
	// started is signalled when a helper being started is ready or
	// has failed.
	started sync.Cond
	idle    []*warmHelper
	filling int
	closed  bool
}

// warmHelper is a started helper waiting for its command on conn.
type warmHelper struct {
	cmd  *exec.Cmd
	conn *net.UnixConn
	// r sweeps after the helper has ended (nil without a subreaper).
	r *reaper
	// dead: the helper has exited and been waited for.
	dead bool
}

func newWarmPool(l *Launcher, size int) *warmPool {
	p := &warmPool{l: l, size: size}
	p.started.L = &p.mu
	p.refill()
	return p
}

// get returns an idle helper, waiting for one being started or starting
// one when none is. The pool is filled again in the background once it
// runs empty, and when a helper dies; helpers that finish a command come
// back (put).
func (p *warmPool) get() (*warmHelper, error) {
	p.mu.Lock()
	// One being started is ready sooner than one started now.
	for len(p.idle) == 0 && p.filling > 0 && !p.closed {
		p.started.Wait()
	}
	if p.closed {
		p.mu.Unlock()
		return nil, errClosed
	}
	var h *warmHelper
	if n := len(p.idle); n > 0 {
		h, p.idle = p.idle[n-1], p.idle[:n-1]
	}
	empty := len(p.idle) == 0
	p.mu.Unlock()
	if empty {
		p.refill()
	}
	if h != nil {
		return h, nil
	}
	return p.l.startHelper()
}

// refill starts helpers in the background until size are idle or starting.
func (p *warmPool) refill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for !p.closed && len(p.idle)+p.filling < p.size {
		p.filling++
		go func() {
			h, err := p.l.startHelper()
			p.mu.Lock()
			p.filling--
			if err == nil && !p.closed && len(p.idle) < 2*p.size {
				p.idle = append(p.idle, h)
				h = nil
			}
			p.started.Broadcast()
			p.mu.Unlock()
			if h != nil {
				h.discard()
			}
		}()
	}
}

// close ends the idle helpers; helpers still starting end themselves.
func (p *warmPool) close() {
	p.mu.Lock()
	p.closed = true
	idle := p.idle
	p.idle = nil
	p.started.Broadcast()
	p.mu.Unlock()
	for _, h := range idle {
		h.discard()
	}
}

// startHelper starts a helper in a session of its own (its process group is
// what Kill ends), with one end of a socket pair as descriptor 3 and only
// the helper's own environment: the command's comes with its request.
func (l *Launcher) startHelper() (*warmHelper, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: socket for the helper: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "helper"), os.NewFile(uintptr(fds[1]), "toold")
	defer theirs.Close()
	cmd := &exec.Cmd{
		Path:       l.exe,
		Args:       append([]string{l.exe}, l.args...),
		Env:        append([]string{}, l.env...),
		ExtraFiles: []*os.File{theirs},
	}
	procgroup.Session(cmd)
	if err := startRecorded(cmd, cmd.Start); err != nil {
		ours.Close()
		return nil, fmt.Errorf("sandbox: starting the helper %s: %w", l.exe, err)
	}
	conn, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		procgroup.Kill(cmd.Process.Pid)
		procgroup.Wait(cmd)
		return nil, fmt.Errorf("sandbox: socket for the helper: %w", err)
	}
	return &warmHelper{cmd: cmd, conn: conn.(*net.UnixConn), r: l.reaper}, nil
}

// put returns a helper that has finished a command to the pool, or ends
// it when the pool is closed or holds twice its size: one taken from an
// empty pool is replaced at once and comes back later, and ending it then
// would start a helper for every command of a steady stream. get takes the
// one returned last, whose pages are the warmest.
func (p *warmPool) put(h *warmHelper) {
	p.mu.Lock()
	if !p.closed && len(p.idle) < 2*p.size {
		p.idle = append(p.idle, h)
		h = nil
	}
	p.mu.Unlock()
	if h != nil {
		h.discard()
	}
}

// discard ends a helper that will not get a command.
func (h *warmHelper) discard() {
	if h.dead {
		return
	}
	h.dead = true
	h.conn.Close()
	// An idle helper has no command; its group is itself.
	procgroup.Kill(h.cmd.Process.Pid)
	procgroup.Wait(h.cmd)
	h.r.sweepAllSoon()
}
