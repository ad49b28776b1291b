package session

import (
	"context"
	"fmt"

	"github.com/toold/toold/internal/store"
)

// A session belongs to the tenant that created it. The tenant travels in
// the context: the server puts there whatever its authentication named, so
// that neither this package nor the engine depends on how callers
// authenticate.
type tenantKey struct{}

// WithTenant returns a context acting for tenant.
func WithTenant(ctx context.Context, tenant string) context.Context {
	return context.WithValue(ctx, tenantKey{}, tenant)
}

// Tenant is the tenant ctx acts for; "" when no authentication ran (tests,
// in-process callers), which then owns only sessions created the same way.
func Tenant(ctx context.Context) string {
	t, _ := ctx.Value(tenantKey{}).(string)
	return t
}

// CheckOwner is the one ownership rule: every session-addressed request
// passes it before it reads or changes anything of the session. A session
// of another tenant gets exactly the error of a session that does not
// exist (the stores' wording), so that its id tells nothing about it.
func CheckOwner(ctx context.Context, s *store.Session) error {
	return CheckTenant(ctx, s.ID, s.Tenant)
}

// CheckTenant is CheckOwner for a caller that knows only the session's id
// and owner (the engine remembers owners, which never change).
func CheckTenant(ctx context.Context, id, owner string) error {
	if Tenant(ctx) != owner {
		return NotFound(id)
	}
	return nil
}

// NotFound is the error of a session that does not exist, worded as the
// stores word it.
func NotFound(id string) error {
	return fmt.Errorf("session %s: %w", id, store.ErrNotFound)
}
