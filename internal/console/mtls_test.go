package console

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/auth"
)

// certificate makes a certificate for dns, signed by parent (self-signed
// when nil), and returns it with its key.
func certificate(t *testing.T, dns string, isCA bool, parent *tls.Certificate) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: dns},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: []string{dns}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if isCA {
		tmpl.IsCA, tmpl.BasicConstraintsValid, tmpl.KeyUsage, tmpl.ExtKeyUsage = true, true, x509.KeyUsageCertSign, nil
	}
	signer, signerKey := tmpl, any(key)
	if parent != nil {
		signer, signerKey = parent.Leaf, parent.PrivateKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}
}

// With --auth mtls the browser's verified client certificate names the
// tenant, with no login; a certificate the CA did not sign, or none, is
// refused.
func TestClientCertificateNamesTheTenant(t *testing.T) {
	f := newFixture(t)
	ca := certificate(t, "console-ca", true, nil)
	a, err := auth.New(auth.Config{Mode: auth.ModeMTLS})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(Config{Store: f.st, Sessions: ownedSessions{f.st}, Resolver: f.res, Authenticator: a, Mode: auth.ModeMTLS})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(c)
	pool := x509.NewCertPool()
	pool.AddCert(ca.Leaf)
	// Verified if given, so that a browser without one gets the
	// console's refusal rather than a failed handshake.
	srv.TLS = &tls.Config{ClientCAs: pool, ClientAuth: tls.VerifyClientCertIfGiven}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	get := func(certs ...tls.Certificate) (int, string) {
		// A transport of its own: no connection (or TLS session) of
		// another certificate is reused.
		tr := srv.Client().Transport.(*http.Transport).Clone()
		tr.TLSClientConfig.Certificates = certs
		tr.TLSClientConfig.ClientSessionCache = nil
		defer tr.CloseIdleConnections()
		cl := &http.Client{Transport: tr}
		cl.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		res, err := cl.Get(srv.URL + "/")
		if err != nil {
			return 0, err.Error()
		}
		defer res.Body.Close()
		var b strings.Builder
		buf := make([]byte, 1<<16)
		for {
			n, err := res.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return res.StatusCode, b.String()
	}
	code, body := get(certificate(t, "team-a", false, &ca))
	if code != http.StatusOK || !strings.Contains(body, "aaaaaaaaaaaaaaaaaaaaaaaaa2") || strings.Contains(body, "bbbbbbbbbbbbbbbbbbbbbbbbb2") || strings.Contains(body, "Log out") {
		t.Fatalf("team-a's certificate: %d\n%s", code, body)
	}
	if code, _ := get(); code != http.StatusUnauthorized {
		t.Fatalf("no certificate: %d, want 401", code)
	}
	rogue := certificate(t, "rogue-ca", true, nil)
	if code, body := get(certificate(t, "team-a", false, &rogue)); code == http.StatusOK {
		t.Fatalf("a certificate of another CA was taken: %s", body)
	}
}
