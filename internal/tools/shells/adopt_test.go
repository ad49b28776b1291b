package shells

import (
	"errors"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// adopt starts command with its output going through a switchable writer,
// as the Bash tool does, and hands it to the registry.
func adopt(t *testing.T, r *Registry, session, command string, before []byte) (Info, *Sink, func() int32) {
	t.Helper()
	var ends atomic.Int32
	cmd := exec.Command(bashPath(t), "-c", command)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	w := &switchWriter{}
	cmd.Stdout, cmd.Stderr = w, w
	proc := groupProcess{cmd: cmd}
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { proc.Wait(); close(exited) }()
	info, sink, err := r.Adopt(session, Adopted{Command: command, Process: proc, Output: before, Exited: exited, OnEnd: func() { ends.Add(1) }})
	if err != nil {
		proc.Kill()
		<-exited
		t.Fatal(err)
	}
	w.set(sink)
	return info, sink, ends.Load
}

// switchWriter drops output until set, like a call's capture before the
// move (the test gives the output so far as Adopted.Output).
type switchWriter struct {
	w atomic.Pointer[Sink]
}

func (s *switchWriter) set(sink *Sink) { s.w.Store(sink) }
func (s *switchWriter) Write(p []byte) (int, error) {
	if w := s.w.Load(); w != nil {
		return w.Write(p)
	}
	return len(p), nil
}

func TestAdoptReadsLikeAStartedShell(t *testing.T) {
	r := newRegistry(t, Options{})
	info, _, ends := adopt(t, r, "s1", "read -t 0.3 < /dev/zero; echo after", []byte("before\n"))
	if info.State != Running || info.ID == "" || info.PID == 0 {
		t.Fatalf("info %+v", info)
	}
	out, err := r.Read(ctx(t), "s1", info.ID, ReadOptions{Wait: hangGuard, Until: UntilExit})
	if err != nil {
		t.Fatal(err)
	}
	if out.Text != "before\nafter\n" || out.Info.State != Completed {
		t.Fatalf("output %q, state %v", out.Text, out.Info.State)
	}
	waitUntil(t, func() bool { return ends() == 1 })
	if _, err := r.Status("s2", info.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("another session sees the shell: %v", err)
	}
}

func TestAdoptKill(t *testing.T) {
	r := newRegistry(t, Options{})
	info, _, ends := adopt(t, r, "s1", "echo go; exec sleep 300", nil)
	got, err := r.Kill(ctx(t), "s1", info.ID)
	if err != nil || got.State != Killed || got.Signal != syscall.SIGKILL {
		t.Fatalf("kill: %+v, %v", got, err)
	}
	waitUntil(t, func() bool { return ends() == 1 })
}

func TestAdoptLimitAndClose(t *testing.T) {
	r := newRegistry(t, Options{MaxShells: 1})
	adopt(t, r, "s1", "exec sleep 300", nil)
	_, _, err := r.Adopt("s1", Adopted{Process: groupProcess{cmd: exec.Command("true")}, Exited: make(chan struct{})})
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("err = %v, want ErrLimit", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	_, _, err = r.Adopt("s1", Adopted{Process: groupProcess{cmd: exec.Command("true")}, Exited: make(chan struct{})})
	if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("err = %v, want ErrClosed", err)
	}
}

// waitUntil polls cond until it holds; hangGuard only stops a hung test.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition never held")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
