package auth_test

import (
	"context"
	"crypto/tls"
	"net"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	"github.com/toold/toold/internal/auth"
)

// echoTenant answers with the tenant the interceptor put in the context:
// in the "tenant" header for unary calls, as the payload for streams.
type echoTenant struct {
	testpb.UnimplementedTestServiceServer
}

func (echoTenant) EmptyCall(ctx context.Context, _ *testpb.Empty) (*testpb.Empty, error) {
	t, ok := auth.TenantFrom(ctx)
	if !ok {
		return nil, status.Error(codes.Internal, "no tenant in context")
	}
	_ = grpc.SetHeader(ctx, metadata.Pairs("tenant", t))
	return &testpb.Empty{}, nil
}

func (echoTenant) StreamingOutputCall(_ *testpb.StreamingOutputCallRequest, s grpc.ServerStreamingServer[testpb.StreamingOutputCallResponse]) error {
	t, ok := auth.TenantFrom(s.Context())
	if !ok {
		return status.Error(codes.Internal, "no tenant in context")
	}
	return s.Send(&testpb.StreamingOutputCallResponse{Payload: &testpb.Payload{Body: []byte(t)}})
}

type serverOpts struct {
	publicReflection bool
	tls              *tls.Config
}

// serve runs a server with the auth interceptors wired as toold wires
// them (the package's interceptors with AuthFunc) and returns a client connection
// factory.
func serve(t *testing.T, a auth.Authenticator, o serverOpts) func(...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	af := auth.AuthFunc(a)
	opts := []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(auth.UnaryServerInterceptor(af, o.publicReflection)),
		grpc.ChainStreamInterceptor(auth.StreamServerInterceptor(af, o.publicReflection)),
	}
	if o.tls != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(o.tls)))
	}
	srv := grpc.NewServer(opts...)
	testpb.RegisterTestServiceServer(srv, echoTenant{})
	hs := health.NewServer()
	healthpb.RegisterHealthServer(srv, hs)
	reflection.Register(srv)
	lis := bufconn.Listen(1 << 20)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return func(dopts ...grpc.DialOption) *grpc.ClientConn {
		if len(dopts) == 0 {
			dopts = []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
		}
		dopts = append(dopts, grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			return lis.DialContext(ctx)
		}))
		cc, err := grpc.NewClient("passthrough:///bufnet", dopts...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cc.Close() })
		return cc
	}
}

func bearer(tok string) context.Context {
	return metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+tok)
}

// callAs makes a unary and a streaming call and returns the tenant each
// saw, or the status code of the failure (the same for both).
func callAs(t *testing.T, ctx context.Context, cc *grpc.ClientConn) (string, codes.Code) {
	t.Helper()
	c := testpb.NewTestServiceClient(cc)
	var hdr metadata.MD
	_, uerr := c.EmptyCall(ctx, &testpb.Empty{}, grpc.Header(&hdr))
	stream, err := c.StreamingOutputCall(ctx, &testpb.StreamingOutputCallRequest{})
	var serr error
	var body string
	if err == nil {
		var r *testpb.StreamingOutputCallResponse
		r, serr = stream.Recv()
		if serr == nil {
			body = string(r.GetPayload().GetBody())
		}
	} else {
		serr = err
	}
	if status.Code(uerr) != status.Code(serr) {
		t.Fatalf("unary and stream disagree: %v vs %v", uerr, serr)
	}
	if uerr != nil {
		return "", status.Code(uerr)
	}
	if got := hdr.Get("tenant"); len(got) != 1 || got[0] != body {
		t.Fatalf("unary saw tenant %v, stream %q", got, body)
	}
	return body, codes.OK
}
