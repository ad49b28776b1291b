package sandbox

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/toold/toold/internal/procgroup"
)

// helped is the state of a command that a helper runs: the pipes and
// copies that exec.Cmd would otherwise make for Stdin, Stdout and Stderr.
type helped struct {
	// closeAfterWait are our ends of the pipes.
	closeAfterWait []io.Closer
	copies         sync.WaitGroup
	errMu          sync.Mutex
	copyErr        error
	copyFns        []func() error
	// cancelled is closed when ctx ended and the command was killed for
	// it; exited when the helper has been waited for.
	cancelled chan struct{}
	exited    chan struct{}
}

// startHelped hands the command to a helper. It mirrors exec.Cmd.Start for
// the fields callers set: Stdin, Stdout and Stderr may be files (passed
// as they are), other readers and writers (copied through pipes), or nil
// (the null device).
func (c *Cmd) startHelped() error {
	cmd := c.Cmd
	h := &helped{cancelled: make(chan struct{}), exited: make(chan struct{})}
	var stdio [3]*os.File
	var closeAfterStart []io.Closer
	fail := func(err error) error {
		for _, f := range closeAfterStart {
			f.Close()
		}
		for _, f := range h.closeAfterWait {
			f.Close()
		}
		return err
	}
	var err error
	if stdio[0], err = h.input(cmd.Stdin, &closeAfterStart); err != nil {
		return fail(err)
	}
	if stdio[1], err = h.output(cmd.Stdout, &closeAfterStart); err != nil {
		return fail(err)
	}
	if cmd.Stderr != nil && interfaceEqual(cmd.Stderr, cmd.Stdout) {
		stdio[2] = stdio[1]
	} else if stdio[2], err = h.output(cmd.Stderr, &closeAfterStart); err != nil {
		return fail(err)
	}
	rs, err := c.sess.ruleset(c.spec)
	if err != nil {
		return fail(err)
	}
	ports, err := c.l.portLayer()
	if err != nil {
		return fail(err)
	}
	ruleset := rs.fd
	req := &helperRequest{Spec: *c.spec, Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir, RulesetFlags: rs.flags, RulesetKey: rs.key,
		PortRuleset: ports.fd >= 0, PortRulesetFlags: ports.flags}
	var helper *warmHelper
	// An idle helper may have died (the OOM killer); the next one is
	// tried, and the one after that is started for this command.
	for range 3 {
		if helper, err = c.l.warm.get(); err != nil {
			return fail(err)
		}
		if err = req.send(helper.conn, stdio, ruleset, ports.fd); err == nil {
			break
		}
		helper.discard()
		helper = nil
	}
	if helper == nil {
		return fail(err)
	}
	for _, f := range closeAfterStart {
		f.Close()
	}
	cmd.Process = helper.cmd.Process
	c.helper, c.helped = helper, h
	h.startCopies()
	return nil
}

// watch kills the command when ctx ends before it does, as
// exec.CommandContext would.
func (h *helped) watch(ctx context.Context, kill func() error) {
	if ctx == nil || ctx.Done() == nil {
		return
	}
	go func() {
		select {
		case <-ctx.Done():
			close(h.cancelled)
			kill()
		case <-h.exited:
		}
	}()
}

func (h *helped) input(r io.Reader, closeAfterStart *[]io.Closer) (*os.File, error) {
	switch r := r.(type) {
	case nil:
		f, err := os.Open(os.DevNull)
		if err != nil {
			return nil, err
		}
		*closeAfterStart = append(*closeAfterStart, f)
		return f, nil
	case *os.File:
		return r, nil
	default:
		pr, pw, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		*closeAfterStart = append(*closeAfterStart, pr)
		h.closeAfterWait = append(h.closeAfterWait, pw)
		h.later(func() error {
			_, err := io.Copy(pw, r)
			if cerr := pw.Close(); err == nil && !errors.Is(cerr, os.ErrClosed) {
				err = cerr
			}
			return ignorePipeErr(err)
		})
		return pr, nil
	}
}

func (h *helped) output(w io.Writer, closeAfterStart *[]io.Closer) (*os.File, error) {
	switch w := w.(type) {
	case nil:
		f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		*closeAfterStart = append(*closeAfterStart, f)
		return f, nil
	case *os.File:
		return w, nil
	default:
		pr, pw, err := procgroup.Pipe()
		if err != nil {
			return nil, err
		}
		*closeAfterStart = append(*closeAfterStart, pw)
		h.closeAfterWait = append(h.closeAfterWait, pr)
		h.later(func() error {
			_, err := io.Copy(w, pr)
			pr.Close()
			if errors.Is(err, os.ErrClosed) {
				// Closed by Wait after WaitDelay.
				return nil
			}
			return err
		})
		return pw, nil
	}
}

func (h *helped) later(fn func() error) { h.copyFns = append(h.copyFns, fn) }

func (h *helped) startCopies() {
	for _, fn := range h.copyFns {
		h.copies.Add(1)
		go func() {
			defer h.copies.Done()
			if err := fn(); err != nil {
				h.errMu.Lock()
				if h.copyErr == nil {
					h.copyErr = err
				}
				h.errMu.Unlock()
			}
		}()
	}
}

// waitHelped mirrors exec.Cmd.Wait: it waits for the helper (which exits
// with bash's status once every process of the command is gone), then for
// the copies, for at most WaitDelay when it is set.
//
// The status comes from the helper, which then serves another command; a
// helper killed with its command (Kill) sends none, and its own status
// (killed) is the command's.
func (c *Cmd) waitHelped() (status syscall.WaitStatus, known bool, err error) {
	cmd, h, helper := c.Cmd, c.helped, c.helper
	var buf [4]byte
	if _, err = io.ReadFull(helper.conn, buf[:]); err == nil {
		status, known = syscall.WaitStatus(binary.BigEndian.Uint32(buf[:])), true
	} else {
		helper.conn.Close()
		// What the helper left in its group goes with it.
		procgroup.Wait(helper.cmd)
		helper.dead = true
		if ps := helper.cmd.ProcessState; ps != nil {
			if ws, ok := ps.Sys().(syscall.WaitStatus); ok {
				status, known, err = ws, true, nil
			}
		}
	}
	close(h.exited)
	if err != nil {
		return 0, false, err
	}
	copied := make(chan struct{})
	go func() {
		h.copies.Wait()
		close(copied)
	}()
	// The copies end when every process holding the pipes is gone; a
	// process that escaped toold's view may hold them longer, and
	// WaitDelay bounds that wait by closing our ends.
	var delayErr error
	var timeout <-chan time.Time
	if cmd.WaitDelay > 0 {
		t := time.NewTimer(cmd.WaitDelay)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-copied:
	case <-timeout:
		delayErr = exec.ErrWaitDelay
	}
	for _, f := range h.closeAfterWait {
		f.Close()
	}
	<-copied
	select {
	case <-h.cancelled:
		if status != 0 {
			return status, true, context.Cause(c.ctx)
		}
	default:
	}
	if status != 0 {
		return status, true, errExit(status)
	}
	if h.copyErr != nil {
		return status, true, h.copyErr
	}
	return status, true, delayErr
}

// exitError is a helped command's failure, worded as exec.ExitError's.
type exitError syscall.WaitStatus

func errExit(ws syscall.WaitStatus) error { return exitError(ws) }

func (e exitError) Error() string {
	ws := syscall.WaitStatus(e)
	if ws.Signaled() {
		return "signal: " + ws.Signal().String()
	}
	return "exit status " + strconv.Itoa(ws.ExitStatus())
}

// interfaceEqual reports whether a and b are the same writer, as exec.Cmd
// decides whether Stdout and Stderr share a pipe.
func interfaceEqual(a, b any) bool {
	defer func() { recover() }()
	return a == b
}

// ignorePipeErr drops the errors of writing to a command that stopped
// reading its input, as exec.Cmd does.
func ignorePipeErr(err error) error {
	if errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}
