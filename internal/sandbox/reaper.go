package sandbox

import (
	"errors"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// reaper is the fallback where no cgroup holds a command: toold is a child
// subreaper, so a process whose helper died before it could clean up (a
// command run as toold's own user can kill its helper) is re-parented to
// toold instead of init, and the sweep after each command kills it.
//
// A process is a stray when toold is its parent, it is not in toold's own
// session (every helper starts a session; other children of toold, such as
// hook commands, stay in toold's) and it is not a live helper.
//
// With cgroups the reaper only reaps: cgroup.kill has killed a finished
// command's processes, but those it had orphaned were re-parented to toold
// and must be waited for, or they stay zombies (and count against the
// sandbox user's RLIMIT_NPROC) under an init that does not reap, or under
// toold itself as the container's pid 1. Live strays there belong to
// running commands and are left alone.
type reaper struct {
	session int
	// kill: strays are killed (no cgroups), not only reaped.
	kill bool
	*registry
	// wake asks the background sweeper for a sweep; a request made while
	// one is pending folds into it.
	wake     chan struct{}
	stopOnce sync.Once
}

// registry is what every reaper of the process knows: toold's process is
// the subreaper, not one Launcher, and one Launcher's sweep must not take
// another's helpers for strays.
type registry struct {
	// mu is held while a helper is cloned and recorded, and during a
	// sweep, so that a sweep never sees an unrecorded helper.
	mu      sync.Mutex
	helpers map[int]bool
	// reaping holds the strays that a goroutine waits for; a second wait
	// on the same pid could, after the first reaped it, take the status of
	// an unrelated new child that got the pid.
	reapMu  sync.Mutex
	reaping map[int]bool
}

var processChildren = &registry{helpers: make(map[int]bool), reaping: make(map[int]bool)}

func newReaper(kill bool) (*reaper, error) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return nil, err
	}
	sid, err := unix.Getsid(0)
	if err != nil {
		return nil, err
	}
	r := &reaper{session: sid, kill: kill, registry: processChildren, wake: make(chan struct{}, 1)}
	go func() {
		for range r.wake {
			r.sweep()
		}
	}()
	return r, nil
}

// sweepSoon sweeps in the background. With cgroups, cgroup.kill has killed
// what a command left; the sweep only reaps, and reading every process of
// the machine should not hold up the call that ended.
func (r *reaper) sweepSoon() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// stop ends the background sweeper.
func (r *reaper) stop() {
	r.stopOnce.Do(func() { close(r.wake) })
}

// starting runs start (which clones a helper and returns its pid) so that
// no sweep runs in between.
func (r *reaper) starting(start func() (int, error)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	pid, err := start()
	if err == nil {
		r.helpers[pid] = true
	}
	return err
}

// startRecorded runs start, which starts cmd, and records cmd's process
// as known; a nil reaper only starts it.
func (r *reaper) startRecorded(cmd *exec.Cmd, start func() error) error {
	if r == nil {
		return start()
	}
	return r.starting(func() (int, error) {
		if err := start(); err != nil {
			return 0, err
		}
		return cmd.Process.Pid, nil
	})
}

// ended forgets a helper that has been reaped.
func (r *reaper) ended(pid int) {
	r.mu.Lock()
	delete(r.helpers, pid)
	r.mu.Unlock()
}

// sweep kills every stray until none is left. Killed strays are reaped in
// the background: one stuck in uninterruptible sleep must not hold up the
// call.
func (r *reaper) sweep() {
	if !r.kill && !zombieChild() {
		// Only reaping, and nothing to reap: the usual end of a call.
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		strays := children(func(p procStat) bool {
			return p.session != r.session && !r.helpers[p.pid]
		})
		live := 0
		for _, p := range strays {
			switch {
			case p.state == 'Z':
				r.reap(p.pid)
			case r.kill:
				live++
				syscall.Kill(p.pid, syscall.SIGKILL)
				r.reap(p.pid)
			}
		}
		if live == 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// reap waits for a killed stray in the background, once per pid.
func (r *reaper) reap(pid int) {
	r.reapMu.Lock()
	defer r.reapMu.Unlock()
	if r.reaping[pid] {
		return
	}
	r.reaping[pid] = true
	go func() {
		unix.Wait4(pid, nil, 0, nil)
		r.reapMu.Lock()
		delete(r.reaping, pid)
		r.reapMu.Unlock()
	}()
}

// zombieChild reports whether any child of toold has exited and awaits
// reaping, without reaping it; one system call instead of reading the
// children. When unsure it says yes.
func zombieChild() bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	if errors.Is(err, unix.ECHILD) {
		return false
	}
	// With WNOHANG and no child waiting, the kernel leaves si_signo 0.
	return err != nil || info.Signo != 0
}
