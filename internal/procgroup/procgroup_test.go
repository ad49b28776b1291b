package procgroup

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitGone polls until pid is dead: gone, or a zombie that init has yet
// to reap (a container's init may reap late). It fails the test after a
// generous bound (a test must not hang, and this asserts no speed).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if !Alive(pid) || zombie(pid) {
			return
		}
	}
	t.Fatalf("process %d is still there", pid)
}

// zombie reports whether pid has exited and awaits reaping.
func zombie(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(data, ')')
	return i >= 0 && i+2 < len(data) && data[i+2] == 'Z'
}

// bashCmd is bash -c script with its stdout captured, ready to start.
func bashCmd(t *testing.T, ctx context.Context, script string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	cmd := exec.CommandContext(ctx, bash, "-c", script)
	var out bytes.Buffer
	cmd.Stdout = &out
	Prepare(cmd, 200*time.Millisecond)
	return cmd, &out
}

func TestWaitKillsGrandchildrenLeftInTheGroup(t *testing.T) {
	cmd, out := bashCmd(t, context.Background(), "sleep 1000 >/dev/null 2>&1 & echo $!")
	if err := Run(cmd); err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatalf("no pid printed: %q", out.String())
	}
	// The grandchild was re-parented to init, which reaps it once killed.
	waitGone(t, pid)
}

func TestCancelKillsTheWholeGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pidFile := t.TempDir() + "/pid"
	cmd, _ := bashCmd(t, ctx, "sleep 1000 >/dev/null 2>&1 & echo $! > "+pidFile+"; wait")
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	var pid int
	for pid == 0 {
		data, _ := os.ReadFile(pidFile)
		if s := strings.TrimSpace(string(data)); strings.HasSuffix(string(data), "\n") {
			pid, _ = strconv.Atoi(s)
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	err := Wait(cmd)
	if ws, ok := Status(cmd); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("bash was not killed: %v %v", ws, err)
	}
	waitGone(t, pid)
}

func TestKillOfAGoneGroupIsProcessDone(t *testing.T) {
	cmd, _ := bashCmd(t, context.Background(), "exit 3")
	if err := Run(cmd); err == nil {
		t.Fatal("exit 3 gave no error")
	}
	if ws, ok := Status(cmd); !ok || ws.ExitStatus() != 3 {
		t.Errorf("status %v, want exit 3", ws)
	}
	if err := Kill(cmd.Process.Pid); !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("Kill of a gone group: %v, want os.ErrProcessDone", err)
	}
	if err := Signal(cmd.Process.Pid, syscall.SIGTERM); !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("Signal of a gone group: %v", err)
	}
	if err := KillProcess(cmd.Process.Pid); !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("KillProcess of a gone process: %v", err)
	}
	for _, bad := range []int{0, -1} {
		if Kill(bad) == nil || KillProcess(bad) == nil {
			t.Errorf("Kill(%d) was accepted: it would signal toold's group or every process", bad)
		}
	}
}

func TestWaitLeavesNoZombie(t *testing.T) {
	cmd, _ := bashCmd(t, context.Background(), "true")
	if err := Run(cmd); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(cmd.Process.Pid)); !os.IsNotExist(err) {
		t.Errorf("process %d is still in /proc after Wait: %v", cmd.Process.Pid, err)
	}
	var known bool
	Exclusive(func(k func(int) bool) { known = k(cmd.Process.Pid) })
	if known {
		t.Error("a waited-for child is still recorded")
	}
}

// A process that left the group (setsid) and holds the output pipe open
// cannot be killed with the group; Wait stops waiting for the pipe after
// the drain bound instead of hanging until that process ends.
func TestWaitDrainIsBounded(t *testing.T) {
	cmd, out := bashCmd(t, context.Background(), "echo before; setsid sleep 1000 & echo $! >&2")
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	done := make(chan error, 1)
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	go func() { done <- Wait(cmd) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second): // a hang, not a speed limit
		t.Fatal("Wait hung on a pipe held open by a process outside the group")
	}
	if !errors.Is(err, exec.ErrWaitDelay) {
		t.Errorf("Wait: %v, want exec.ErrWaitDelay", err)
	}
	if !strings.Contains(out.String(), "before") {
		t.Errorf("output before the drain was lost: %q", out.String())
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(errOut.String())); err == nil {
		KillProcess(pid)
	}
}

func TestExclusiveSeesEveryStartedChild(t *testing.T) {
	cmd, _ := bashCmd(t, context.Background(), "sleep 1000")
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	var known bool
	Exclusive(func(k func(int) bool) { known = k(cmd.Process.Pid) })
	if !known {
		t.Error("a started child is not recorded")
	}
	Kill(cmd.Process.Pid)
	Wait(cmd)
}

// Children are forgotten while a sweep looks at the record, as the race
// detector checks.
func TestForgetDuringExclusive(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 1000 {
			StartFunc(func() (int, error) { return 1<<30 + i, nil })
			Forget(1<<30 + i)
		}
	}()
	for range 100 {
		Exclusive(func(known func(int) bool) {
			for i := range 1000 {
				known(1<<30 + i)
			}
		})
	}
	<-done
}
