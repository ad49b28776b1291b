package sandbox

import (
	"errors"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toold/toold/internal/procgroup"
)

// reaper is the fallback where no cgroup holds a command: toold is a child
// subreaper, so a process whose helper died before it could clean up (a
// command run as toold's own user can kill its helper) is re-parented to
// toold instead of init, and the sweep after each command kills it.
//
// A process is a stray when toold is its parent, it is not in toold's own
// session (every helper starts a session; other children of toold, such as
// hook commands, stay in toold's) and no caller waits for it (procgroup's
// record: helpers, commands started in a cgroup, and any other child
// started through procgroup).
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
	*reaping
	// wake asks the background sweeper for a sweep; a request made while
	// one is pending folds into it.
	wake chan struct{}
	// full asks the next background sweep to look for live strays too,
	// not only for zombies (see sweepAllSoon).
	full atomic.Bool
	// wakeMu orders requests with stop: a helper may end (and ask for
	// a sweep) after the launcher has closed.
	wakeMu  sync.Mutex
	stopped bool
}

// reaping holds the strays that a goroutine waits for, for every reaper of
// the process (toold's process is the subreaper, not one Launcher): a
// second wait on the same pid could, after the first reaped it, take the
// status of an unrelated new child that got the pid.
type reaping struct {
	mu   sync.Mutex
	pids map[int]bool
}

var strayWaits = &reaping{pids: make(map[int]bool)}

func newReaper(kill bool) (*reaper, error) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return nil, err
	}
	sid, err := unix.Getsid(0)
	if err != nil {
		return nil, err
	}
	r := &reaper{session: sid, kill: kill, reaping: strayWaits, wake: make(chan struct{}, 1)}
	go func() {
		for range r.wake {
			// Only zombies are left to reap (see sweepSoon); without one,
			// reading toold's children costs more than the call did.
			if r.full.Swap(false) || zombieChild() {
				r.sweep()
			}
		}
	}()
	return r, nil
}

// sweepSoon sweeps in the background, where a command can have left only
// zombies: with cgroups, cgroup.kill has killed what it left; without,
// its helper came back, having killed every process under it (a child
// subreaper, it inherits all the command's orphans). The sweep then only
// reaps, and reading toold's children should not hold up the call that
// ended; it runs only when some child of toold awaits reaping.
func (r *reaper) sweepSoon() {
	r.wakeMu.Lock()
	defer r.wakeMu.Unlock()
	if r.stopped {
		return
	}
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// sweepAllSoon sweeps in the background whatever children it finds: after
// a helper has been ended, whose command may have left a process that
// outlasted the helper's own kills (it gives up after ten seconds) and is
// now toold's.
func (r *reaper) sweepAllSoon() {
	if r == nil {
		return
	}
	r.full.Store(true)
	r.sweepSoon()
}

// stop ends the background sweeper.
func (r *reaper) stop() {
	r.wakeMu.Lock()
	defer r.wakeMu.Unlock()
	if !r.stopped {
		r.stopped = true
		close(r.wake)
	}
}

// startRecorded runs start, which starts cmd, and records cmd's process
// as one that its caller waits for (and then forgets with
// procgroup.Forget), so that no sweep takes it for a stray.
func startRecorded(cmd *exec.Cmd, start func() error) error {
	return procgroup.StartFunc(func() (int, error) {
		if err := start(); err != nil {
			return 0, err
		}
		return cmd.Process.Pid, nil
	})
}

// sweep kills every stray until none is left. Killed strays are reaped in
// the background: one stuck in uninterruptible sleep must not hold up the
// call.
func (r *reaper) sweep() {
	if !r.kill && !zombieChild() {
		// Only reaping, and nothing to reap: the usual end of a call.
		return
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		if r.sweepOnce() == 0 {
			return
		}
		// Outside the record's lock: processes may start meanwhile.
		time.Sleep(time.Millisecond)
	}
}

// sweepOnce reaps the strays that have exited and, in kill mode, kills
// the others; it returns how many of those there were. No process starts
// through procgroup meanwhile, so every child that a caller waits for is
// in the record.
func (r *reaper) sweepOnce() int {
	live := 0
	procgroup.Exclusive(func(known func(int) bool) {
		strays := children(func(p procStat) bool {
			return p.session != r.session && !known(p.pid)
		})
		for _, p := range strays {
			switch {
			case p.state == 'Z':
				r.reap(p.pid)
			case r.kill:
				live++
				procgroup.KillProcess(p.pid)
				r.reap(p.pid)
			}
		}
	})
	return live
}

// reap waits for a killed stray in the background, once per pid.
func (r *reaper) reap(pid int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pids[pid] {
		return
	}
	r.pids[pid] = true
	go func() {
		unix.Wait4(pid, nil, 0, nil)
		r.mu.Lock()
		delete(r.pids, pid)
		r.mu.Unlock()
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
