package classifier

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/toold/toold/internal/policy"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// server is a ClassifierService whose answer the test picks.
type server struct {
	tooldv1.UnimplementedClassifierServiceServer
	answer func(context.Context, *tooldv1.ClassifyRequest) (*tooldv1.ClassifyResponse, error)
}

func (s server) Classify(ctx context.Context, req *tooldv1.ClassifyRequest) (*tooldv1.ClassifyResponse, error) {
	return s.answer(ctx, req)
}

func serve(t *testing.T, answer func(context.Context, *tooldv1.ClassifyRequest) (*tooldv1.ClassifyResponse, error)) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	tooldv1.RegisterClassifierServiceServer(srv, server{answer: answer})
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

func grpcClassifier(t *testing.T, addr string, headers map[string]string) *fixture {
	t.Helper()
	b, err := NewGRPC(GRPCOptions{Endpoint: addr, Insecure: true, Headers: headers})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return newFixture(t, b, func(o *Options) { o.Timeout = 300 * time.Millisecond })
}

func TestGRPCAnswers(t *testing.T) {
	addr := serve(t, func(ctx context.Context, req *tooldv1.ClassifyRequest) (*tooldv1.ClassifyResponse, error) {
		md, _ := metadata.FromIncomingContext(ctx)
		if got := md.Get("authorization"); len(got) != 1 || got[0] != "Bearer t" {
			return nil, status.Error(codes.Unauthenticated, "no token")
		}
		switch cmd := req.GetInput().AsMap()["command"]; cmd {
		case "npm test":
			return &tooldv1.ClassifyResponse{Verdict: vAllow, Reason: "tests"}, nil
		case "curl x":
			return &tooldv1.ClassifyResponse{Verdict: vDeny, Reason: "network"}, nil
		case "sleep":
			<-ctx.Done()
			return nil, ctx.Err()
		case "nothing":
			return &tooldv1.ClassifyResponse{}, nil
		}
		return nil, status.Error(codes.Internal, "broken")
	})
	f := grpcClassifier(t, addr, map[string]string{"authorization": "Bearer t"})
	for cmd, want := range map[string]struct {
		b  policy.Behavior
		in string
	}{
		"npm test": {policy.Allow, "tests"},
		"curl x":   {policy.Deny, "network"},
		// Around the deadline the stream may end either way; both ask.
		"sleep":   {policy.Ask, "classifier failed"},
		"nothing": {policy.Ask, "no verdict"},
		"other":   {policy.Ask, "Internal: broken"},
	} {
		got := f.k.Classify(context.Background(), bashCall(cmd), needsApproval)
		if got.Behavior != want.b || !strings.Contains(got.Reason, want.in) {
			t.Errorf("%s: %v %s", cmd, got.Behavior, got.Reason)
		}
	}
	// Without the token the service refuses: a person decides.
	f = grpcClassifier(t, addr, nil)
	if got := f.k.Classify(context.Background(), bashCall("npm test"), needsApproval); got.Behavior != policy.Ask || !strings.Contains(got.Reason, "Unauthenticated") {
		t.Errorf("no token: %v %s", got.Behavior, got.Reason)
	}
}

// A classifier nobody listens on fails, so a person decides.
func TestGRPCDeadClassifierAsks(t *testing.T) {
	lis, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := lis.Addr().String()
	lis.Close()
	f := grpcClassifier(t, addr, nil)
	got := f.k.Classify(context.Background(), bashCall("npm test"), needsApproval)
	if got.Behavior != policy.Ask || got.Source != Source {
		t.Fatalf("got %+v", got)
	}
}

func TestGRPCOptionsChecked(t *testing.T) {
	if _, err := NewGRPC(GRPCOptions{}); err == nil {
		t.Error("no endpoint accepted")
	}
	if _, err := NewGRPC(GRPCOptions{Endpoint: "x:1", CAFile: "/no/such/ca.pem"}); err == nil {
		t.Error("a missing CA file accepted")
	}
}
