package ratelimit_test

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	"github.com/toold/toold/internal/ratelimit"
)

// streamer is a server-streaming service whose request names how many
// "calls" it carries (response parameters) and what the handler does:
// "hold" keeps the stream open until the test says, "detach" hands the
// permit to the test.
type streamer struct {
	testpb.UnimplementedTestServiceServer
	hold     chan struct{}
	detached chan *ratelimit.Permit
}

func (s *streamer) StreamingOutputCall(r *testpb.StreamingOutputCallRequest, ss grpc.ServerStreamingServer[testpb.StreamingOutputCallResponse]) error {
	if ratelimit.PermitFrom(ss.Context()) == nil {
		return status.Error(codes.Internal, "no permit in the handler's context")
	}
	if err := ss.Send(&testpb.StreamingOutputCallResponse{}); err != nil {
		return err
	}
	switch string(r.GetPayload().GetBody()) {
	case "hold":
		<-s.hold
	case "detach":
		s.detached <- ratelimit.PermitFrom(ss.Context()).Detach()
	}
	return nil
}

func tenantFromMD(ctx context.Context) (string, bool) {
	v := metadata.ValueFromIncomingContext(ctx, "x-tenant")
	return firstOf(v), len(v) > 0
}

func firstOf(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

func countParams(m any) int {
	if r, ok := m.(*testpb.StreamingOutputCallRequest); ok {
		return len(r.GetResponseParameters())
	}
	return 0
}

func serveLimited(t *testing.T, l ratelimit.Limiter) (testpb.TestServiceClient, *streamer) {
	t.Helper()
	svc := &streamer{hold: make(chan struct{}), detached: make(chan *ratelimit.Permit, 1)}
	srv := grpc.NewServer(grpc.ChainStreamInterceptor(ratelimit.StreamServerInterceptor(l, tenantFromMD, countParams)))
	testpb.RegisterTestServiceServer(srv, svc)
	lis := bufconn.Listen(1 << 20)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	cc, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	return testpb.NewTestServiceClient(cc), svc
}

// open starts a stream for tenant with calls "calls" and reads the first
// response; it returns the stream or the status of the refusal.
func open(t *testing.T, c testpb.TestServiceClient, tenant string, calls int, mode string) (grpc.ServerStreamingClient[testpb.StreamingOutputCallResponse], *status.Status) {
	t.Helper()
	ctx := metadata.AppendToOutgoingContext(context.Background(), "x-tenant", tenant)
	req := &testpb.StreamingOutputCallRequest{Payload: &testpb.Payload{Body: []byte(mode)}}
	for range calls {
		req.ResponseParameters = append(req.ResponseParameters, &testpb.ResponseParameters{})
	}
	s, err := c.StreamingOutputCall(ctx, req)
	if err != nil {
		return nil, status.Convert(err)
	}
	if _, err := s.Recv(); err != nil {
		return nil, status.Convert(err)
	}
	return s, nil
}

func finish(t *testing.T, s grpc.ServerStreamingClient[testpb.StreamingOutputCallResponse]) {
	t.Helper()
	for {
		if _, err := s.Recv(); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("stream ended with %v", err)
			}
			return
		}
	}
}

func TestInterceptorRefusesWithRetryInfo(t *testing.T) {
	l, err := ratelimit.NewLocal(ratelimit.Config{Default: ratelimit.Limits{Rate: slow, Burst: 3}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := serveLimited(t, l)
	s, st := open(t, c, "team", 3, "")
	if st != nil {
		t.Fatalf("first batch: %v", st.Err())
	}
	finish(t, s)
	_, st = open(t, c, "team", 1, "")
	if st == nil || st.Code() != codes.ResourceExhausted {
		t.Fatalf("over the rate: %v, want ResourceExhausted", st.Err())
	}
	var retry *errdetails.RetryInfo
	var quota *errdetails.QuotaFailure
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.RetryInfo:
			retry = d
		case *errdetails.QuotaFailure:
			quota = d
		}
	}
	if retry == nil || retry.GetRetryDelay().AsDuration() <= 59*time.Minute {
		t.Errorf("RetryInfo = %v, want a delay of about an hour", retry)
	}
	if quota == nil || quota.GetViolations()[0].GetSubject() != "tenant:team" || quota.GetViolations()[0].GetDescription() != "rate" {
		t.Errorf("QuotaFailure = %v", quota)
	}
	// Another tenant still gets through.
	s, st = open(t, c, "other", 1, "")
	if st != nil {
		t.Fatalf("other tenant: %v", st.Err())
	}
	finish(t, s)
}

func TestInterceptorHoldsSlotsForTheStream(t *testing.T) {
	l, err := ratelimit.NewLocal(ratelimit.Config{Default: ratelimit.Limits{Concurrent: 2}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, svc := serveLimited(t, l)
	held, st := open(t, c, "team", 2, "hold")
	if st != nil {
		t.Fatal(st.Err())
	}
	_, st = open(t, c, "team", 1, "")
	if st == nil || st.Code() != codes.ResourceExhausted {
		t.Fatalf("while two calls are in flight: %v, want ResourceExhausted", st)
	}
	close(svc.hold)
	finish(t, held)
	// The slots came back when the stream ended.
	s, st := open(t, c, "team", 2, "")
	if st != nil {
		t.Fatalf("after the stream ended: %v", st.Err())
	}
	finish(t, s)

	// A detached permit outlives its stream until its holder releases it.
	s, st = open(t, c, "team", 2, "detach")
	if st != nil {
		t.Fatal(st.Err())
	}
	finish(t, s)
	p := <-svc.detached
	if _, st = open(t, c, "team", 1, ""); st == nil || st.Code() != codes.ResourceExhausted {
		t.Fatalf("with a detached permit held: %v, want ResourceExhausted", st)
	}
	p.Release()
	s, st = open(t, c, "team", 2, "")
	if st != nil {
		t.Fatalf("after the detached permit was released: %v", st.Err())
	}
	finish(t, s)
}

func TestUnaryInterceptorHoldsSlotsForTheCall(t *testing.T) {
	l, err := ratelimit.NewLocal(ratelimit.Config{Default: ratelimit.Limits{Concurrent: 2}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ic := ratelimit.UnaryServerInterceptor(l, tenantFromMD, countParams)
	ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs("x-tenant", "team"))
	req := func(n int) *testpb.StreamingOutputCallRequest {
		r := &testpb.StreamingOutputCallRequest{}
		for range n {
			r.ResponseParameters = append(r.ResponseParameters, &testpb.ResponseParameters{})
		}
		return r
	}
	var inside error
	_, err = ic(ctx, req(2), nil, func(ctx context.Context, _ any) (any, error) {
		if ratelimit.PermitFrom(ctx) == nil {
			return nil, errors.New("no permit in the handler's context")
		}
		// Both slots are this call's while it runs.
		_, inside = ic(ctx, req(1), nil, func(context.Context, any) (any, error) { return nil, nil })
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if status.Code(inside) != codes.ResourceExhausted {
		t.Fatalf("a call while two are in flight: %v, want ResourceExhausted", inside)
	}
	ran := false
	if _, err := ic(ctx, req(2), nil, func(context.Context, any) (any, error) { ran = true; return nil, nil }); err != nil || !ran {
		t.Fatalf("after the call returned: ran %v, %v", ran, err)
	}
	// A request that carries no calls is not limited and gets no permit.
	if _, err := ic(ctx, req(0), nil, func(ctx context.Context, _ any) (any, error) {
		if ratelimit.PermitFrom(ctx) != nil {
			return nil, errors.New("a permit for a free request")
		}
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
}
