package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestStaleCgroupsAreSwept: a toold that was SIGKILLed left its cgroup
// directory with a command still running in it; the next toold kills
// that command and removes the directory, and leaves alone the directory
// of a toold that is still alive beside it.
func TestStaleCgroupsAreSwept(t *testing.T) {
	own, err := ownCgroupDir()
	if err != nil {
		t.Skipf("MISSING on this machine: cgroup v2 (%v)", err)
	}
	dir := filepath.Join(own, "sweep-test-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("MISSING on this machine: a writable cgroup (%v)", err)
	}
	t.Cleanup(func() { removeTree(dir) })

	// A dead toold's pid: a process that has been waited for.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, "toold-"+strconv.Itoa(gone.Process.Pid), "c1")
	orphan := startIn(t, stale)

	// A live toold: a process in dir's toold.server leaf.
	live := startIn(t, filepath.Join(dir, "toold.server"))
	liveDir := filepath.Join(dir, "toold-"+strconv.Itoa(live.Process.Pid), "c1")
	liveCmd := startIn(t, liveDir)

	f := newFixture(t, Options{CgroupDir: dir})
	if st := f.l.Status(); st.SweptCgroups != 1 {
		t.Fatalf("SweptCgroups = %d, want 1 (%+v)", st.SweptCgroups, st)
	}
	waitExit(t, orphan)
	if _, err := os.Stat(filepath.Dir(stale)); !os.IsNotExist(err) {
		t.Errorf("the dead toold's cgroup is still there: %v", err)
	}
	if err := liveCmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the live toold's command was killed: %v", err)
	}
	if _, err := os.Stat(liveDir); err != nil {
		t.Errorf("the live toold's cgroup was removed: %v", err)
	}
	liveCmd.Process.Kill()
	liveCmd.Wait()
	live.Process.Kill()
	live.Wait()
}

// startIn starts a long sleep inside the cgroup dir, made if need be.
func startIn(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	cmd := exec.Command("sleep", "1000")
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// waitExit waits until cmd has been killed; the test's deadline bounds it.
func waitExit(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Errorf("the dead toold's command ended on its own: %v", cmd.ProcessState)
	}
}
