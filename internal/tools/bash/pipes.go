package bash

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toold/toold/internal/procgroup"
)

// outputPipes carry a command's standard output and error to its capture.
// They are made here (procgroup.Pipe) rather than by exec.Cmd, which would
// put the write ends, used by the child alone, in Go's poller too, where
// each one wakes an idle thread as soon as it is registered. The command
// gets the write ends as files, so exec.Cmd starts no copying goroutines of
// its own; the two here do the copying, and drain waits for them as
// exec.Cmd's Wait waits for its own (WaitDelay).
type outputPipes struct {
	r, w [2]*os.File
	// left counts the readers still copying; the last one closes copied.
	left   atomic.Int32
	copied chan struct{}
	errMu  sync.Mutex
	err    error
}

func newOutputPipes() (*outputPipes, error) {
	p := &outputPipes{copied: make(chan struct{})}
	for i := range 2 {
		r, w, err := procgroup.Pipe()
		if err != nil {
			p.close()
			return nil, err
		}
		p.r[i], p.w[i] = r, w
	}
	return p, nil
}

// attach makes the pipes cmd's standard output and error.
func (p *outputPipes) attach(cmd *exec.Cmd) { cmd.Stdout, cmd.Stderr = p.w[0], p.w[1] }

// started closes our copies of the write ends, so that the readers see the
// end of the output once the last process holding them is gone, and starts
// copying into stdout and stderr.
func (p *outputPipes) started(stdout, stderr io.ReaderFrom) {
	for i := range p.w {
		p.w[i].Close()
		p.w[i] = nil
	}
	p.left.Store(2)
	go p.copy(p.r[0], stdout)
	go p.copy(p.r[1], stderr)
}

func (p *outputPipes) copy(r *os.File, dst io.ReaderFrom) {
	_, err := dst.ReadFrom(r)
	r.Close()
	if err != nil && !errors.Is(err, os.ErrClosed) {
		// os.ErrClosed: drain closed the pipe after its bound.
		p.errMu.Lock()
		if p.err == nil {
			p.err = err
		}
		p.errMu.Unlock()
	}
	if p.left.Add(-1) == 0 {
		close(p.copied)
	}
}

// drain waits, once bash has been reaped, until the readers have seen the
// end of both pipes, for at most bound: a process that left the command's
// group or escaped its kill may hold them open for good. Past the bound it
// closes the read ends, which ends the reads, and returns exec.ErrWaitDelay,
// as exec.Cmd does.
func (p *outputPipes) drain(bound time.Duration) error {
	select {
	case <-p.copied:
		return p.copyErr()
	default:
	}
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-p.copied:
		return p.copyErr()
	case <-t.C:
		p.r[0].Close()
		p.r[1].Close()
		<-p.copied
		return exec.ErrWaitDelay
	}
}

func (p *outputPipes) copyErr() error {
	p.errMu.Lock()
	defer p.errMu.Unlock()
	return p.err
}

// close closes every end that is still open, when the command did not
// start.
func (p *outputPipes) close() {
	for _, f := range append(p.r[:], p.w[:]...) {
		if f != nil {
			f.Close()
		}
	}
}
