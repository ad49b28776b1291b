// Package redistest starts a private redis-server for a test: its own
// process on a free port of 127.0.0.1, a temporary directory, no
// persistence unless asked for, killed when the test ends. It never uses a
// Redis that is already running on the machine.
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

	bin  string
	port int
	dir  string
	opts Options

	cmd  *exec.Cmd
	log  string
	done chan struct{} // closed when the process has exited
	once *sync.Once
}

// Options choose how the server keeps data.
type Options struct {
	// AppendOnly turns the AOF on with an fsync per write, so that a
	// killed and restarted server has every acknowledged write.
	AppendOnly bool
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
	return StartServerWith(t, Options{})
}

// StartServerWith is StartServer with options.
func StartServerWith(t testing.TB, opts Options) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server not found: install it with `apt-get install redis-server` (make test does this)")
	}
	// The free port is found by binding and closing; another process may
	// take it before redis-server binds it, so try again a few times.
	var errs []error
	for range 3 {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		s := &Server{bin: bin, port: port, dir: t.TempDir(), opts: opts}
		err = s.start()
		if err == nil {
			t.Cleanup(s.Kill)
			return s
		}
		errs = append(errs, err)
	}
	t.Fatalf("redistest: %v", errors.Join(errs...))
	return nil
}

// start runs the process; a restarted server keeps its port and directory.
func (s *Server) start() error {
	s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
	s.log = filepath.Join(s.dir, "redis.log")
	out, err := os.OpenFile(s.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	aof := "no"
	if s.opts.AppendOnly {
		aof = "yes"
	}
	cmd := exec.Command(s.bin,
		"--port", strconv.Itoa(s.port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", aof,
		"--appendfsync", "always",
		"--daemonize", "no",
		"--dir", s.dir,
	)
	cmd.Stdout, cmd.Stderr = out, out
	setDeathSignal(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	s.cmd, s.done, s.once = cmd, make(chan struct{}), &sync.Once{}
	done := s.done
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	if err := s.waitReady(); err != nil {
		s.Kill()
		return fmt.Errorf("%w\n%s", err, s.logTail())
	}
	return nil
}

// Restart starts a killed server again on the same port and directory:
// with AppendOnly, it comes back with its data.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Kill()
	var err error
	// The port was just freed; another process may take it meanwhile, which
	// only a retry can tell.
	for range 20 {
		if err = s.start(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("redistest: restart: %v", err)
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
