package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// server is one toold process started from its binary, and a client of
// it over loopback TCP.
type server struct {
	cmd     *exec.Cmd
	conn    *grpc.ClientConn
	tools   tooldv1.ToolServiceClient
	health  healthpb.HealthClient
	session string
	ws      string
}

// startToold runs bin with the in-memory store (the default) on a free
// loopback port, with args added, and waits until its health Check
// answers SERVING.
func startToold(ctx context.Context, bin string, args ...string) (*server, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := lis.Addr().String()
	lis.Close()
	cmd := exec.Command(bin, append([]string{"--listen", addr}, args...)...)
	// Its log goes nowhere: writing it is part of what toold costs, reading
	// it would be part of what the harness costs.
	cmd.Stdout, cmd.Stderr = nil, nil
	// In this process's session: with the kernel's autogroup scheduling
	// a session is a scheduling group, and toold's rg and the bare rg
	// must share one to compare (a fresh session is slower on a loaded
	// machine). toold's Bash commands and the bare bash each get a
	// session of their own.
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	s := &server{cmd: cmd}
	s.conn, err = grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		s.stop()
		return nil, err
	}
	s.tools, s.health = tooldv1.NewToolServiceClient(s.conn), healthpb.NewHealthClient(s.conn)
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, cancel := context.WithTimeout(ctx, time.Second)
		r, err := s.health.Check(c, &healthpb.HealthCheckRequest{})
		cancel()
		if err == nil && r.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			break
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("%s %s: not serving after 30s: %v", bin, strings.Join(args, " "), err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return s, nil
}

// newSession creates a session on workspace ("" for a fresh one).
func (s *server) newSession(ctx context.Context, workspace string) error {
	r, err := tooldv1.NewSessionServiceClient(s.conn).CreateSession(ctx, &tooldv1.CreateSessionRequest{Workspace: workspace})
	if err != nil {
		return fmt.Errorf("CreateSession: %w", err)
	}
	s.session, s.ws = r.GetSession().GetId(), r.GetSession().GetWorkspace()
	return nil
}

func (s *server) stop() {
	if s.conn != nil {
		s.conn.Close()
	}
	s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

// cpu is the CPU time toold's own threads have used: the sum of
// /proc/PID/task/*/schedstat (nanoseconds, unlike the 10 ms ticks of
// /proc/PID/stat). Children (bash, rg, a sandbox helper) are not in it.
func (s *server) cpu() (time.Duration, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", s.cmd.Process.Pid))
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("no schedstat for toold (pid %d): %v", s.cmd.Process.Pid, err)
	}
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // a thread that just ended
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			continue
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %q", t, b)
		}
		sum += time.Duration(ns)
	}
	return sum, nil
}
