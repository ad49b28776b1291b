package hooks

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// hookServer is an in-process HookService whose answer each test sets.
type hookServer struct {
	tooldv1.UnimplementedHookServiceServer
	answer func(context.Context, *tooldv1.RunHookRequest) (*tooldv1.RunHookResponse, error)

	mu       sync.Mutex
	requests []*tooldv1.RunHookRequest
	metadata []metadata.MD
}

func (s *hookServer) RunHook(ctx context.Context, req *tooldv1.RunHookRequest) (*tooldv1.RunHookResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.metadata = append(s.metadata, md)
	s.mu.Unlock()
	return s.answer(ctx, req)
}

// serve starts the server on a loopback port and returns its address.
func serve(t *testing.T, s *hookServer, opts ...grpc.ServerOption) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(opts...)
	tooldv1.RegisterHookServiceServer(srv, s)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

func grpcHook(addr string, extra ...string) string {
	return `{"type":"grpc","endpoint":"` + addr + `"` + strings.Join(extra, "") + `}`
}

func grpcRunner(t *testing.T, settingsJSON string, mod ...func(*Options)) *Runner {
	t.Helper()
	cfg, err := ParseSettings([]byte(settingsJSON), "test")
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Settings: cfg}
	for _, m := range mod {
		m(&opts)
	}
	r, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func grpcSession(t *testing.T) Session {
	return Session{ID: "sess-g", Workspace: t.TempDir(), PermissionMode: "acceptEdits"}
}

func TestGRPCHookGetsTheEventFields(t *testing.T) {
	s := &hookServer{answer: func(context.Context, *tooldv1.RunHookRequest) (*tooldv1.RunHookResponse, error) {
		return &tooldv1.RunHookResponse{}, nil
	}}
	addr := serve(t, s)
	r := grpcRunner(t, settings(PreToolUse, "Bash", grpcHook(addr, `,"insecure":true,"headers":{"X-Team":"infra"}`)))
	sess := grpcSession(t)
	o, err := r.PreToolUse(ctx(t), ToolEvent{Session: sess, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"ls","timeout":1000}`), ToolUseID: "toolu_9"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Decision != None || len(o.Reports) != 1 || o.Reports[0].Status != StatusOK || o.Reports[0].Hook != "grpc://"+addr {
		t.Fatalf("outcome %+v", o)
	}
	req := s.requests[0]
	if req.GetSessionId() != "sess-g" || req.GetHookEventName() != "PreToolUse" || req.GetToolName() != "Bash" ||
		req.GetToolUseId() != "toolu_9" || req.GetCwd() != sess.Workspace || req.GetProjectDir() != sess.Workspace ||
		req.GetPermissionMode() != "acceptEdits" {
		t.Errorf("request %v", req)
	}
	if in := req.GetToolInput().AsMap(); in["command"] != "ls" || in["timeout"] != float64(1000) {
		t.Errorf("tool_input %v", in)
	}
	if got := s.metadata[0].Get("x-team"); len(got) != 1 || got[0] != "infra" {
		t.Errorf("metadata %v", s.metadata[0])
	}
}

func TestGRPCHookDecides(t *testing.T) {
	updated, _ := structpb.NewStruct(map[string]any{"command": "ls -la"})
	answers := map[string]*tooldv1.RunHookResponse{
		"deny": {HookSpecificOutput: &tooldv1.HookSpecificOutput{
			PermissionDecision:       tooldv1.HookPermissionDecision_HOOK_PERMISSION_DECISION_DENY,
			PermissionDecisionReason: "the orchestrator says no",
		}},
		"allow": {SystemMessage: "rewritten", HookSpecificOutput: &tooldv1.HookSpecificOutput{
			HookEventName:      "PreToolUse",
			PermissionDecision: tooldv1.HookPermissionDecision_HOOK_PERMISSION_DECISION_ALLOW,
			UpdatedInput:       updated,
			AdditionalContext:  "listing everything",
		}},
		"stop": {Continue: ptr(false), StopReason: "quota"},
	}
	s := &hookServer{answer: func(_ context.Context, req *tooldv1.RunHookRequest) (*tooldv1.RunHookResponse, error) {
		return answers[req.GetToolInput().AsMap()["command"].(string)], nil
	}}
	r := grpcRunner(t, settings(PreToolUse, "", grpcHook(serve(t, s), `,"insecure":true`)))
	call := func(cmd string) PreOutcome {
		o, err := r.PreToolUse(ctx(t), ToolEvent{Session: grpcSession(t), ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"` + cmd + `"}`)})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	if o := call("deny"); o.Decision != Deny || o.Reason != "the orchestrator says no" {
		t.Errorf("deny: %s %q", o.Decision, o.Reason)
	}
	if o := call("allow"); o.Decision != Allow || string(o.UpdatedInput) != `{"command":"ls -la"}` ||
		strings.Join(o.AdditionalContext, "") != "listing everything" || strings.Join(o.SystemMessages, "") != "rewritten" {
		t.Errorf("allow: %+v", o)
	}
	if o := call("stop"); o.Decision != Deny || o.Stop == nil || o.Stop.Reason != "quota" {
		t.Errorf("stop: %+v", o)
	}
}

func ptr[T any](v T) *T { return &v }

func TestGRPCHookAnswersPermissionRequests(t *testing.T) {
	perm, _ := structpb.NewValue(map[string]any{"type": "setMode", "mode": "acceptEdits", "destination": "session"})
	s := &hookServer{answer: func(context.Context, *tooldv1.RunHookRequest) (*tooldv1.RunHookResponse, error) {
		return &tooldv1.RunHookResponse{HookSpecificOutput: &tooldv1.HookSpecificOutput{
			Decision: &tooldv1.HookPermissionRequestDecision{
				Behavior:           tooldv1.HookPermissionBehavior_HOOK_PERMISSION_BEHAVIOR_ALLOW,
				UpdatedPermissions: []*structpb.Value{perm},
			},
		}}, nil
	}}
	r := grpcRunner(t, settings(PermissionRequest, "Write", grpcHook(serve(t, s), `,"insecure":true`)))
	sugg := json.RawMessage(`{"type":"addRules","rules":[{"toolName":"Write"}],"behavior":"allow","destination":"session"}`)
	o, err := r.PermissionRequest(ctx(t), ToolEvent{Session: grpcSession(t), ToolName: "Write", ToolInput: json.RawMessage(`{"file_path":"/w/a","content":"x"}`), PermissionSuggestions: []json.RawMessage{sugg}})
	if err != nil {
		t.Fatal(err)
	}
	if o.Decision != Allow || len(o.UpdatedPermissions) != 1 || !strings.Contains(string(o.UpdatedPermissions[0]), `"setMode"`) {
		t.Errorf("outcome %+v", o)
	}
	if got := s.requests[0].GetPermissionSuggestions(); len(got) != 1 || got[0].GetStructValue().AsMap()["type"] != "addRules" {
		t.Errorf("suggestions %v", got)
	}
}

func TestGRPCHookFailures(t *testing.T) {
	failing := &hookServer{answer: func(context.Context, *tooldv1.RunHookRequest) (*tooldv1.RunHookResponse, error) {
		return nil, status.Error(codes.Internal, "orchestrator crashed")
	}}
	hanging := &hookServer{answer: func(ctx context.Context, _ *tooldv1.RunHookRequest) (*tooldv1.RunHookResponse, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	badEnum := &hookServer{answer: func(context.Context, *tooldv1.RunHookRequest) (*tooldv1.RunHookResponse, error) {
		return &tooldv1.RunHookResponse{HookSpecificOutput: &tooldv1.HookSpecificOutput{PermissionDecision: 42}}, nil
	}}
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	gone := closed.Addr().String()
	closed.Close()
	cases := []struct {
		name   string
		hook   string
		status Status
		msg    string
	}{
		{"error status", grpcHook(serve(t, failing), `,"insecure":true`), StatusFailed, "Internal: orchestrator crashed"},
		{"timeout", grpcHook(serve(t, hanging), `,"insecure":true,"timeout":0.3`), StatusTimedOut, "timed out after 300ms"},
		{"unreachable", grpcHook(gone, `,"insecure":true,"timeout":5`), StatusFailed, "Unavailable"},
		{"unknown enum value", grpcHook(serve(t, badEnum), `,"insecure":true`), StatusFailed, "unknown permission_decision value 42"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, failOpen := range []bool{false, true} {
				r := grpcRunner(t, settings(PreToolUse, "", c.hook), func(o *Options) { o.FailOpen = failOpen })
				o, err := r.PreToolUse(ctx(t), ToolEvent{Session: grpcSession(t), ToolName: "Read", ToolInput: json.RawMessage(`{"file_path":"/a"}`)})
				if err != nil {
					t.Fatal(err)
				}
				want := Deny
				if failOpen {
					want = None
				}
				rep := o.Reports[0]
				if o.Decision != want || rep.Status != c.status || !strings.Contains(rep.Message, c.msg) {
					t.Errorf("fail open %v: decision %s, report %s %q", failOpen, o.Decision, rep.Status, rep.Message)
				}
			}
		})
	}
}

func TestGRPCHookOverTLS(t *testing.T) {
	dir := t.TempDir()
	cert, caFile := selfSigned(t, dir, "hooks.internal")
	s := &hookServer{answer: func(context.Context, *tooldv1.RunHookRequest) (*tooldv1.RunHookResponse, error) {
		return &tooldv1.RunHookResponse{Decision: tooldv1.HookDecision_HOOK_DECISION_BLOCK, Reason: "over TLS"}, nil
	}}
	addr := serve(t, s, grpc.Creds(credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{cert}})))

	r := grpcRunner(t, settings(PreToolUse, "", grpcHook(addr, `,"caFile":"`+caFile+`","serverName":"hooks.internal"`)))
	o, err := r.PreToolUse(ctx(t), ToolEvent{Session: grpcSession(t), ToolName: "Read", ToolInput: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if o.Decision != Deny || o.Reason != "over TLS" {
		t.Errorf("with the CA: %s %q (%+v)", o.Decision, o.Reason, o.Reports)
	}

	// Without the CA the server's certificate is not trusted: the hook
	// fails, and the call with it.
	r = grpcRunner(t, settings(PreToolUse, "", grpcHook(addr, `,"serverName":"hooks.internal","timeout":5`)))
	o, err = r.PreToolUse(ctx(t), ToolEvent{Session: grpcSession(t), ToolName: "Read", ToolInput: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if o.Decision != Deny || o.Reports[0].Status != StatusFailed {
		t.Errorf("without the CA: %s %+v", o.Decision, o.Reports)
	}
}

// selfSigned writes a self-signed certificate for name and returns it with
// the path of its PEM file.
func selfSigned(t *testing.T, dir, name string) (tls.Certificate, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, IsCA: true, BasicConstraintsValid: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(certPEM, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(p, certPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	return cert, p
}
