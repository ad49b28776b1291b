package sandbox

import (
	"os/exec"
	"testing"
	"time"
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
