package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/store/redistest"
)

// During a Redis outage the readiness names ("" and the toold.v1
// services) report NOT_SERVING, so the replica leaves the endpoints, while
// toold.liveness, which the liveness probe asks, stays SERVING: kubelet
// does not restart replicas that a store outage would not cure. With Redis
// back readiness returns without a restart.
func TestProbesDuringRedisOutage(t *testing.T) {
	rs := redistest.StartServerWith(t, redistest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d := startToold(t, "--redis-url", "redis://"+rs.Addr+"/0?max_retries=0")
	for _, svc := range []string{"", "toold.v1.ToolService", "toold.liveness"} {
		waitService(t, ctx, d.addr, svc, "SERVING")
	}

	rs.Kill()
	for _, svc := range []string{"", "toold.v1.ToolService", "toold.v1.SessionService"} {
		waitService(t, ctx, d.addr, svc, "NOT_SERVING")
	}
	// Readiness has turned; liveness was asked after that and is alive.
	if got := checkService(t, ctx, d.addr, "toold.liveness"); got != "SERVING" {
		t.Fatalf("liveness during the outage: %s", got)
	}

	rs.Restart(t)
	waitService(t, ctx, d.addr, "", "SERVING")
	if got := checkService(t, ctx, d.addr, "toold.liveness"); got != "SERVING" {
		t.Fatalf("liveness after the outage: %s", got)
	}
}

// checkService is one grpc.health.v1 Check of svc, as kubelet's gRPC probe
// with `service: svc` sends it; it returns the status or the error text.
func checkService(t *testing.T, ctx context.Context, addr, svc string) string {
	t.Helper()
	out, _ := sh(t, ctx, `grpcurl -plaintext -d '{"service": "`+svc+`"}' `+addr+` grpc.health.v1.Health/Check 2>&1`)
	for _, st := range []string{"NOT_SERVING", "SERVING", "SERVICE_UNKNOWN"} {
		if strings.Contains(out, `"`+st+`"`) {
			return st
		}
	}
	return strings.TrimSpace(out)
}

func waitService(t *testing.T, ctx context.Context, addr, svc, want string) {
	t.Helper()
	for {
		got := checkService(t, ctx, addr, svc)
		if got == want {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("health of %q on %s is %s, want %s", svc, addr, got, want)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
