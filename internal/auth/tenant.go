package auth

import (
	"context"
	"fmt"
	"regexp"
)

type tenantKey struct{}

// WithTenant returns a context that carries tenant. The auth interceptor
// calls it; tests of later stages use it to act as a tenant.
func WithTenant(ctx context.Context, tenant string) context.Context {
	return context.WithValue(ctx, tenantKey{}, tenant)
}

// TenantFrom is the tenant the call was authenticated as; false when the
// auth interceptor did not run for this call (health, public reflection).
func TenantFrom(ctx context.Context) (string, bool) {
	t, ok := ctx.Value(tenantKey{}).(string)
	return t, ok && t != ""
}

// DefaultTenant is the tenant of every call under --auth none, so that
// everything keyed by tenant (sessions, limits) works the same in every
// mode.
const DefaultTenant = "default"

// Tenant names end up in store keys, Redis keys, logs and metric labels,
// so they are kept to a small, unambiguous alphabet whichever credential
// they come from.
var tenantRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$`)

// CheckTenant reports whether s may be used as a tenant name: 1 to 128
// characters of letters, digits, '.', '_', '@' and '-', starting with a
// letter or digit.
func CheckTenant(s string) error {
	if !tenantRE.MatchString(s) {
		return fmt.Errorf("tenant %q: want 1-128 of A-Z a-z 0-9 . _ @ -, starting with a letter or digit", s)
	}
	return nil
}
