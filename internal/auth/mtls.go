package auth

import (
	"context"
	"crypto/x509"
	"errors"
	"strings"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"
)

// MTLSConfig says where in a verified client certificate the tenant is.
//
// With URIPrefix set (the recommended form, e.g.
// "spiffe://cluster.example/tenant/"), the tenant is the rest of the one
// URI SAN that starts with it: SPIFFE IDs and cert-manager's URI SANs are
// made for naming workloads, and a prefix cannot be confused with a host
// name. Without it, the tenant is the certificate's first DNS SAN.
type MTLSConfig struct {
	URIPrefix string
}

// mtls is ModeMTLS's authenticator. The certificate itself is checked by
// the TLS handshake (ServerTLSConfig with a client CA); this only reads
// the verified result.
type mtls struct {
	cfg MTLSConfig
}

func (m *mtls) Authenticate(ctx context.Context) (string, error) {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return "", refuse("no client certificate", nil)
	}
	info, ok := p.AuthInfo.(credentials.TLSInfo)
	if !ok {
		return "", refuse("no client certificate: the connection is not TLS", nil)
	}
	// Only a chain that the handshake verified against the client CA
	// counts; PeerCertificates alone may be anything the client sent.
	chains := info.State.VerifiedChains
	if len(chains) == 0 || len(chains[0]) == 0 {
		return "", refuse("no verified client certificate", nil)
	}
	tenant, err := m.tenantOf(chains[0][0])
	if err != nil {
		return "", refuse("client certificate names no tenant", err)
	}
	return tenant, nil
}

func (m *mtls) tenantOf(leaf *x509.Certificate) (string, error) {
	if m.cfg.URIPrefix == "" {
		if len(leaf.DNSNames) == 0 {
			return "", errors.New("no DNS SAN")
		}
		return leaf.DNSNames[0], CheckTenant(leaf.DNSNames[0])
	}
	var tenant string
	for _, u := range leaf.URIs {
		rest, ok := strings.CutPrefix(u.String(), m.cfg.URIPrefix)
		if !ok {
			continue
		}
		if tenant != "" && rest != tenant {
			return "", errors.New("more than one URI SAN with the tenant prefix")
		}
		tenant = rest
	}
	if tenant == "" {
		return "", errors.New("no URI SAN starts with " + m.cfg.URIPrefix)
	}
	return tenant, CheckTenant(tenant)
}
