package sandbox

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/internal/procgroup"
)

// The cheap probe that lets a reap-only sweep skip reading the children
// sees a child that has exited and not been waited for.
func TestZombieChildProbe(t *testing.T) {
	c := exec.Command("true")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Wait()
	time.Sleep(100 * time.Millisecond)
	if !zombieChild() {
		t.Error("an exited, unreaped child is not seen")
	}
}

// After a helper ends, the background sweep looks for live strays too: a
// process in a session of its own that nobody waits for, as one its
// command left would be once the helper is gone, is killed and reaped.
func TestSweepAllSoonKillsALiveStray(t *testing.T) {
	f := newFixture(t, Options{CgroupDir: "-"})
	r := f.l.reaper
	if r == nil || !r.kill {
		t.Skip("no subreaper on this machine")
	}
	stray := exec.Command("sleep", "1000")
	procgroup.Session(stray)
	if err := stray.Start(); err != nil {
		t.Fatal(err)
	}
	pid := stray.Process.Pid
	// The sweep reaps it; this test must not wait for it too.
	stray.Process.Release()
	r.sweepAllSoon()
	for deadline := time.Now().Add(30 * time.Second); alive(pid); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatal("the stray outlived the sweep")
		}
	}
}

// A helper may end after its launcher has closed; asking for a sweep then
// does nothing.
func TestSweepAfterStop(t *testing.T) {
	r, err := newReaper(false)
	if err != nil {
		t.Skip(err)
	}
	r.stop()
	r.sweepSoon()
	r.sweepAllSoon()
	r.stop()
}
