package auth_test

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
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"

	"github.com/toold/toold/internal/auth"
)

type ca struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newCA(t *testing.T, name string) *ca {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &ca{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue makes a leaf certificate for the given SANs.
func (c *ca) issue(t *testing.T, usage x509.ExtKeyUsage, dns []string, uris ...string) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "leaf"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		DNSNames: dns,
	}
	for _, u := range uris {
		pu, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		tmpl.URIs = append(tmpl.URIs, pu)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.cert, &key.PublicKey, c.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func writePEM(t *testing.T, dir string, c tls.Certificate) (certFile, keyFile string) {
	t.Helper()
	kder, err := x509.MarshalPKCS8PrivateKey(c.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	writeFile(t, certFile, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Certificate[0]})))
	writeFile(t, keyFile, string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder})))
	return certFile, keyFile
}

type mtlsSetup struct {
	dial     func(...grpc.DialOption) *grpc.ClientConn
	serverCA *ca
	caFile   string
}

func serveMTLS(t *testing.T, cfg auth.MTLSConfig, clientCA *ca) mtlsSetup {
	t.Helper()
	dir := t.TempDir()
	serverCA := newCA(t, "server CA")
	certFile, keyFile := writePEM(t, dir, serverCA.issue(t, x509.ExtKeyUsageServerAuth, []string{"toold.test"}))
	caFile := filepath.Join(dir, "client-ca.crt")
	writeFile(t, caFile, string(clientCA.pem))
	tlsCfg, err := auth.ServerTLSConfig(auth.TLSFiles{Cert: certFile, Key: keyFile, ClientCA: caFile, ReloadInterval: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	a, err := auth.New(auth.Config{Mode: auth.ModeMTLS, MTLS: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return mtlsSetup{dial: serve(t, a, serverOpts{tls: tlsCfg}), serverCA: serverCA, caFile: caFile}
}

func (s mtlsSetup) client(t *testing.T, certs ...tls.Certificate) *grpc.ClientConn {
	roots := x509.NewCertPool()
	roots.AddCert(s.serverCA.cert)
	return s.dial(grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{
		RootCAs: roots, ServerName: "toold.test", Certificates: certs,
	})))
}

func TestMTLSTenantFromURISAN(t *testing.T) {
	clientCA := newCA(t, "client CA")
	s := serveMTLS(t, auth.MTLSConfig{URIPrefix: "spiffe://cluster.test/tenant/"}, clientCA)
	cl := func(uris ...string) tls.Certificate {
		return clientCA.issue(t, x509.ExtKeyUsageClientAuth, []string{"ignored.example"}, uris...)
	}
	for _, c := range []struct {
		name   string
		cert   tls.Certificate
		tenant string
		code   codes.Code
	}{
		{"tenant URI", cl("spiffe://cluster.test/tenant/team-a"), "team-a", codes.OK},
		{"tenant URI beside another", cl("spiffe://cluster.test/ns/x/sa/y", "spiffe://cluster.test/tenant/team-b"), "team-b", codes.OK},
		{"no tenant URI", cl("spiffe://cluster.test/ns/x/sa/y"), "", codes.Unauthenticated},
		{"two tenant URIs", cl("spiffe://cluster.test/tenant/team-a", "spiffe://cluster.test/tenant/team-b"), "", codes.Unauthenticated},
		{"tenant with a path", cl("spiffe://cluster.test/tenant/team-a/x"), "", codes.Unauthenticated},
		{"other trust domain", cl("spiffe://other.test/tenant/team-a"), "", codes.Unauthenticated},
	} {
		t.Run(c.name, func(t *testing.T) {
			tenant, code := callAs(t, context.Background(), s.client(t, c.cert))
			if tenant != c.tenant || code != c.code {
				t.Errorf("got %q, %v; want %q, %v", tenant, code, c.tenant, c.code)
			}
		})
	}

	// Certificates the handshake does not verify never reach the
	// authenticator: the connection itself fails.
	stranger := newCA(t, "another CA").issue(t, x509.ExtKeyUsageClientAuth, nil, "spiffe://cluster.test/tenant/team-a")
	if _, code := callAs(t, context.Background(), s.client(t, stranger)); code == codes.OK {
		t.Error("a certificate from another CA was accepted")
	}
	if _, code := callAs(t, context.Background(), s.client(t)); code == codes.OK {
		t.Error("a client without a certificate was accepted")
	}
}

func TestMTLSTenantFromDNSSAN(t *testing.T) {
	clientCA := newCA(t, "client CA")
	s := serveMTLS(t, auth.MTLSConfig{}, clientCA)
	tenant, code := callAs(t, context.Background(), s.client(t, clientCA.issue(t, x509.ExtKeyUsageClientAuth, []string{"team-c", "other"})))
	if code != codes.OK || tenant != "team-c" {
		t.Errorf("got %q, %v; want the first DNS SAN", tenant, code)
	}
	_, code = callAs(t, context.Background(), s.client(t, clientCA.issue(t, x509.ExtKeyUsageClientAuth, nil, "spiffe://x/tenant/a")))
	if code != codes.Unauthenticated {
		t.Errorf("a certificate without DNS SAN: %v", code)
	}
}

func TestMTLSClientCARotation(t *testing.T) {
	oldCA, newCA2 := newCA(t, "old client CA"), newCA(t, "new client CA")
	s := serveMTLS(t, auth.MTLSConfig{URIPrefix: "spiffe://cluster.test/tenant/"}, oldCA)
	fromNew := newCA2.issue(t, x509.ExtKeyUsageClientAuth, nil, "spiffe://cluster.test/tenant/team-a")
	if _, code := callAs(t, context.Background(), s.client(t, fromNew)); code == codes.OK {
		t.Fatal("a certificate of a CA not yet trusted was accepted")
	}
	writeFile(t, s.caFile, string(newCA2.pem))
	if tenant, code := callAs(t, context.Background(), s.client(t, fromNew)); code != codes.OK || tenant != "team-a" {
		t.Errorf("after the CA file changed: %q, %v", tenant, code)
	}
}

func TestMTLSWithoutTLS(t *testing.T) {
	a, err := auth.New(auth.Config{Mode: auth.ModeMTLS})
	if err != nil {
		t.Fatal(err)
	}
	if _, code := callAs(t, context.Background(), serve(t, a, serverOpts{})()); code != codes.Unauthenticated {
		t.Errorf("plaintext connection under mtls: %v", code)
	}
}

func TestServerTLSConfigErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.pem")
	if err := os.WriteFile(bad, []byte("not pem"), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, key := writePEM(t, dir, newCA(t, "x").issue(t, x509.ExtKeyUsageServerAuth, []string{"toold.test"}))
	for _, f := range []auth.TLSFiles{
		{Cert: cert},
		{Cert: bad, Key: key},
		{Cert: cert, Key: key, ClientCA: bad},
		{Cert: cert, Key: key, ClientCA: filepath.Join(dir, "missing")},
	} {
		if _, err := auth.ServerTLSConfig(f); err == nil {
			t.Errorf("ServerTLSConfig(%+v) accepted", f)
		}
	}
	if _, err := auth.ServerTLSConfig(auth.TLSFiles{Cert: cert, Key: key}); err != nil {
		t.Errorf("server TLS without client CA: %v", err)
	}
}
