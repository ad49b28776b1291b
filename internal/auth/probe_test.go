package auth_test

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
)

func healthCheck(cc *grpc.ClientConn) (healthpb.HealthCheckResponse_ServingStatus, codes.Code) {
	r, err := healthpb.NewHealthClient(cc).Check(context.Background(), &healthpb.HealthCheckRequest{})
	return r.GetStatus(), status.Code(err)
}

// listServices asks reflection for the service list, as grpcurl list does.
func listServices(ctx context.Context, cc *grpc.ClientConn) codes.Code {
	s, err := reflectionpb.NewServerReflectionClient(cc).ServerReflectionInfo(ctx)
	if err != nil {
		return status.Code(err)
	}
	// A refused stream may already be closed when the request is sent
	// (Send then says io.EOF); Recv has the status either way.
	_ = s.Send(&reflectionpb.ServerReflectionRequest{
		MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{},
	})
	_, err = s.Recv()
	return status.Code(err)
}
