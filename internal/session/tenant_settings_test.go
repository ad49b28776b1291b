package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/memstore"
)

func TestTenantSettingsAreTheUserSource(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "team-a.json"), []byte(`{"permissions": {"deny": ["Bash(rm *)"], "allow": ["Bash(make *)"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.json"), []byte(`{"permissions": {"deny": "not a list"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	st := memstore.New()
	m, err := NewManager(st, t.TempDir(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.SetTenantSettings(SettingsDir(dir))

	s, err := m.Create(WithTenant(context.Background(), "team-a"), Spec{User: store.RuleLists{Allow: []string{"Read"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.User.Deny, []string{"Bash(rm *)"}) || !slices.Equal(s.User.Allow, []string{"Bash(make *)", "Read"}) {
		t.Fatalf("user source of team-a's session: %+v", s.User)
	}
	stored, _ := st.GetSession(context.Background(), s.ID)
	if !slices.Equal(stored.User.Deny, []string{"Bash(rm *)"}) {
		t.Fatalf("stored user source: %+v", stored.User)
	}

	s, err = m.Create(WithTenant(context.Background(), "team-b"), Spec{})
	if err != nil || len(s.User.Allow)+len(s.User.Deny)+len(s.User.Ask) != 0 {
		t.Fatalf("a tenant without a file: %+v, %v", s.User, err)
	}

	before, _ := os.ReadDir(m.Root())
	if _, err := m.Create(WithTenant(context.Background(), "broken"), Spec{}); !errors.Is(err, ErrTenantSettings) {
		t.Fatalf("a tenant whose settings do not parse: %v, want ErrTenantSettings", err)
	}
	after, _ := os.ReadDir(m.Root())
	if len(after) != len(before) {
		t.Fatal("a refused session left a workspace behind")
	}
}
