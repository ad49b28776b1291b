package client_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toold/toold/client"
	"github.com/toold/toold/internal/tooldtest"
)

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "toold test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
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
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	return certFile, keyFile
}

func TestTLS(t *testing.T) {
	cert, key := selfSigned(t)
	d := tooldtest.Start(t, "--tls-cert", cert, "--tls-key", key)
	cfg, err := client.TLSConfig(cert, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dial(t, d.Addr, client.WithTLS(cfg)).CreateSession(ctx(t), nil); err != nil {
		t.Fatal(err)
	}
	// Plaintext to a TLS toold fails, and is not retried forever.
	c := dial(t, d.Addr, client.WithBackoff(client.Backoff{Initial: time.Millisecond, Max: time.Millisecond, Attempts: 2}))
	if _, err := c.GetSession(ctx(t), "x"); status.Code(err) != codes.Unavailable {
		t.Fatalf("plaintext to TLS: %v", err)
	}
	if _, err := client.TLSConfig(cert, cert, "", ""); err == nil {
		t.Fatal("a certificate without its key was accepted")
	}
}
