package procgroup

import "sync"

// children is the record of the children that a caller of Start or
// StartFunc will wait for. Starts share the lock (they may run at once);
// Exclusive takes it alone, so that what it sees of the record covers
// every child started so far.
var children = struct {
	lock sync.RWMutex
	// mu guards pids: starts add under the shared lock, and Forget
	// removes under none (a reaped child may be dropped at any time).
	mu   sync.Mutex
	pids map[int]struct{}
}{pids: make(map[int]struct{})}

// StartFunc runs start, which starts a process and returns its pid, and
// records the pid as a child that the caller will wait for (and then
// Forget). No Exclusive function runs between the process's creation and
// its record.
func StartFunc(start func() (int, error)) error {
	children.lock.RLock()
	defer children.lock.RUnlock()
	pid, err := start()
	if err != nil {
		return err
	}
	children.mu.Lock()
	children.pids[pid] = struct{}{}
	children.mu.Unlock()
	return nil
}

// Forget drops pid from the record once it has been waited for.
func Forget(pid int) {
	children.mu.Lock()
	delete(children.pids, pid)
	children.mu.Unlock()
}

// Exclusive runs fn while no process is being started; known tells the
// children that a caller waits for from those nobody does. fn must not
// start processes through this package.
func Exclusive(fn func(known func(pid int) bool)) {
	children.lock.Lock()
	defer children.lock.Unlock()
	fn(func(pid int) bool {
		children.mu.Lock()
		defer children.mu.Unlock()
		_, ok := children.pids[pid]
		return ok
	})
}
