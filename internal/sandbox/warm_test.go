package sandbox

import (
	"context"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Where helpers run commands, one that finished cleanly serves the next
// command, which inherits nothing from the one before: not its variables,
// not its processes.
func TestHelperIsReusedClean(t *testing.T) {
	f := newFixture(t, Options{CgroupDir: "-", WarmHelpers: 1})
	c1, err := f.command(context.Background(), escapes, "LEFT_BY_FIRST=1")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	c1.Cmd.Stdout = &out
	if err := c1.Start(); err != nil {
		t.Fatal(err)
	}
	c1.Wait()
	escaped := pidsIn(t, out.String())
	r := f.run(t, context.Background(), `echo "helper=$PPID left=${LEFT_BY_FIRST-none}"`)
	if !strings.Contains(r.stdout, "left=none") {
		t.Errorf("the second command saw the first one's environment: %v", r)
	}
	if !strings.Contains(r.stdout, "helper="+strconv.Itoa(c1.Pid())) {
		t.Errorf("the second command did not run under the first one's helper %d: %v", c1.Pid(), r)
	}
	for _, pid := range escaped {
		if alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("process %d of the first command outlived it", pid)
		}
	}
}

// A helper killed with its command is not reused, and one that died while
// idle is replaced: the next command still runs.
func TestDeadHelpersAreReplaced(t *testing.T) {
	f := newFixture(t, Options{CgroupDir: "-", WarmHelpers: 1})
	ctx, cancel := context.WithCancel(context.Background())
	c, _ := f.startUntil(t, ctx, "echo ready; sleep 1000", "ready")
	cancel()
	c.Wait()
	if ws, ok := c.Status(); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("status of the cancelled command: %v %v", ws, ok)
	}
	killed := c.Pid()
	r := f.run(t, context.Background(), `echo "helper=$PPID"`)
	if strings.Contains(r.stdout, "helper="+strconv.Itoa(killed)) || !strings.Contains(r.stdout, "helper=") {
		t.Errorf("after a cancel: %v (killed helper %d)", r, killed)
	}

	// Kill every idle helper behind the pool's back.
	f.l.warm.mu.Lock()
	for _, h := range f.l.warm.idle {
		h.cmd.Process.Kill()
	}
	f.l.warm.mu.Unlock()
	time.Sleep(50 * time.Millisecond)
	if r := f.run(t, context.Background(), "echo still runs"); !strings.Contains(r.stdout, "still runs") {
		t.Errorf("after the idle helpers died: %v", r)
	}
}

// A helper refuses a request that does not hold together, and exits when
// toold closes its socket without one.
func TestHelperRequestChecks(t *testing.T) {
	pair := func() (*net.UnixConn, *net.UnixConn) {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		conns := make([]*net.UnixConn, 2)
		for i, fd := range fds {
			f := os.NewFile(uintptr(fd), "end")
			c, err := net.FileConn(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			conns[i] = c.(*net.UnixConn)
		}
		return conns[0], conns[1]
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	stdio := [3]*os.File{null, null, null}

	a, b := pair()
	good := &helperRequest{Spec: helperSpec{Path: "/bin/bash"}, Args: []string{"bash", "-c", "true"}, Env: []string{"A=b"}, Dir: "/"}
	big := strings.Repeat("x", 200<<10) // more than one read
	good.Args[2] = "true # " + big
	sent := make(chan error, 1)
	go func() { sent <- good.send(a, stdio, -1, -1) }()
	got, files, err := receiveRequest(b)
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	if err != nil || got.Args[2] != good.Args[2] || files.ruleset != -1 {
		t.Fatalf("a good request: %v", err)
	}
	for _, f := range files.stdio {
		f.Close()
	}

	bad := &helperRequest{Spec: helperSpec{Path: "/bin/bash", Landlock: true}, Args: []string{"bash"}}
	if err := bad.send(a, stdio, -1, -1); err != nil {
		t.Fatal(err)
	}
	if _, _, err := receiveRequest(b); err == nil || !strings.Contains(err.Error(), "Landlock") {
		t.Errorf("a Landlock spec without a ruleset: %v", err)
	}
	a.Close()
	b.Close()

	a, b = pair()
	a.Close()
	if _, _, err := receiveRequest(b); err == nil || !strings.Contains(err.Error(), "EOF") {
		t.Errorf("a closed socket: %v", err)
	}
	b.Close()
}

// Many commands at once through a small pool: each runs once, with its own
// output, and the pool keeps at most twice its size idle afterwards.
func TestHelperPoolUnderLoad(t *testing.T) {
	f := newFixture(t, Options{CgroupDir: "-", WarmHelpers: 2})
	const n = 16
	var wg sync.WaitGroup
	results := make([]result, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = f.run(t, context.Background(), "echo call-"+strconv.Itoa(i))
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r.stdout != "call-"+strconv.Itoa(i)+"\n" {
			t.Errorf("command %d:\n%v", i, r)
		}
	}
	f.l.warm.mu.Lock()
	idle := len(f.l.warm.idle)
	f.l.warm.mu.Unlock()
	if idle > 4 {
		t.Errorf("%d helpers idle after the load, want at most 4", idle)
	}
}
