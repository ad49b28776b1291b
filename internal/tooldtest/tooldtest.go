// Package tooldtest starts a built toold binary for the tests of the
// client, toolctl and the examples, and puts a TCP proxy in front of it that
// a test can cut, as a load balancer or a flaky network would.
package tooldtest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// Root is the module root.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

var (
	buildMu sync.Mutex
	built   = map[string]string{}
)

// Build builds the command at pkg (e.g. "./cmd/toold") once per test
// binary and returns its path.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := built[pkg]; ok {
		return p
	}
	dir, err := os.MkdirTemp("", "tooldtest-bin")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = Root()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	if pkg == "./cmd/toold" {
		// toold-sandbox beside toold, as make build places it.
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "toold-sandbox"), "./cmd/toold-sandbox")
		cmd.Dir = Root()
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build toold-sandbox: %v\n%s", err, b)
		}
	}
	built[pkg] = out
	return out
}

// Toold is a running toold.
type Toold struct {
	Addr string
	Root string
	logs *buffer
}

// Logs is what toold logged so far.
func (d *Toold) Logs() string { return d.logs.String() }

// Start runs a built toold on a free loopback port, with its workspaces in
// a temporary directory, and waits until it accepts connections. It is
// killed when the test ends.
func Start(t testing.TB, args ...string) *Toold {
	t.Helper()
	bin := Build(t, "./cmd/toold")
	d := &Toold{Addr: freeAddr(t), Root: filepath.Join(t.TempDir(), "workspaces"), logs: &buffer{}}
	passThrough(t, filepath.Dir(d.Root))
	cmd := exec.Command(bin, append([]string{"--listen", d.Addr, "--workspace-root", d.Root}, args...)...)
	cmd.Stderr = d.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
		if t.Failed() {
			t.Logf("toold log:\n%s", d.logs)
		}
	})
	for deadline := time.Now().Add(60 * time.Second); ; {
		c, err := net.DialTimeout("tcp", d.Addr, time.Second)
		if err == nil {
			c.Close()
			return d
		}
		select {
		case <-done:
			t.Fatalf("toold exited: %s", d.logs)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("toold does not listen on %s: %v\n%s", d.Addr, err, d.logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// passThrough lets the sandbox user (nobody) pass through dir and its
// parents up to the temporary directory, which t.TempDir makes 0700.
func passThrough(t testing.TB, dir string) {
	t.Helper()
	for d := dir; d != os.TempDir() && d != filepath.Dir(d); d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, fi.Mode().Perm()|0o011); err != nil {
			t.Fatal(err)
		}
	}
}

func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

type buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Proxy forwards TCP connections to a backend. Cut closes every connection
// open through it, both ways, as a dropped network path does; new
// connections are accepted as before.
type Proxy struct {
	Addr    string
	backend string
	ln      net.Listener
	mu      sync.Mutex
	conns   []net.Conn
	cuts    int
	down    bool
	refused chan struct{} // closed at the first connection refused while down
}

// NewProxy listens on a free loopback port and forwards to backend.
func NewProxy(t testing.TB, backend string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Addr: ln.Addr().String(), backend: backend, ln: ln}
	t.Cleanup(func() { ln.Close(); p.Cut() })
	go p.serve()
	return p
}

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		if down && p.refused != nil {
			close(p.refused)
			p.refused = nil
		}
		p.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		b, err := net.Dial("tcp", p.backend)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, b)
		p.mu.Unlock()
		go pipe(c, b)
		go pipe(b, c)
	}
}

func pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	dst.Close()
	src.Close()
}

// Cut closes every open connection and returns how many client
// connections it cut.
func (p *Proxy) Cut() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	n := len(p.conns) / 2
	p.conns = nil
	p.cuts++
	return n
}

// Down makes the proxy close every connection it accepts, as an
// unreachable toold would, until Up; the returned channel is closed when it
// has refused one.
func (p *Proxy) Down() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	p.refused = make(chan struct{})
	return p.refused
}

// Up undoes Down.
func (p *Proxy) Up() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

// String names the proxy in test logs.
func (p *Proxy) String() string { return fmt.Sprintf("proxy %s -> %s", p.Addr, p.backend) }
