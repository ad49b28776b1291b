package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	"github.com/toold/toold/internal/auth"
	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/ratelimit"
	"github.com/toold/toold/internal/server"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// holdTool runs until its call is cancelled.
type holdTool struct{}

func (holdTool) Definition() tool.Definition {
	return tool.Definition{Name: "Hold", Description: "holds", InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{}}`)}
}
func (h holdTool) Parse(json.RawMessage) (tool.Invocation, error) { return h, nil }
func (holdTool) Traits() tool.Traits                              { return tool.Traits{} }
func (holdTool) Activity() tool.Activity                          { return tool.Activity{Summary: "hold"} }
func (holdTool) Run(ctx context.Context, _ *tool.Env) (*tool.Result, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// Two tenants' tokens, as an operator writes them into --auth-tokens.
const (
	tokenA = "token-of-tenant-a"
	tokenB = "token-of-tenant-b"
)

func tokenFile(t *testing.T) string {
	t.Helper()
	line := func(tenant, tok string) string {
		sum := sha256.Sum256([]byte(tok))
		return tenant + " " + hex.EncodeToString(sum[:]) + "\n"
	}
	p := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(p, []byte("# tenants\n"+line("tenant-a", tokenA)+line("tenant-b", tokenB)), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// secureEnv is a server over bufconn with the given authentication and
// limits, and one connection without credentials: each call says whose
// token it carries.
type secureEnv struct {
	sessions tooldv1.SessionServiceClient
	tools    tooldv1.ToolServiceClient
	conn     *grpc.ClientConn
}

func startSecure(t *testing.T, opts server.Options) *secureEnv {
	t.Helper()
	st := memstore.New()
	reg, err := tool.NewRegistry(echoTool{}, holdTool{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := exec.NewEngine(exec.Config{Registry: reg, Store: st, Policy: policy.WorkspaceOnly{}})
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := session.NewManager(st, filepath.Join(t.TempDir(), "root"), eng, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := server.NewToolService(reg, eng, mgr, 8)
	if err != nil {
		t.Fatal(err)
	}
	ts.WithNotifications(st)
	srv, _ := server.New(opts, server.NewSessionService(mgr, eng), ts)
	conn := serveBufconn(t, srv)
	return &secureEnv{sessions: tooldv1.NewSessionServiceClient(conn), tools: tooldv1.NewToolServiceClient(conn), conn: conn}
}

func tokenAuth(t *testing.T) auth.Authenticator {
	t.Helper()
	a, err := auth.New(auth.Config{Mode: auth.ModeToken, TokenFile: tokenFile(t)})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// as is a context carrying a bearer token, as grpcurl -H sends it.
func as(t *testing.T, token string) context.Context {
	return metadata.AppendToOutgoingContext(ctx(t), "authorization", "Bearer "+token)
}

// execute sends one Execute and returns its events, or the RPC's error.
func (e *secureEnv) execute(c context.Context, req *tooldv1.ExecuteRequest) ([]*tooldv1.ExecuteEvent, error) {
	stream, err := e.tools.Execute(c, req)
	if err != nil {
		return nil, err
	}
	var evs []*tooldv1.ExecuteEvent
	for {
		ev, err := stream.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return evs, nil
			}
			return evs, err
		}
		evs = append(evs, ev)
	}
}

func echoCalls(n int) []*tooldv1.ToolCall {
	out := make([]*tooldv1.ToolCall, n)
	for i := range out {
		out[i] = &tooldv1.ToolCall{ToolUseId: fmt.Sprintf("toolu_%d_%d", time.Now().UnixNano(), i), Name: "Echo", InputJson: `{"text":"hi"}`}
	}
	return out
}

func TestTokenAuth(t *testing.T) {
	e := startSecure(t, server.Options{Authenticator: tokenAuth(t)})

	for name, c := range map[string]context.Context{
		"no credentials": ctx(t),
		"wrong token":    as(t, "not-a-token"),
	} {
		_, err := e.sessions.CreateSession(c, &tooldv1.CreateSessionRequest{})
		wantCode(t, err, codes.Unauthenticated, "")
		_, err = e.tools.ListTools(c, &tooldv1.ListToolsRequest{})
		wantCode(t, err, codes.Unauthenticated, "")
		_, err = e.execute(c, &tooldv1.ExecuteRequest{SessionId: "abcdefghijklmnopqrstuvwxyz", Calls: echoCalls(1)})
		wantCode(t, err, codes.Unauthenticated, "")
		if code := listServices(c, e.conn); code != codes.Unauthenticated {
			t.Errorf("%s: reflection = %v, want Unauthenticated (not public by default)", name, code)
		}
	}

	// Probes carry no credentials.
	h, err := healthpb.NewHealthClient(e.conn).Check(ctx(t), &healthpb.HealthCheckRequest{})
	if err != nil || h.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health without credentials = %v, %v", h, err)
	}

	// The right token works, for every service.
	s, err := e.sessions.CreateSession(as(t, tokenA), &tooldv1.CreateSessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := e.execute(as(t, tokenA), &tooldv1.ExecuteRequest{SessionId: s.GetSession().GetId(), Calls: echoCalls(1)})
	if err != nil || evs[len(evs)-1].GetResult().GetIsError() {
		t.Fatalf("Execute with a valid token = %v, %v", evs, err)
	}
	if code := listServices(as(t, tokenA), e.conn); code != codes.OK {
		t.Fatalf("reflection with a valid token = %v", code)
	}
}

func TestPublicReflection(t *testing.T) {
	e := startSecure(t, server.Options{Authenticator: tokenAuth(t), PublicReflection: true})
	if code := listServices(ctx(t), e.conn); code != codes.OK {
		t.Fatalf("public reflection without credentials = %v", code)
	}
	_, err := e.tools.ListTools(ctx(t), &tooldv1.ListToolsRequest{})
	wantCode(t, err, codes.Unauthenticated, "")
}

// listServices asks reflection for the service list, as grpcurl list does.
func listServices(c context.Context, cc *grpc.ClientConn) codes.Code {
	s, err := reflectionpb.NewServerReflectionClient(cc).ServerReflectionInfo(c)
	if err != nil {
		return status.Code(err)
	}
	_ = s.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}})
	_, err = s.Recv()
	return status.Code(err)
}

// retryDelay is the RetryInfo of a refusal, which clients wait on.
func retryDelay(t *testing.T, err error) time.Duration {
	t.Helper()
	for _, d := range status.Convert(err).Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok {
			return ri.GetRetryDelay().AsDuration()
		}
	}
	t.Fatalf("no RetryInfo in %v", err)
	return 0
}

func TestRateLimitPerTenant(t *testing.T) {
	// A stopped clock: the bucket never refills during the test.
	now := time.Unix(1_700_000_000, 0)
	lim, err := ratelimit.NewLocal(ratelimit.Config{Default: ratelimit.Limits{Rate: 1, Burst: 3}}, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	e := startSecure(t, server.Options{Authenticator: tokenAuth(t), Limiter: lim})
	sa, err := e.sessions.CreateSession(as(t, tokenA), &tooldv1.CreateSessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	sb, err := e.sessions.CreateSession(as(t, tokenB), &tooldv1.CreateSessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	a := &tooldv1.ExecuteRequest{SessionId: sa.GetSession().GetId()}

	a.Calls = echoCalls(3)
	if _, err := e.execute(as(t, tokenA), a); err != nil {
		t.Fatalf("a burst of 3 = %v", err)
	}
	a.Calls = echoCalls(1)
	_, err = e.execute(as(t, tokenA), a)
	wantCode(t, err, codes.ResourceExhausted, "rate limit")
	if d := retryDelay(t, err); d <= 0 || d > time.Second {
		t.Fatalf("retry delay %v, want the time one call's share takes to come back (≤ 1s)", d)
	}
	// Each tenant has its own bucket.
	if _, err := e.execute(as(t, tokenB), &tooldv1.ExecuteRequest{SessionId: sb.GetSession().GetId(), Calls: echoCalls(3)}); err != nil {
		t.Fatalf("tenant B = %v", err)
	}
	// A batch no wait would admit says so, without a retry delay.
	a.Calls = echoCalls(4)
	_, err = e.execute(as(t, tokenA), a)
	wantCode(t, err, codes.ResourceExhausted, "send fewer calls")
}

func TestConcurrencyLimitFreesEachFinishedCall(t *testing.T) {
	lim, err := ratelimit.NewLocal(ratelimit.Config{Default: ratelimit.Limits{Concurrent: 2}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := startSecure(t, server.Options{Limiter: lim})
	s, err := e.sessions.CreateSession(ctx(t), &tooldv1.CreateSessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	id := s.GetSession().GetId()
	hold := func(c context.Context, calls ...*tooldv1.ToolCall) tooldv1.ToolService_ExecuteClient {
		t.Helper()
		stream, err := e.tools.Execute(c, &tooldv1.ExecuteRequest{SessionId: id, Calls: calls})
		if err != nil {
			t.Fatal(err)
		}
		// The Hold call's started event: its batch was admitted.
		for {
			ev, err := stream.Recv()
			if err != nil {
				t.Fatalf("before Hold started: %v", err)
			}
			if ev.GetStarted().GetName() == "Hold" {
				return stream
			}
		}
	}
	c1, cancel1 := context.WithCancel(ctx(t))
	defer cancel1()
	// Echo then Hold run one after the other: once Echo's result is sent,
	// the batch holds one slot, not two.
	hold(c1, echoCalls(1)[0], &tooldv1.ToolCall{ToolUseId: "toolu_h1", Name: "Hold", InputJson: `{}`})
	c2, cancel2 := context.WithCancel(ctx(t))
	defer cancel2()
	hold(c2, &tooldv1.ToolCall{ToolUseId: "toolu_h2", Name: "Hold", InputJson: `{}`})

	_, err = e.execute(ctx(t), &tooldv1.ExecuteRequest{SessionId: id, Calls: echoCalls(1)})
	wantCode(t, err, codes.ResourceExhausted, "in flight")
	if d := retryDelay(t, err); d <= 0 {
		t.Fatalf("retry delay %v", d)
	}
}
