package server

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// NewHealthOnly serves nothing but grpc.health.v1 from hs (the main
// server's, so shutdown's NOT_SERVING shows here too), in plaintext and
// without authentication. It is for kubelet's native gRPC probes, which
// cannot speak TLS: with TLS on the main port, the probes use this one.
func NewHealthOnly(hs *health.Server) *grpc.Server {
	srv := grpc.NewServer(grpc.MaxConcurrentStreams(16))
	healthpb.RegisterHealthServer(srv, hs)
	return srv
}
