package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"net"
	"strings"
	"time"

	"github.com/toold/toold/internal/auth"
	"github.com/toold/toold/internal/ratelimit"
	"github.com/toold/toold/internal/server"
	"github.com/toold/toold/internal/store"
)

// authConfig is who may call toold, over what, and how much: the
// authentication mode, TLS, and the per-tenant rate limits.
type authConfig struct {
	Mode             auth.Mode
	InsecureNoAuth   bool
	Tokens           string
	ReloadInterval   time.Duration
	TLSCert          string
	TLSKey           string
	TLSClientCA      string
	MTLSURIPrefix    string
	JWKS             string
	JWTIssuer        string
	JWTAudience      string
	JWTTenantClaim   string
	JWTAlgorithms    []string
	JWTLeeway        time.Duration
	PublicReflection bool
	HealthListen     string

	RateLimit          float64
	RateBurst          int
	MaxConcurrentCalls int
	RateLeaseTTL       time.Duration
	TenantLimits       string
}

// addAuthFlags declares the flags of authConfig on fs (before the TOOLD_*
// fallbacks are applied) and returns a function that reads them.
func addAuthFlags(fs *flag.FlagSet) func() (authConfig, error) {
	var (
		mode        = fs.String("auth", "none", "authentication: none, token, mtls or jwt")
		insecure    = fs.Bool("insecure-no-auth", false, "allow --auth none on an address other machines can reach")
		tokens      = fs.String("auth-tokens", "", "--auth token: file of \"TENANT SHA256-HEX-OF-TOKEN\" lines, reloaded when it changes")
		reload      = fs.Duration("auth-reload-interval", auth.DefaultReloadInterval, "how often the token, JWKS and TLS files are checked for changes")
		tlsCert     = fs.String("tls-cert", "", "PEM certificate: serve TLS (required with --auth mtls)")
		tlsKey      = fs.String("tls-key", "", "PEM private key of --tls-cert")
		tlsCA       = fs.String("tls-client-ca", "", "PEM CA bundle that client certificates must chain to (required with --auth mtls)")
		mtlsPrefix  = fs.String("mtls-tenant-uri-prefix", "", "--auth mtls: the tenant is the rest of the client certificate's URI SAN with this prefix (e.g. spiffe://cluster.local/tenant/); empty: its first DNS SAN")
		jwks        = fs.String("jwt-jwks", "", "--auth jwt: JWKS file of the issuer's public keys, reloaded when it changes")
		jwtIssuer   = fs.String("jwt-issuer", "", "--auth jwt: required iss")
		jwtAudience = fs.String("jwt-audience", "", "--auth jwt: required aud")
		jwtClaim    = fs.String("jwt-tenant-claim", auth.DefaultTenantClaim, "--auth jwt: the claim that names the tenant")
		jwtAlgs     = fs.String("jwt-algorithms", "", "--auth jwt: comma-separated accepted algorithms; empty: every asymmetric one (RS*, PS*, ES*, EdDSA)")
		jwtLeeway   = fs.Duration("jwt-leeway", 30*time.Second, "--auth jwt: clock skew tolerated on exp, nbf and iat")
		publicRefl  = fs.Bool("public-reflection", false, "serve gRPC reflection without authentication")
		healthLis   = fs.String("health-listen", "", "second, plaintext listen address serving only grpc.health.v1 (for probes when the main port is TLS); empty: none")
		rate        = fs.Float64("rate-limit", 0, "tool calls per second per tenant; 0 (the default): no rate limit")
		burst       = fs.Int("rate-burst", 100, "tool calls a tenant may send at once after a quiet period")
		concurrent  = fs.Int("max-concurrent-calls", 0, "tool calls per tenant running at once; 0 (the default): no limit")
		leaseTTL    = fs.Duration("rate-lease-ttl", ratelimit.DefaultLeaseTTL, "Redis: how long a replica's concurrency slots outlive it")
		tenantLim   = fs.String("tenant-limits", "", "JSON file of per-tenant limits, {\"tenants\": {\"NAME\": {\"rate\": N, \"burst\": N, \"concurrent\": N}}} (docs/limits.md); tenants not listed get --rate-limit, --rate-burst and --max-concurrent-calls")
	)
	return func() (authConfig, error) {
		m, err := auth.ParseMode(*mode)
		if err != nil {
			return authConfig{}, fmt.Errorf("--auth: %w", err)
		}
		var algs []string
		for _, a := range strings.Split(*jwtAlgs, ",") {
			if a = strings.TrimSpace(a); a != "" {
				algs = append(algs, a)
			}
		}
		return authConfig{
			Mode: m, InsecureNoAuth: *insecure, Tokens: *tokens, ReloadInterval: *reload,
			TLSCert: *tlsCert, TLSKey: *tlsKey, TLSClientCA: *tlsCA, MTLSURIPrefix: *mtlsPrefix,
			JWKS: *jwks, JWTIssuer: *jwtIssuer, JWTAudience: *jwtAudience, JWTTenantClaim: *jwtClaim,
			JWTAlgorithms: algs, JWTLeeway: *jwtLeeway,
			PublicReflection: *publicRefl, HealthListen: *healthLis,
			RateLimit: *rate, RateBurst: *burst, MaxConcurrentCalls: *concurrent, RateLeaseTTL: *leaseTTL,
			TenantLimits: *tenantLim,
		}, nil
	}
}

// check refuses settings that cannot work, before anything starts. The
// files themselves are read when toold starts (a missing one is exit 2
// too).
func (c authConfig) check(listen string) error {
	if err := auth.CheckListen(listen, c.Mode, c.InsecureNoAuth); err != nil {
		return err
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return errors.New("--tls-cert and --tls-key go together")
	}
	if c.TLSClientCA != "" && c.TLSCert == "" {
		return errors.New("--tls-client-ca needs --tls-cert and --tls-key")
	}
	switch c.Mode {
	case auth.ModeToken:
		if c.Tokens == "" {
			return errors.New("--auth token needs --auth-tokens FILE")
		}
	case auth.ModeMTLS:
		if c.TLSCert == "" || c.TLSClientCA == "" {
			return errors.New("--auth mtls needs --tls-cert, --tls-key and --tls-client-ca")
		}
	case auth.ModeJWT:
		if c.JWKS == "" || c.JWTIssuer == "" || c.JWTAudience == "" {
			return errors.New("--auth jwt needs --jwt-jwks, --jwt-issuer and --jwt-audience")
		}
	}
	if c.ReloadInterval <= 0 {
		return fmt.Errorf("--auth-reload-interval %s: want a positive duration", c.ReloadInterval)
	}
	if c.JWTLeeway < 0 {
		return fmt.Errorf("--jwt-leeway %s: must not be negative", c.JWTLeeway)
	}
	if c.HealthListen != "" {
		if _, _, err := net.SplitHostPort(c.HealthListen); err != nil {
			return fmt.Errorf("--health-listen %q: %w", c.HealthListen, err)
		}
		if c.HealthListen == listen {
			return errors.New("--health-listen must differ from --listen")
		}
	}
	if c.RateLimit < 0 || math.IsNaN(c.RateLimit) || math.IsInf(c.RateLimit, 0) {
		return fmt.Errorf("--rate-limit %g: want 0 (off) or a positive number", c.RateLimit)
	}
	if c.RateBurst < 1 {
		return fmt.Errorf("--rate-burst %d: want 1 or more", c.RateBurst)
	}
	if c.MaxConcurrentCalls < 0 {
		return fmt.Errorf("--max-concurrent-calls %d: want 0 (off) or more", c.MaxConcurrentCalls)
	}
	if c.RateLeaseTTL < time.Second {
		return fmt.Errorf("--rate-lease-ttl %s: want 1s or more", c.RateLeaseTTL)
	}
	return nil
}

// apply loads the credential files and builds the limiter into opts. The
// returned function stops the limiter; call it after the server stopped
// and before the store is closed (the Redis limiter uses its client).
func (c authConfig) apply(opts *server.Options, st store.Store, keyPrefix string, log *slog.Logger) (closeLimiter func(), err error) {
	a, err := auth.New(auth.Config{
		Mode:      c.Mode,
		TokenFile: c.Tokens,
		MTLS:      auth.MTLSConfig{URIPrefix: c.MTLSURIPrefix},
		JWT: auth.JWTConfig{
			JWKSFile: c.JWKS, Issuer: c.JWTIssuer, Audience: c.JWTAudience,
			Algorithms: c.JWTAlgorithms, TenantClaim: c.JWTTenantClaim, Leeway: c.JWTLeeway,
		},
		ReloadInterval: c.ReloadInterval,
		Logger:         log,
	})
	if err != nil {
		return nil, configError{err}
	}
	opts.Authenticator, opts.PublicReflection = a, c.PublicReflection
	if c.TLSCert != "" {
		opts.TLS, err = auth.ServerTLSConfig(auth.TLSFiles{
			Cert: c.TLSCert, Key: c.TLSKey, ClientCA: c.TLSClientCA,
			ReloadInterval: c.ReloadInterval, Logger: log,
		})
		if err != nil {
			return nil, configError{err}
		}
	}

	closeLimiter = func() {}
	limits := ratelimit.Config{Default: ratelimit.Limits{Rate: c.RateLimit, Burst: c.RateBurst, Concurrent: c.MaxConcurrentCalls}}
	if c.TenantLimits != "" {
		if limits, err = ratelimit.LoadFile(c.TenantLimits, limits.Default); err != nil {
			return nil, configError{fmt.Errorf("--tenant-limits: %w", err)}
		}
	}
	if !limits.Limited() {
		// No limit unless the operator sets one.
		return closeLimiter, nil
	}
	var offers store.Offers
	if st != nil {
		offers = st.Offers()
	}
	if scripts := offers.Scripts; scripts != nil {
		// Every replica on this store shares each tenant's limits.
		l, err := ratelimit.NewRedis(scripts, limits, ratelimit.RedisOptions{KeyPrefix: keyPrefix, LeaseTTL: c.RateLeaseTTL, Logger: log})
		if err != nil {
			return nil, configError{err}
		}
		opts.Limiter = l
		return l.Close, nil
	}
	l, err := ratelimit.NewLocal(limits, nil)
	if err != nil {
		return nil, configError{err}
	}
	opts.Limiter = l
	return closeLimiter, nil
}

// serveHealth serves grpc.health.v1 alone on --health-listen, if set. The
// returned function stops it; call it last, so probes see NOT_SERVING for
// as long as the main server drains.
func serveHealth(ctx context.Context, addr string, srv interface {
	Serve(net.Listener) error
	Stop()
}, log *slog.Logger) (stop func(), err error) {
	if addr == "" {
		return func() {}, nil
	}
	lis, err := new(net.ListenConfig).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--health-listen: %w", err)
	}
	log.Info("health listening", "addr", lis.Addr().String())
	go func() {
		if err := srv.Serve(lis); err != nil {
			log.Error("health listener stopped", "error", err)
		}
	}()
	return srv.Stop, nil
}
