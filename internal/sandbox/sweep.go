package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/toold/toold/internal/procgroup"
)

// sweepStale removes what a toold that died without closing (SIGKILL, a
// crash) left in own: its toold-<pid> directory and every command still
// running in it, which would otherwise keep running, unaccounted, next to
// this toold. Another toold that is alive and shares own keeps its
// commands: a directory is stale only when its pid is gone or is no
// longer a process in own (the pid was reused). It returns how many it
// removed.
func sweepStale(own string) int {
	entries, err := os.ReadDir(own)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		pid, ok := strings.CutPrefix(e.Name(), "toold-")
		p, err := strconv.Atoi(pid)
		if !ok || err != nil || !e.IsDir() || p == os.Getpid() || ownerAlive(own, p) {
			continue
		}
		if removeTree(filepath.Join(own, e.Name())) == nil {
			n++
		}
	}
	return n
}

// ownerAlive reports whether pid is a live process in own or in the leaf
// toold moves itself to (toold.server): the toold that made toold-<pid>.
func ownerAlive(own string, pid int) bool {
	if !procgroup.Alive(pid) {
		return false
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		// Alive but unreadable (another user's): not ours to judge.
		return !errors.Is(err, os.ErrNotExist)
	}
	mnt, err := cgroup2Mount()
	if err != nil {
		return true
	}
	for line := range strings.Lines(string(data)) {
		if rel, ok := strings.CutPrefix(strings.TrimSpace(line), "0::"); ok {
			dir := filepath.Join(mnt, rel)
			return dir == own || dir == filepath.Join(own, "toold.server")
		}
	}
	return true
}

// removeTree kills every process under a cgroup directory and removes it,
// children first.
func removeTree(dir string) error {
	os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			removeTree(filepath.Join(dir, e.Name()))
		}
	}
	return (&commandCgroup{dir: dir, fd: -1}).remove()
}

// watchParent ends the helper, and every process under it, when toold
// does: the helper would otherwise notice only once the running command
// ends, and a command that never ends would outlive toold. A pidfd of
// the parent becomes readable when the whole process has exited, not one
// of its threads (PR_SET_PDEATHSIG fires when the thread that forked the
// helper ends, which a Go program does not control).
func watchParent() error {
	ppid := os.Getppid()
	fd, err := unix.PidfdOpen(ppid, 0)
	if errors.Is(err, unix.ENOSYS) {
		// Linux before 5.3: the helper notices toold's end only between
		// commands, as before.
		return nil
	}
	if err != nil {
		return err
	}
	if os.Getppid() != ppid {
		// toold ended between the two calls.
		killDescendants()
		os.Exit(exitSetup)
	}
	go func() {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			if _, err := unix.Poll(fds, -1); err == nil || !errors.Is(err, unix.EINTR) {
				break
			}
		}
		killDescendants()
		os.Exit(exitSetup)
	}()
	return nil
}
