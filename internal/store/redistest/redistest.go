// Package redistest starts a private redis-server for a test: its own
// process on a free port of 127.0.0.1, no persistence, a temporary
// directory, killed when the test ends. It never uses a Redis that is
// already running on the machine.
package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// startTimeout bounds how long a server may take to answer PING.
const startTimeout = 10 * time.Second

// Server is a running redis-server.
type Server struct {
	// Addr is host:port.
	Addr string

	cmd  *exec.Cmd
	log  string
	done chan struct{} // closed when the process has exited
	once sync.Once
}

// Start starts a server and returns its address; it is killed at the end of
// the test.
func Start(t testing.TB) (addr string) {
	t.Helper()
	return StartServer(t).Addr
}

// StartServer is Start for tests that stop the server themselves (Kill,
// Pause) to see how clients behave.
func StartServer(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server not found: install it with `apt-get install redis-server` (make test does this)")
	}
	// The free port is found by binding and closing; another process may
	// take it before redis-server binds it, so try again a few times.
	var errs []error
	for range 3 {
		s, err := start(t, bin)
		if err == nil {
			t.Cleanup(s.Kill)
			return s
		}
		errs = append(errs, err)
	}
	t.Fatalf("redistest: %v", errors.Join(errs...))
	return nil
}

func start(t testing.TB, bin string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "redis.log")
	out, err := os.Create(log)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	cmd := exec.Command(bin,
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--daemonize", "no",
		"--dir", dir,
	)
	cmd.Stdout, cmd.Stderr = out, out
	setDeathSignal(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	s := &Server{
		Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		cmd:  cmd,
		log:  log,
		done: make(chan struct{}),
	}
	go func() {
		_ = cmd.Wait()
		close(s.done)
	}()
	if err := s.waitReady(); err != nil {
		s.Kill()
		return nil, fmt.Errorf("%w\n%s", err, s.logTail())
	}
	return s, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady polls PING until the server answers PONG or exits.
func (s *Server) waitReady() error {
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return fmt.Errorf("redis-server on %s exited at start", s.Addr)
		default:
		}
		if ping(s.Addr) == nil {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("redis-server on %s did not answer PING within %v", s.Addr, startTimeout)
}

func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		// e.g. -LOADING while it starts
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}

// Kill stops the server at once (SIGKILL) and waits for it; idempotent.
func (s *Server) Kill() {
	s.once.Do(func() {
		_ = s.cmd.Process.Kill()
		<-s.done
	})
}

func (s *Server) logTail() string {
	b, _ := os.ReadFile(s.log)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}
