package server_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/server"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool"
)

// newServer is server.New with the test tools on the memory store.
func newServer(t *testing.T, opts server.Options) (*grpc.Server, *health.Server) {
	t.Helper()
	reg, err := tool.NewRegistry(echoTool{})
	if err != nil {
		t.Fatal(err)
	}
	st := memstore.New()
	eng, err := exec.NewEngine(exec.Config{Registry: reg, Store: st, Policy: policy.WorkspaceOnly{}})
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := session.NewManager(st, t.TempDir(), eng, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := server.NewToolService(reg, eng, mgr, 4)
	if err != nil {
		t.Fatal(err)
	}
	return server.New(opts, server.NewSessionService(mgr, eng), ts)
}

// A connection older than MaxAge gets GOAWAY (the client's connection
// leaves READY and its next call opens a new one, which a Service may send
// to another replica), while a stream that was running goes on within the
// grace period.
func TestMaxConnectionAgeSendsGoAwayAndLetsStreamsFinish(t *testing.T) {
	srv, hs := newServer(t, server.Options{Connections: server.Connections{MaxAge: 200 * time.Millisecond, MaxAgeGrace: time.Minute}})
	conn := serveBufconn(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	watch, err := healthpb.NewHealthClient(conn).Watch(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := watch.Recv(); err != nil || r.Status != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("first watch answer %v, %v", r, err)
	}
	for st := conn.GetState(); st == connectivity.Ready; st = conn.GetState() {
		if !conn.WaitForStateChange(ctx, st) {
			t.Fatal("the connection stayed READY: no GOAWAY after the connection age")
		}
	}
	// The stream opened before GOAWAY still carries updates.
	hs.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)
	if r, err := watch.Recv(); err != nil || r.Status != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("the running stream after GOAWAY: %v, %v", r, err)
	}
	// And the client's next call gets a new connection.
	if _, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: server.LivenessService}); err != nil {
		t.Fatalf("a call after GOAWAY: %v", err)
	}
}

type failingPinger struct{}

func (failingPinger) Ping(context.Context) error { return errors.New("connection refused") }

// A store that does not answer turns readiness NOT_SERVING and leaves
// liveness SERVING.
func TestStoreOutageLeavesLivenessServing(t *testing.T) {
	_, hs := newServer(t, server.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() {
		server.WatchHealth(ctx, hs, failingPinger{}, 10*time.Millisecond, slog.New(slog.DiscardHandler))
		close(done)
	}()
	defer func() { cancel(); <-done }()
	status := func(svc string) healthpb.HealthCheckResponse_ServingStatus {
		r, err := hs.Check(ctx, &healthpb.HealthCheckRequest{Service: svc})
		if err != nil {
			t.Fatalf("Check %q: %v", svc, err)
		}
		return r.Status
	}
	for _, svc := range []string{"", "toold.v1.ToolService", "toold.v1.SessionService"} {
		for status(svc) != healthpb.HealthCheckResponse_NOT_SERVING {
			select {
			case <-ctx.Done():
				t.Fatalf("%q never turned NOT_SERVING", svc)
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	if got := status(server.LivenessService); got != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("liveness during the outage: %s", got)
	}
}
