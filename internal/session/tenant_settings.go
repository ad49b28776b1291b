package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store"
)

// TenantSettings gives each tenant's permission rules: the "user" settings
// source of its sessions, set by the operator (CreateSession's
// user_permissions add to them; a tenant cannot remove the operator's).
type TenantSettings interface {
	Rules(tenant string) (store.RuleLists, error)
}

// ErrTenantSettings: a tenant's settings exist but cannot be used; no
// session is created until the operator fixes them.
var ErrTenantSettings = errors.New("tenant settings unusable")

// SettingsDir reads <dir>/<tenant>.json, in the shape of Claude Code's
// settings.json, when a session is created, so an edit applies to the
// sessions created after it. A tenant without a file has no rules of its
// own.
type SettingsDir string

// Rules reads the tenant's file. Tenant names are checked by
// authentication (letters, digits, . _ @ -), so they cannot name another
// path; the check here is for the empty tenant of unauthenticated callers.
func (d SettingsDir) Rules(tenant string) (store.RuleLists, error) {
	if tenant == "" || tenant != filepath.Base(tenant) || tenant[0] == '.' {
		return store.RuleLists{}, nil
	}
	s, err := policy.ParseSettingsFile(filepath.Join(string(d), tenant+".json"))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return store.RuleLists{}, nil
	case err != nil:
		return store.RuleLists{}, fmt.Errorf("%w: settings of tenant %s: %w", ErrTenantSettings, tenant, err)
	}
	return store.RuleLists{Allow: s.Allow, Deny: s.Deny, Ask: s.Ask}, nil
}

// SetTenantSettings makes Create put each tenant's rules into the "user"
// source of its new sessions. Call it before serving.
func (m *Manager) SetTenantSettings(t TenantSettings) { m.tenants = t }

// userRules is the "user" source of a new session: the tenant's rules,
// then those the caller sent.
func (m *Manager) userRules(ctx context.Context, given store.RuleLists) (store.RuleLists, error) {
	if m.tenants == nil {
		return given, nil
	}
	t, err := m.tenants.Rules(Tenant(ctx))
	if err != nil {
		return store.RuleLists{}, err
	}
	return store.RuleLists{
		Allow: append(t.Allow, given.Allow...),
		Deny:  append(t.Deny, given.Deny...),
		Ask:   append(t.Ask, given.Ask...),
	}, nil
}
