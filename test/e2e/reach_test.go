package e2e

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/internal/store/redistest"
	"golang.org/x/sys/unix"
)

// The canary of toold's token file; no command output may show it.
const tokenCanary = "tenant-a 6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b"

// TestCommandsCannotReachTooldsSecretsOrPorts: a token file in /etc (where
// the shipped image keeps it, a directory every command may read) is
// unreadable to Bash however it tries, and toold's own port and the
// store's refuse a command while another local port answers; as a root
// and as a non-root toold, through the gRPC API.
func TestCommandsCannotReachTooldsSecretsOrPorts(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the token file is made in /etc, which needs root")
	}
	for _, uid := range []int{-1, 10001} {
		t.Run(fmt.Sprintf("uid=%d", uid), func(t *testing.T) { testReach(t, uid) })
	}
}

func testReach(t *testing.T, uid int) {
	dir, err := os.MkdirTemp("/etc", "toold-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	tokens := filepath.Join(dir, "tokens")
	// World-readable: for a non-root toold, whose commands share its
	// user, only Landlock stands in the way.
	if err := os.WriteFile(tokens, []byte(tokenCanary+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rs := redistest.StartServerWith(t, redistest.Options{})
	_, redisPort, _ := net.SplitHostPort(rs.Addr)
	d := startTooldAs(t, uid, "--auth-tokens", tokens, "--redis-url", "redis://"+rs.Addr+"/0")
	_, toolPort, _ := net.SplitHostPort(d.addr)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	otherPort := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, sb := serverInfo(t, ctx, d.addr)
	if sb["landlock"] != true {
		t.Skipf("MISSING on this machine: Landlock (%v)", sb["missing"])
	}
	sid := createSession(t, ctx, d.addr)
	reads := []string{
		"cat " + tokens,
		"cp " + tokens + " ./copy && cat ./copy",
		"/usr/bin/python3 -c 'print(open(\"" + tokens + "\").read())'",
		"ln -s " + tokens + " ./sym && cat ./sym",
		"ln " + tokens + " ./hard && cat ./hard",
		"cat /proc/self/root" + tokens,
		"cat /proc/" + strconv.Itoa(d.cmd.Process.Pid) + "/root" + tokens,
		"(cd " + dir + " && cat tokens)",
		"grep -r tenant-a " + dir,
	}
	r := execute(t, ctx, d.addr, sid, "read", "Bash", map[string]any{"command": strings.Join(reads, "; ") + "; cat /etc/hostname >/dev/null && echo ETC-READABLE"})
	if strings.Contains(r.Text, "6b86b273") {
		t.Errorf("a command read toold's token file: %s", r.Text)
	}
	mustContain(t, r.Text, "ETC-READABLE")
	// The Read tool's rules do not come into it: the file is out of reach
	// of the command itself.
	conn := func(port string) string {
		return "if (exec 3<>/dev/tcp/127.0.0.1/" + port + ") 2>/dev/null; then echo OPEN-" + port + "; else echo SHUT-" + port + "; fi"
	}
	r = execute(t, ctx, d.addr, sid, "ports", "Bash", map[string]any{"command": conn(toolPort) + "; " + conn(redisPort) + "; " + conn(otherPort) + "; redis-cli -p " + redisPort + " keys '*' 2>&1 | head -3"})
	mustContain(t, r.Text, "SHUT-"+toolPort, "SHUT-"+redisPort, "OPEN-"+otherPort)
	if strings.Contains(r.Text, "toold:") {
		t.Errorf("a command listed the store's keys: %s", r.Text)
	}
}

// TestCommandsOfAKilledTooldDoNotSurvive: a long command escapes its
// process group and session (setsid, double fork); toold is SIGKILLed, so
// it cleans up nothing; the next toold on the host ends what is left
// (cgroup mode), or the helper ends it as toold dies (helper mode).
func TestCommandsOfAKilledTooldDoNotSurvive(t *testing.T) {
	uids := []int{-1}
	if os.Geteuid() == 0 {
		uids = append(uids, 10001)
	}
	for _, uid := range uids {
		t.Run(fmt.Sprintf("uid=%d", uid), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			d := startTooldAs(t, uid)
			_, sb := serverInfo(t, ctx, d.addr)
			sid := createSession(t, ctx, d.addr)
			r := execute(t, ctx, d.addr, sid, "bg", "Bash", map[string]any{
				"command":           "( setsid sleep 1000 </dev/null >/dev/null 2>&1 & ); exec sleep 1001",
				"run_in_background": true,
			})
			if r.IsError {
				t.Fatalf("background command: %+v", r)
			}
			escaped := findProcess(t, ctx, "sleep 1000", d.cmd.Process.Pid)
			shell := findProcess(t, ctx, "sleep 1001", d.cmd.Process.Pid)
			d.cmd.Process.Signal(syscall.SIGKILL)
			<-d.done
			if sb["cgroup"] == true {
				// Only a new toold can end it.
				startTooldAs(t, uid)
			}
			waitExited(t, ctx, escaped)
			waitExited(t, ctx, shell)
		})
	}
}

// findProcess waits for a process with that command line under toold
// (its parent chain leads to toold) to appear.
func findProcess(t *testing.T, ctx context.Context, cmdline string, after int) int {
	t.Helper()
	for {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == after {
				continue
			}
			b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " ") == cmdline && descendsFromPid(pid, after) {
				return pid
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no process %q appeared", cmdline)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// descendsFromPid reports whether root is pid or one of its ancestors.
func descendsFromPid(pid, root int) bool {
	for p := pid; p > 1; {
		if p == root {
			return true
		}
		b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/stat")
		if err != nil {
			return false
		}
		i := strings.LastIndexByte(string(b), ')')
		f := strings.Fields(string(b)[i+2:])
		if len(f) < 2 {
			return false
		}
		p, _ = strconv.Atoi(f[1])
	}
	return false
}

// waitExited waits, on a pidfd, until pid has exited.
func waitExited(t *testing.T, ctx context.Context, pid int) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return // gone already
	}
	defer unix.Close(fd)
	done := make(chan struct{})
	go func() {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			if _, err := unix.Poll(fds, -1); err == nil || err != unix.EINTR {
				break
			}
		}
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("process %d of the killed toold still runs", pid)
	}
}
