package auth

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"

	jose "github.com/go-jose/go-jose/v4"
)

// jwk is one verification key of a JWKS file.
type jwk struct {
	kid string
	alg string // empty: any allowed algorithm that fits the key type
	key any    // *rsa.PublicKey, *ecdsa.PublicKey or ed25519.PublicKey
}

// parseJWKS reads a JSON Web Key Set (RFC 7517) as identity providers
// publish it. Keys for encryption are skipped; symmetric keys are refused,
// since anyone who can read the file could then sign tokens.
func parseJWKS(b []byte) ([]jwk, error) {
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("JWKS: %w", err)
	}
	var out []jwk
	for i, k := range set.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		pub := k.Public()
		switch pub.Key.(type) {
		case *rsa.PublicKey, *ecdsa.PublicKey, ed25519.PublicKey:
		default:
			return nil, fmt.Errorf("JWKS key %d (kid %q): only RSA, EC and Ed25519 public keys are accepted", i, k.KeyID)
		}
		out = append(out, jwk{kid: k.KeyID, alg: k.Algorithm, key: pub.Key})
	}
	if len(out) == 0 {
		return nil, errors.New("JWKS has no signing key")
	}
	return out, nil
}
