// Package e2e drives a built toold binary on a real port with grpcurl,
// exactly as the README does.
package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// repoRoot is the module root, two levels above this file.
func repoRoot(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds toold once per test run.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "toold-e2e-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "toold")
		// toold-sandbox beside toold, as make build and the image place it.
		for _, b := range [][2]string{{binPath, "./cmd/toold"}, {filepath.Join(dir, "toold-sandbox"), "./cmd/toold-sandbox"}} {
			cmd := exec.Command("go", "build", "-o", b[0], b[1])
			cmd.Dir = repoRoot(t)
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", b[1], err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// grpcurl finds grpcurl on PATH or in the repository's bin directory,
// where `make tools` installs it.
func grpcurl(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("grpcurl"); err == nil {
		return p
	}
	p := filepath.Join(repoRoot(t), "bin", "grpcurl")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	t.Fatal("grpcurl is not installed: run `make tools` (or `make test`, which installs it into ./bin)")
	return ""
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

type daemon struct {
	addr string
	root string
	cmd  *exec.Cmd
	logs *syncBuffer
	// done is closed once the process has exited.
	done chan struct{}
}

// startToold starts the binary on a free port and waits until it answers.
func startToold(t *testing.T, extraArgs ...string) *daemon {
	t.Helper()
	return startTooldAs(t, -1, extraArgs...)
}

// startTooldAs starts toold as user uid (its own group, no other groups),
// or as the test's user when uid is -1. The test must be root to switch.
func startTooldAs(t *testing.T, uid int, extraArgs ...string) *daemon {
	t.Helper()
	d := &daemon{addr: freeAddr(t), root: filepath.Join(t.TempDir(), "workspaces"), logs: &syncBuffer{}, done: make(chan struct{})}
	passThrough(t, filepath.Dir(d.root))
	args := append([]string{"--listen", d.addr, "--workspace-root", d.root, "--log-level", "debug"}, extraArgs...)
	d.cmd = exec.Command(binary(t), args...)
	d.cmd.Stderr = d.logs
	d.cmd.Env = append(os.Environ(), "TOOLD_TEST_SECRET=do-not-leak")
	if uid >= 0 {
		// toold makes its workspaces here and runs its binaries from
		// the build directory.
		if err := os.Chown(filepath.Dir(d.root), uid, uid); err != nil {
			t.Fatal(err)
		}
		passThrough(t, binary(t))
		d.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid), Groups: []uint32{}}}
		d.cmd.Env = append(d.cmd.Env, "HOME="+filepath.Dir(d.root), "TMPDIR="+filepath.Dir(d.root))
	}
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { d.cmd.Wait(); close(d.done) }()
	t.Cleanup(func() {
		d.cmd.Process.Kill()
		<-d.done
		if t.Failed() {
			t.Logf("toold log:\n%s", d.logs)
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", d.addr, time.Second)
		if err == nil {
			c.Close()
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("toold did not listen on %s: %v\n%s", d.addr, err, d.logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sh runs a bash script with grpcurl on PATH, from the repository root.
func sh(t *testing.T, ctx context.Context, script string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(grpcurl(t))+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func mustContain(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

// syncBuffer collects toold's log while tests read it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitGone waits until process pid has exited (a zombie counts: it only
// waits to be reaped by init), failing with why when ctx ends first.
func waitGone(t *testing.T, ctx context.Context, pid int, why string) {
	t.Helper()
	for syscall.Kill(pid, 0) == nil {
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); strings.Contains(string(b), ") Z ") {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: process %d is still running", why, pid)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
