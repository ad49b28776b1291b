package sandbox

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// escapes starts a setsid'd sleep and a double-forked one, prints their
// pids, and returns.
const escapes = `
setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $!
( sleep 1001 </dev/null >/dev/null 2>&1 & echo $! )
sleep 0.2`

// alive reports whether pid is a live process (not a zombie).
func alive(pid int) bool {
	p, ok := readStat(pid)
	return ok && p.state != 'Z'
}

func pidsIn(t *testing.T, out string) []int {
	t.Helper()
	var pids []int
	for _, w := range strings.Fields(out) {
		if n, err := strconv.Atoi(w); err == nil {
			pids = append(pids, n)
		}
	}
	if len(pids) != 2 {
		t.Fatalf("expected two pids, got %q", out)
	}
	return pids
}

func TestNothingOutlivesTheCall(t *testing.T) {
	for name, cg := range modes(t) {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, Options{CgroupDir: cg})
			r := f.run(t, context.Background(), escapes)
			for _, pid := range pidsIn(t, r.stdout) {
				if alive(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("process %d (setsid or double fork) outlived the call", pid)
				}
			}
		})
	}
}

// lineWriter collects output and reports when a line appears.
type lineWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

// startUntil starts script and returns once its output shows line.
func (f *fixture) startUntil(t *testing.T, ctx context.Context, script, line string) (*Cmd, *lineWriter) {
	t.Helper()
	c, err := f.command(ctx, script)
	if err != nil {
		t.Fatal(err)
	}
	out := &lineWriter{want: line, seen: make(chan struct{})}
	c.Cmd.Stdout = out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	<-out.seen
	return c, out
}

func (w *lineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func TestCancelKillsEscapedProcesses(t *testing.T) {
	for name, cg := range modes(t) {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, Options{CgroupDir: cg})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c, out := f.startUntil(t, ctx, escapes+"\necho ready\nsleep 1000", "ready")
			escaped := pidsIn(t, strings.TrimSuffix(out.String(), "ready\n"))
			for _, pid := range escaped {
				if !alive(pid) {
					t.Fatalf("process %d did not start, so the test proves nothing", pid)
				}
			}
			cancel()
			c.Wait()
			for _, pid := range append(escaped, c.Pid()) {
				if alive(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("process %d outlived the cancelled call", pid)
				}
			}
		})
	}
}

func TestForkBombIsStopped(t *testing.T) {
	for name, cg := range modes(t) {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, Options{CgroupDir: cg, Limits: Limits{Processes: 64, PidsMax: 64}})
			st := f.l.Status()
			switch {
			case st.PidsMax:
			case st.Limits.Processes > 0:
				t.Logf("MISSING on this machine: pids.max (%s); checking the fallback, RLIMIT_NPROC for uid %d", strings.Join(st.Missing, "; "), st.UID)
			default:
				t.Logf("MISSING on this machine: pids.max, and commands run as root, which RLIMIT_NPROC does not bind (%s): nothing bounds the processes of a command; not starting a fork bomb", strings.Join(st.Missing, "; "))
				return
			}
			if st.UserSwitch {
				// RLIMIT_NPROC counts the user's processes machine-wide,
				// zombies of earlier tests that init has not reaped yet
				// included.
				waitForNoProcessesOf(t, st.UID)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c, err := f.command(ctx, `for i in $(seq 1 500); do sleep 1000 & done; echo ALL STARTED`)
			if err != nil {
				t.Fatal(err)
			}
			errs := &lineWriter{want: "fork", seen: make(chan struct{})}
			var out bytes.Buffer
			c.Cmd.Stdout, c.Cmd.Stderr = &out, errs
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			waited := make(chan struct{})
			go func() {
				c.Wait()
				close(waited)
			}()
			select {
			case <-errs.seen:
			case <-waited:
			case <-ctx.Done():
			}
			cancel()
			<-waited
			if strings.Contains(out.String(), "ALL STARTED") || !strings.Contains(errs.String(), "Resource temporarily unavailable") {
				t.Errorf("the process limit did not stop the loop:\nstdout %s\nstderr %s", out.String(), errs.String())
			}
			// A killed process is gone once the kernel has delivered the
			// signal and torn it down, which on a loaded machine may come
			// a moment after the call's Wait: allow that moment, not more.
			alive := func() int {
				return len(processes(func(p procStat) bool { return p.session == c.Pid() && p.state != 'Z' }))
			}
			deadline := time.Now().Add(10 * time.Second)
			for alive() > 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if n := alive(); n > 0 {
				t.Errorf("%d processes of the call are still alive 10s after it ended", n)
			}
			// toold itself can still start processes.
			if _, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{}); err != nil {
				t.Errorf("toold cannot start a process after the fork bomb: %v", err)
			}
		})
	}
}

func TestMemoryHogIsStopped(t *testing.T) {
	const limit = 64 << 20
	for name, cg := range modes(t) {
		t.Run(name, func(t *testing.T) {
			lim := Limits{MemoryMax: limit}
			f := newFixture(t, Options{CgroupDir: cg, Limits: lim})
			st := f.l.Status()
			if !st.MemoryMax {
				t.Logf("MISSING on this machine: memory.max (%s); checking the fallback, RLIMIT_AS", strings.Join(st.Missing, "; "))
				f = newFixture(t, Options{CgroupDir: cg, Limits: Limits{AddressSpace: limit}})
			}
			hog := func(mib int) string {
				return "x=$(head -c " + strconv.Itoa(mib<<20) + " /dev/zero | tr '\\0' x); echo done ${#x}"
			}
			if r := f.run(t, context.Background(), hog(8)); !strings.Contains(r.stdout, "done") {
				t.Fatalf("a small allocation failed:\n%v", r)
			}
			r := f.run(t, context.Background(), hog(200))
			if strings.Contains(r.stdout, "done") || (r.status.Exited() && r.status.ExitStatus() == 0) {
				t.Errorf("a 200 MiB allocation succeeded under a %d MiB limit:\n%v", limit>>20, r)
			}
		})
	}
}

// waitForNoProcessesOf waits until no live process of uid is left, for up
// to ten seconds. Zombies are not counted: this machine's init may never
// reap those orphaned to it by other programs.
func waitForNoProcessesOf(t *testing.T, uid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		n := len(processes(func(p procStat) bool {
			fi, err := os.Stat("/proc/" + strconv.Itoa(p.pid))
			if err != nil {
				return false
			}
			st, ok := fi.Sys().(*syscall.Stat_t)
			return ok && int(st.Uid) == uid && p.state != 'Z'
		}))
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d processes of uid %d are left from before the test", n, uid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
