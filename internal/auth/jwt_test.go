package auth_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/golang-jwt/jwt/v5"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	"github.com/toold/toold/internal/auth"
)

const (
	issuer   = "https://idp.example"
	audience = "toold"
)

type signingKey struct {
	kid    string
	method jwt.SigningMethod
	priv   crypto.Signer
}

func newKeys(t *testing.T) (ec, rs, ed signingKey) {
	t.Helper()
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rsKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return signingKey{"ec-1", jwt.SigningMethodES256, ecKey},
		signingKey{"rs-1", jwt.SigningMethodRS256, rsKey},
		signingKey{"ed-1", jwt.SigningMethodEdDSA, edKey}
}

// jwksOf is the public JWKS of keys, as an identity provider serves it.
func jwksOf(t *testing.T, keys ...signingKey) string {
	t.Helper()
	var set jose.JSONWebKeySet
	for _, k := range keys {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: k.priv.Public(), KeyID: k.kid, Algorithm: k.method.Alg(), Use: "sig"})
	}
	b, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func sign(t *testing.T, k signingKey, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(k.method, claims)
	if k.kid != "" {
		tok.Header["kid"] = k.kid
	}
	s, err := tok.SignedString(k.priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestJWTAuthentication(t *testing.T) {
	ec, rs, ed := newKeys(t)
	other, _, _ := newKeys(t)
	p := filepath.Join(t.TempDir(), "jwks.json")
	writeFile(t, p, jwksOf(t, ec, rs, ed))
	clk := newClock()
	a, err := auth.New(auth.Config{Mode: auth.ModeJWT, Now: clk.Now, JWT: auth.JWTConfig{
		JWKSFile: p, Issuer: issuer, Audience: audience, TenantClaim: "org", Leeway: 10 * time.Second,
	}})
	if err != nil {
		t.Fatal(err)
	}
	now := clk.Now()
	claims := func(edit func(jwt.MapClaims)) jwt.MapClaims {
		c := jwt.MapClaims{
			"iss": issuer, "aud": []string{"other-service", audience}, "sub": "agent-7", "org": "team-a",
			"iat": now.Add(-time.Minute).Unix(), "exp": now.Add(time.Hour).Unix(),
		}
		if edit != nil {
			edit(c)
		}
		return c
	}
	noKid := ec
	noKid.kid = ""
	hsConfusion := func() string {
		// The classic confusion: an HMAC token keyed with the public key's
		// bytes, hoping the verifier uses the key as a shared secret.
		pub, _ := x509.MarshalPKIXPublicKey(rs.priv.Public())
		tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims(nil))
		tok.Header["kid"] = rs.kid
		s, err := tok.SignedString(pub)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	unsigned := func() string {
		s, err := jwt.NewWithClaims(jwt.SigningMethodNone, claims(nil)).SignedString(jwt.UnsafeAllowNoneSignatureType)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	wrongKid := other
	wrongKid.kid = ec.kid

	for _, c := range []struct {
		name   string
		token  string
		tenant string
		reason string
	}{
		{"ES256", sign(t, ec, claims(nil)), "team-a", ""},
		{"RS256", sign(t, rs, claims(nil)), "team-a", ""},
		{"EdDSA", sign(t, ed, claims(nil)), "team-a", ""},
		{"no kid, tried against every key", sign(t, noKid, claims(nil)), "team-a", ""},
		{"other tenant", sign(t, ec, claims(func(c jwt.MapClaims) { c["org"] = "team-b" })), "team-b", ""},
		{"expired", sign(t, ec, claims(func(c jwt.MapClaims) { c["exp"] = now.Add(-time.Minute).Unix() })), "", "token expired"},
		{"expired within leeway", sign(t, ec, claims(func(c jwt.MapClaims) { c["exp"] = now.Add(-5 * time.Second).Unix() })), "team-a", ""},
		{"no exp", sign(t, ec, claims(func(c jwt.MapClaims) { delete(c, "exp") })), "", "token lacks a required claim (exp, iss or aud)"},
		{"not yet valid", sign(t, ec, claims(func(c jwt.MapClaims) { c["nbf"] = now.Add(time.Minute).Unix() })), "", "token not valid yet"},
		{"wrong audience", sign(t, ec, claims(func(c jwt.MapClaims) { c["aud"] = "other-service" })), "", "token has the wrong audience"},
		{"no audience", sign(t, ec, claims(func(c jwt.MapClaims) { delete(c, "aud") })), "", "token lacks a required claim (exp, iss or aud)"},
		{"wrong issuer", sign(t, ec, claims(func(c jwt.MapClaims) { c["iss"] = "https://evil.example" })), "", "token has the wrong issuer"},
		{"no tenant claim", sign(t, ec, claims(func(c jwt.MapClaims) { delete(c, "org") })), "", `token has no string claim "org"`},
		{"tenant claim not a string", sign(t, ec, claims(func(c jwt.MapClaims) { c["org"] = 7 })), "", `token has no string claim "org"`},
		{"tenant claim not a valid tenant", sign(t, ec, claims(func(c jwt.MapClaims) { c["org"] = "../b" })), "", "token names an invalid tenant"},
		{"signed by a key not in the JWKS", sign(t, wrongKid, claims(nil)), "", "invalid token"},
		{"unknown kid", sign(t, other, claims(nil)), "", "invalid token"},
		{"HS256 with the public key as secret", hsConfusion(), "", "invalid token"},
		{"alg none", unsigned(), "", "invalid token"},
		{"garbage", "not.a.jwt", "", "malformed token"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs("authorization", "Bearer "+c.token))
			tenant, err := a.Authenticate(ctx)
			if c.reason == "" {
				if err != nil || tenant != c.tenant {
					t.Fatalf("got %q, %v; want tenant %q", tenant, err, c.tenant)
				}
				return
			}
			var ae *auth.Error
			if err == nil || !errors.As(err, &ae) || ae.Reason != c.reason {
				t.Fatalf("got %q, %v; want refusal %q", tenant, err, c.reason)
			}
		})
	}

	t.Run("over gRPC", func(t *testing.T) {
		cc := serve(t, a, serverOpts{})()
		if tenant, code := callAs(t, bearer(sign(t, rs, claims(nil))), cc); code != codes.OK || tenant != "team-a" {
			t.Errorf("valid token: %q, %v", tenant, code)
		}
		if _, code := callAs(t, bearer(sign(t, rs, claims(func(c jwt.MapClaims) { c["aud"] = "x" }))), cc); code != codes.Unauthenticated {
			t.Errorf("wrong audience: %v", code)
		}
		if _, code := callAs(t, context.Background(), cc); code != codes.Unauthenticated {
			t.Errorf("no token: %v", code)
		}
	})
}

func TestJWKSRotation(t *testing.T) {
	ec, rs, _ := newKeys(t)
	p := filepath.Join(t.TempDir(), "jwks.json")
	writeFile(t, p, jwksOf(t, ec))
	clk := newClock()
	a, err := auth.New(auth.Config{Mode: auth.ModeJWT, Now: clk.Now, ReloadInterval: time.Second,
		JWT: auth.JWTConfig{JWKSFile: p, Issuer: issuer, Audience: audience}})
	if err != nil {
		t.Fatal(err)
	}
	claims := func() jwt.MapClaims {
		return jwt.MapClaims{"iss": issuer, "aud": audience, "tenant": "team-a", "exp": clk.Now().Add(time.Hour).Unix()}
	}
	try := func(k signingKey) error {
		ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs("authorization", "Bearer "+sign(t, k, claims())))
		_, err := a.Authenticate(ctx)
		return err
	}
	if err := try(rs); err == nil {
		t.Fatal("a key not yet published was accepted")
	}
	writeFile(t, p, jwksOf(t, rs))
	clk.Add(2 * time.Second)
	if err := try(rs); err != nil {
		t.Errorf("the new key after rotation: %v", err)
	}
	if err := try(ec); err == nil {
		t.Error("the retired key is still accepted")
	}
}

func TestJWTConfigErrors(t *testing.T) {
	ec, _, _ := newKeys(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "jwks.json")
	writeFile(t, good, jwksOf(t, ec))
	oct := filepath.Join(dir, "oct.json")
	writeFile(t, oct, `{"keys":[{"kty":"oct","kid":"h","k":"c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0"}]}`)
	encOnly := filepath.Join(dir, "enc.json")
	writeFile(t, encOnly, strings.Replace(jwksOf(t, ec), `"use":"sig"`, `"use":"enc"`, 1))
	for _, c := range []struct {
		name string
		cfg  auth.JWTConfig
		want string
	}{
		{"no issuer", auth.JWTConfig{JWKSFile: good, Audience: audience}, "an issuer and an audience are required"},
		{"no audience", auth.JWTConfig{JWKSFile: good, Issuer: issuer}, "an issuer and an audience are required"},
		{"HMAC allowed", auth.JWTConfig{JWKSFile: good, Issuer: issuer, Audience: audience, Algorithms: []string{"HS256"}}, `algorithm "HS256"`},
		{"symmetric key", auth.JWTConfig{JWKSFile: oct, Issuer: issuer, Audience: audience}, "only RSA, EC and Ed25519 public keys"},
		{"no signing key", auth.JWTConfig{JWKSFile: encOnly, Issuer: issuer, Audience: audience}, "no signing key"},
		{"missing file", auth.JWTConfig{JWKSFile: filepath.Join(dir, "nope"), Issuer: issuer, Audience: audience}, "no such file"},
	} {
		_, err := auth.New(auth.Config{Mode: auth.ModeJWT, JWT: c.cfg})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to say %q", c.name, err, c.want)
		}
	}
}
