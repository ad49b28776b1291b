package server

import (
	"context"
	"log/slog"
	"time"

	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// Pinger is a dependency whose reachability decides readiness (the Redis
// store).
type Pinger interface {
	Ping(ctx context.Context) error
}

// WatchHealth pings p every interval and reports NOT_SERVING while it
// fails, so that a load balancer stops sending calls that could only fail
// closed. It returns when ctx ends.
func WatchHealth(ctx context.Context, hs *health.Server, p Pinger, interval time.Duration, log *slog.Logger) {
	t := time.NewTicker(interval)
	defer t.Stop()
	serving := true
	for {
		pctx, cancel := context.WithTimeout(ctx, interval)
		err := p.Ping(pctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if ok := err == nil; ok != serving {
			serving = ok
			st := healthpb.HealthCheckResponse_SERVING
			if !ok {
				st = healthpb.HealthCheckResponse_NOT_SERVING
				log.Error("state store unreachable; reporting NOT_SERVING", "error", err)
			} else {
				log.Info("state store reachable again; reporting SERVING")
			}
			for _, name := range []string{"", tooldv1.SessionService_ServiceDesc.ServiceName, tooldv1.ToolService_ServiceDesc.ServiceName} {
				hs.SetServingStatus(name, st)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
