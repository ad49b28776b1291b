package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/golang-jwt/jwt/v5"
	grpcauth "github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/auth"
)

// JWTConfig says which JWTs are accepted and where their tenant is.
type JWTConfig struct {
	// JWKSFile holds the issuer's public keys; it is reloaded when it
	// changes.
	JWKSFile string
	// Issuer and Audience must match the token's iss and (one of its) aud.
	Issuer   string
	Audience string
	// Algorithms allowed in the token header; DefaultJWTAlgorithms if
	// empty. Only asymmetric algorithms may be listed.
	Algorithms []string
	// TenantClaim names the string claim that holds the tenant;
	// DefaultTenantClaim if empty.
	TenantClaim string
	// Leeway tolerates clock skew between the issuer and this server on
	// exp, nbf and iat.
	Leeway time.Duration
}

// DefaultTenantClaim is the claim read when JWTConfig.TenantClaim is empty.
const DefaultTenantClaim = "tenant"

// DefaultJWTAlgorithms are the algorithms accepted when
// JWTConfig.Algorithms is empty.
var DefaultJWTAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

func (c JWTConfig) check() error {
	if c.JWKSFile == "" || c.Issuer == "" || c.Audience == "" {
		return errors.New("jwt: a JWKS file, an issuer and an audience are required")
	}
	for _, a := range c.Algorithms {
		if !slices.Contains(DefaultJWTAlgorithms, a) {
			return fmt.Errorf("jwt: algorithm %q: want one of %v", a, DefaultJWTAlgorithms)
		}
	}
	if c.Leeway < 0 {
		return errors.New("jwt: leeway must not be negative")
	}
	return nil
}

// jwtAuth is ModeJWT's authenticator.
type jwtAuth struct {
	cfg    JWTConfig
	keys   *fileValue[[]jwk]
	parser *jwt.Parser
}

func newJWT(cfg JWTConfig, o reloadOptions) (*jwtAuth, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if len(cfg.Algorithms) == 0 {
		cfg.Algorithms = DefaultJWTAlgorithms
	}
	if cfg.TenantClaim == "" {
		cfg.TenantClaim = DefaultTenantClaim
	}
	o = o.withDefaults()
	keys, err := loadFile(o, parseJWKS, cfg.JWKSFile)
	if err != nil {
		return nil, err
	}
	return &jwtAuth{
		cfg:  cfg,
		keys: keys,
		parser: jwt.NewParser(
			jwt.WithValidMethods(cfg.Algorithms),
			jwt.WithIssuer(cfg.Issuer),
			jwt.WithAudience(cfg.Audience),
			jwt.WithExpirationRequired(),
			jwt.WithIssuedAt(),
			jwt.WithLeeway(cfg.Leeway),
			jwt.WithTimeFunc(o.now),
		),
	}, nil
}

func (a *jwtAuth) Authenticate(ctx context.Context) (string, error) {
	raw, err := grpcauth.AuthFromMD(ctx, "bearer")
	if err != nil {
		return "", refuse("missing bearer token", err)
	}
	claims := jwt.MapClaims{}
	if _, err := a.parser.ParseWithClaims(raw, claims, a.keyFor); err != nil {
		return "", refuse(jwtReason(err), err)
	}
	tenant, ok := claims[a.cfg.TenantClaim].(string)
	if !ok {
		return "", refuse(fmt.Sprintf("token has no string claim %q", a.cfg.TenantClaim), nil)
	}
	if err := CheckTenant(tenant); err != nil {
		return "", refuse("token names an invalid tenant", err)
	}
	return tenant, nil
}

// keyFor picks the keys that may have signed the token: those with its
// kid (all of them when the token has none), and whose declared algorithm,
// if any, is the token's. The parser has already checked the algorithm
// against the allowed list, and checks the key type against it.
func (a *jwtAuth) keyFor(t *jwt.Token) (any, error) {
	kid, _ := t.Header["kid"].(string)
	var set jwt.VerificationKeySet
	for _, k := range a.keys.get() {
		if kid != "" && k.kid != kid {
			continue
		}
		if k.alg != "" && k.alg != t.Method.Alg() {
			continue
		}
		set.Keys = append(set.Keys, k.key)
	}
	if len(set.Keys) == 0 {
		return nil, fmt.Errorf("no key in the JWKS for kid %q and alg %s", kid, t.Method.Alg())
	}
	return set, nil
}

// jwtReason is what the client is told about a refused JWT: enough to fix
// the caller's configuration, nothing about the keys.
func jwtReason(err error) string {
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed):
		return "malformed token"
	case errors.Is(err, jwt.ErrTokenExpired):
		return "token expired"
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return "token not valid yet"
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return "token has the wrong audience"
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return "token has the wrong issuer"
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return "token lacks a required claim (exp, iss or aud)"
	default:
		return "invalid token"
	}
}
