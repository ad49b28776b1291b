package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/toold/toold/internal/store/redistest"
)

// writeTokens writes an --auth-tokens file: one "TENANT SHA256-HEX" line
// per tenant, as an operator makes it with sha256sum.
func writeTokens(t *testing.T, tokens map[string]string) string {
	t.Helper()
	var b strings.Builder
	for tenant, tok := range tokens {
		sum := sha256.Sum256([]byte(tok))
		b.WriteString(tenant + " " + hex.EncodeToString(sum[:]) + "\n")
	}
	p := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// healthStatus asks grpc.health.v1 in plaintext without credentials, as a
// kubelet probe does.
func healthStatus(t *testing.T, ctx context.Context, addr string) (healthpb.HealthCheckResponse_ServingStatus, error) {
	t.Helper()
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	r, err := healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{})
	return r.GetStatus(), err
}

func TestAuthTokenThroughGrpcurl(t *testing.T) {
	tokens := writeTokens(t, map[string]string{"team-a": "secret-a", "team-b": "secret-b"})
	d := startToold(t, "--auth", "token", "--auth-tokens", tokens)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, b := `-H "authorization: Bearer secret-a"`, `-H "authorization: Bearer secret-b"`

	// Without a token, or with a wrong one, nothing but health answers.
	for _, h := range []string{"", `-H "authorization: Bearer nope"`} {
		out, err := sh(t, ctx, `grpcurl -plaintext `+h+` `+d.addr+` list`)
		if err == nil {
			t.Fatalf("list with %q succeeded:\n%s", h, out)
		}
		mustContain(t, out, "Unauthenticated")
	}
	if st, err := healthStatus(t, ctx, d.addr); err != nil || st != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health without credentials = %v, %v", st, err)
	}

	out, err := sh(t, ctx, `grpcurl -plaintext `+a+` -d '{}' `+d.addr+` toold.v1.SessionService/CreateSession`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	sid := strings.TrimSpace(out[strings.Index(out, `"id": "`)+7:])
	sid = sid[:strings.Index(sid, `"`)]
	call := `-d '{"session_id": "` + sid + `", "calls": [{"tool_use_id": "t1", "name": "Glob", "input": {"pattern": "*"}}]}' ` + d.addr + ` toold.v1.ToolService/Execute`
	out, err = sh(t, ctx, `grpcurl -plaintext `+a+` `+call)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mustContain(t, out, `"result"`)

	// Another tenant is told the session does not exist, exactly as for
	// an id nobody uses.
	out, err = sh(t, ctx, `grpcurl -plaintext `+b+` `+call)
	if err == nil {
		t.Fatalf("tenant B ran a call on tenant A's session:\n%s", out)
	}
	mustContain(t, out, "NotFound", "session "+sid+": not found")
	out, _ = sh(t, ctx, `grpcurl -plaintext `+b+` -d '{"session_id": "`+sid+`"}' `+d.addr+` toold.v1.SessionService/GetSession`)
	mustContain(t, out, "NotFound", "session "+sid+": not found")
}

func TestAuthNoneOnAPublicAddress(t *testing.T) {
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(binary(t), "--listen", "0.0.0.0:"+port, "--workspace-root", t.TempDir())
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "--insecure-no-auth") {
		t.Fatalf("--auth none on 0.0.0.0: err = %v, output %s", err, out)
	}
	// The operator's explicit choice is honoured.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd = exec.CommandContext(ctx, binary(t), "--listen", "0.0.0.0:"+port, "--workspace-root", t.TempDir(), "--insecure-no-auth")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	for {
		out, err := sh(t, ctx, `grpcurl -plaintext `+addr+` list`)
		if err == nil {
			mustContain(t, out, "toold.v1.ToolService")
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("toold with --insecure-no-auth did not serve on 0.0.0.0:%s: %s", port, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "toold"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	return certFile, keyFile
}

// With TLS on the main port, probes use the plaintext --health-listen.
func TestHealthListenBesideTLS(t *testing.T) {
	cert, key := selfSigned(t)
	tokens := writeTokens(t, map[string]string{"team-a": "secret-a"})
	healthAddr := freeAddr(t)
	d := startToold(t, "--auth", "token", "--auth-tokens", tokens, "--tls-cert", cert, "--tls-key", key, "--health-listen", healthAddr)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	if st, err := healthStatus(t, ctx, healthAddr); err != nil || st != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("plaintext health on --health-listen = %v, %v", st, err)
	}
	// That port serves health only.
	if out, err := sh(t, ctx, `grpcurl -plaintext `+healthAddr+` list`); err == nil {
		t.Fatalf("the health port serves more than health:\n%s", out)
	}
	out, err := sh(t, ctx, `grpcurl -cacert `+cert+` -H "authorization: Bearer secret-a" -d '{}' `+d.addr+` toold.v1.ToolService/ListTools`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mustContain(t, out, `"name": "Read"`)
}

// Two replicas on one Redis share each tenant's rate: what one admitted,
// the other counts.
func TestRateLimitSharedAcrossReplicas(t *testing.T) {
	rs := redistest.StartServer(t)
	url := "redis://" + rs.Addr + "/0?max_retries=0"
	// One call per 1000 s after a burst of 2: nothing refills during the test.
	limits := []string{"--redis-url", url, "--rate-limit", "0.001", "--rate-burst", "2"}
	a, b := startToold(t, limits...), startToold(t, limits...)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sid := createSession(t, ctx, a.addr)
	run := func(addr, id string) (string, error) {
		return sh(t, ctx, `grpcurl -plaintext -d '{"session_id": "`+sid+`", "calls": [{"tool_use_id": "`+id+`", "name": "Glob", "input": {"pattern": "*"}}]}' `+addr+` toold.v1.ToolService/Execute 2>&1`)
	}
	for i, addr := range []string{a.addr, b.addr} {
		if out, err := run(addr, fmt.Sprintf("g%d", i)); err != nil {
			t.Fatalf("call %d: %v\n%s", i, err, out)
		}
	}
	for _, addr := range []string{a.addr, b.addr} {
		out, err := run(addr, "g9")
		if err == nil {
			t.Fatalf("a third call within the burst of 2 was admitted:\n%s", out)
		}
		mustContain(t, out, "ResourceExhausted", `tenant "default"`, "retry in")
	}
}
