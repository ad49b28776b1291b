package classifier

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/toold/toold/internal/policy"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// selfSigned makes a certificate for name and writes it as a CA file.
func selfSigned(t *testing.T, name string) (tls.Certificate, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, ca
}

// Over TLS the classifier answers only when its certificate chains to the
// configured roots and carries the expected name; otherwise the call goes
// to a person.
func TestGRPCOverTLS(t *testing.T) {
	cert, ca := selfSigned(t, "classifier.test")
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.Creds(credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})))
	tooldv1.RegisterClassifierServiceServer(srv, server{answer: func(context.Context, *tooldv1.ClassifyRequest) (*tooldv1.ClassifyResponse, error) {
		return &tooldv1.ClassifyResponse{Verdict: vAllow, Reason: "over TLS"}, nil
	}})
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	addr := lis.Addr().String()
	_, otherCA := selfSigned(t, "classifier.test")
	for _, tc := range []struct {
		name string
		opts GRPCOptions
		want policy.Behavior
	}{
		{"the right roots and name", GRPCOptions{Endpoint: addr, CAFile: ca, ServerName: "classifier.test"}, policy.Allow},
		{"the system roots", GRPCOptions{Endpoint: addr, ServerName: "classifier.test"}, policy.Ask},
		{"other roots", GRPCOptions{Endpoint: addr, CAFile: otherCA, ServerName: "classifier.test"}, policy.Ask},
		{"another name", GRPCOptions{Endpoint: addr, CAFile: ca, ServerName: "evil.test"}, policy.Ask},
		{"plaintext to a TLS server", GRPCOptions{Endpoint: addr, Insecure: true}, policy.Ask},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := NewGRPC(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			f := newFixture(t, b, func(o *Options) { o.Timeout = 2 * time.Second })
			got := f.k.Classify(context.Background(), bashCall("npm test"), needsApproval)
			if got.Behavior != tc.want || (tc.want == policy.Allow && !strings.Contains(got.Reason, "over TLS")) {
				t.Fatalf("got %v: %s", got.Behavior, got.Reason)
			}
		})
	}
	bad := filepath.Join(t.TempDir(), "bad.pem")
	os.WriteFile(bad, []byte("not a certificate"), 0o600)
	if _, err := NewGRPC(GRPCOptions{Endpoint: addr, CAFile: bad}); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Fatalf("a CA file without a certificate: %v", err)
	}
}
