package auth

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"log/slog"
	"time"
)

// TLSFiles are the PEM files of the server's TLS setup. ClientCA is
// required under --auth mtls and optional otherwise (then client
// certificates are not asked for).
type TLSFiles struct {
	Cert     string
	Key      string
	ClientCA string
	// ReloadInterval: how often the files are checked for rotation
	// (cert-manager renews them in place); DefaultReloadInterval if zero.
	ReloadInterval time.Duration
	Logger         *slog.Logger
}

// ServerTLSConfig builds the server's TLS configuration from files that
// are re-read when they change, so a renewed certificate or CA bundle is
// used by new connections without a restart. With a ClientCA, every
// client must present a certificate that chains to it.
func ServerTLSConfig(f TLSFiles) (*tls.Config, error) {
	if f.Cert == "" || f.Key == "" {
		return nil, errors.New("tls: a certificate and a key file are required")
	}
	o := reloadOptions{interval: f.ReloadInterval, log: f.Logger}
	pair, err := loadFiles(o, func(c [][]byte) (*tls.Certificate, error) {
		kp, err := tls.X509KeyPair(c[0], c[1])
		return &kp, err
	}, f.Cert, f.Key)
	if err != nil {
		return nil, err
	}
	base := &tls.Config{
		MinVersion: tls.VersionTLS12,
		// gRPC needs h2 to be negotiated.
		NextProtos: []string{"h2"},
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			return pair.get(), nil
		},
	}
	if f.ClientCA == "" {
		return base, nil
	}
	pool, err := loadFile(o, parseCAs, f.ClientCA)
	if err != nil {
		return nil, err
	}
	base.ClientAuth = tls.RequireAndVerifyClientCert
	base.ClientCAs = pool.get()
	base.GetConfigForClient = func(*tls.ClientHelloInfo) (*tls.Config, error) {
		c := base.Clone()
		c.GetConfigForClient = nil
		c.ClientCAs = pool.get()
		return c, nil
	}
	return base, nil
}

func parseCAs(b []byte) (*x509.CertPool, error) {
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(b) {
		return nil, errors.New("no PEM certificate found")
	}
	return p, nil
}
