package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/auth"
	"github.com/toold/toold/internal/ratelimit"
	"github.com/toold/toold/internal/server"
)

func TestAuthConfig(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		check   func(authConfig) bool
		wantErr string
	}{
		{"defaults", nil, nil, func(c authConfig) bool {
			return c.Mode == auth.ModeNone && !c.InsecureNoAuth && c.ReloadInterval == 2*time.Second && c.JWTTenantClaim == "tenant" &&
				c.JWTLeeway == 30*time.Second && !c.PublicReflection && c.HealthListen == "" &&
				c.RateLimit == 0 && c.RateBurst == 100 && c.MaxConcurrentCalls == 0 && c.RateLeaseTTL == 30*time.Second
		}, ""},
		{"none on every interface", []string{"--listen", "0.0.0.0:50051"}, nil, nil, "--insecure-no-auth"},
		{"none on an empty host", []string{"--listen", ":50051"}, nil, nil, "--insecure-no-auth"},
		{"none, insecure on purpose", []string{"--listen", "0.0.0.0:50051", "--insecure-no-auth"}, nil, func(c authConfig) bool { return c.InsecureNoAuth }, ""},
		{"token from env", []string{"--listen", "0.0.0.0:50051"}, map[string]string{"TOOLD_AUTH": "token", "TOOLD_AUTH_TOKENS": "/etc/tokens"},
			func(c authConfig) bool { return c.Mode == auth.ModeToken && c.Tokens == "/etc/tokens" }, ""},
		{"token without a file", []string{"--auth", "token"}, nil, nil, "--auth-tokens"},
		{"unknown mode", []string{"--auth", "basic"}, nil, nil, "want none, token, mtls or jwt"},
		{"mtls without a CA", []string{"--auth", "mtls", "--tls-cert", "c", "--tls-key", "k"}, nil, nil, "--tls-client-ca"},
		{"jwt without an audience", []string{"--auth", "jwt", "--jwt-jwks", "j", "--jwt-issuer", "i"}, nil, nil, "--jwt-audience"},
		{"jwt algorithms", []string{"--auth", "jwt", "--jwt-jwks", "j", "--jwt-issuer", "i", "--jwt-audience", "a", "--jwt-algorithms", "ES256, EdDSA"}, nil,
			func(c authConfig) bool { return len(c.JWTAlgorithms) == 2 && c.JWTAlgorithms[1] == "EdDSA" }, ""},
		{"cert without key", []string{"--tls-cert", "c"}, nil, nil, "--tls-key"},
		{"health on the main address", []string{"--health-listen", "127.0.0.1:50051"}, nil, nil, "--health-listen"},
		{"negative rate", []string{"--rate-limit", "-1"}, nil, nil, "--rate-limit"},
		{"limits on", []string{"--rate-limit", "50", "--max-concurrent-calls", "32"}, nil,
			func(c authConfig) bool { return c.RateLimit == 50 && c.MaxConcurrentCalls == 32 }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := parseConfig(tc.args, env(tc.env))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !tc.check(cfg.Auth) {
				t.Fatalf("cfg = %+v, err = %v", cfg, err)
			}
		})
	}
}

// TestLimitsOffByDefault: with no limit flag toold has no limiter at all;
// --tenant-limits gives each listed tenant its own values.
func TestLimitsOffByDefault(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	cfg, err := parseConfig(nil, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	var opts server.Options
	if _, err := cfg.Auth.apply(&opts, nil, "", log); err != nil {
		t.Fatal(err)
	}
	if opts.Limiter != nil {
		t.Fatalf("default flags built a limiter: %T", opts.Limiter)
	}

	file := filepath.Join(t.TempDir(), "limits.json")
	if err := os.WriteFile(file, []byte(`{"tenants": {"trial": {"concurrent": 1}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err = parseConfig([]string{"--tenant-limits", file}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	opts = server.Options{}
	if _, err := cfg.Auth.apply(&opts, nil, "", log); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := opts.Limiter.Admit(ctx, "trial", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	if _, err := opts.Limiter.Admit(ctx, "trial", 1); !errors.Is(err, ratelimit.ErrExceeded) {
		t.Errorf("a second call of a tenant limited to one in flight: %v", err)
	}
	for range 200 {
		if _, err := opts.Limiter.Admit(ctx, "other", 50); err != nil {
			t.Fatalf("a tenant the file does not list, no default limit: %v", err)
		}
	}

	if err := os.WriteFile(file, []byte(`{"tenants": {"trial": {"rate": -1}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.Auth.apply(&server.Options{}, nil, "", log); err == nil || !strings.Contains(err.Error(), "--tenant-limits") {
		t.Errorf("a bad limits file: err = %v", err)
	}
}
