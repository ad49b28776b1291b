package ratelimit_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/internal/ratelimit"
)

func TestParseFile(t *testing.T) {
	flags := ratelimit.Limits{Rate: 50, Burst: 100}
	cfg, err := ratelimit.ParseFile([]byte(`{"tenants": {"big": {"rate": 500, "burst": 1000, "concurrent": 64}, "free": {}}}`), flags)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Default != flags || cfg.Tenants["big"] != (ratelimit.Limits{Rate: 500, Burst: 1000, Concurrent: 64}) ||
		cfg.Tenants["free"] != (ratelimit.Limits{}) || !cfg.Limited() {
		t.Errorf("cfg = %+v", cfg)
	}
	cfg, err = ratelimit.ParseFile([]byte(`{"default": {"concurrent": 8}, "tenants": {"trial": {"rate": 2}}}`), flags)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Default != (ratelimit.Limits{Concurrent: 8}) || cfg.Tenants["trial"] != (ratelimit.Limits{Rate: 2}) {
		t.Errorf("the file's default: cfg = %+v", cfg)
	}
	if cfg, _ := ratelimit.ParseFile([]byte(`{"tenants": {"a": {}}}`), ratelimit.Limits{}); cfg.Limited() {
		t.Error("no limit anywhere, yet Limited")
	}
	for _, bad := range []struct{ doc, want string }{
		{`{"tenants": {"a": {"rate": -1}}}`, `tenant "a"`},
		{`{"tenants": {"a": {"rate": 1, "burst": -2}}}`, "not negative"},
		{`{"tenants": {"a": {"rate": 1}, "a": {"rate": 2}}}`, "duplicate"},
		{`{"tenants": {"a": {"rps": 1}}}`, "unknown field"},
		{`{"tenant": {}}`, "unknown field"},
		{`{"tenants": {"": {"rate": 1}}}`, "empty tenant"},
		{`{"tenants": {"a": {"rate": "1"}}}`, "cannot unmarshal"},
		{`{"tenants": {}} {}`, "after the top-level value"},
		{`[]`, "cannot unmarshal"},
	} {
		if _, err := ratelimit.ParseFile([]byte(bad.doc), flags); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: err = %v, want one mentioning %q", bad.doc, err, bad.want)
		}
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "limits.json")
	if err := os.WriteFile(path, []byte(`{"tenants": {"a": {"concurrent": 1}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := ratelimit.LoadFile(path, ratelimit.Limits{})
	if err != nil || cfg.Tenants["a"].Concurrent != 1 {
		t.Fatalf("cfg = %+v, err = %v", cfg, err)
	}
	// The per-tenant values are the ones applied.
	l, err := ratelimit.NewLocal(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := admit(t, l, "a", 1)
	refused(t, l, "a", 1, ratelimit.LimitConcurrency)
	p.Release()
	for range 100 {
		admit(t, l, "other", 10) // no default limit
	}
	if _, err := ratelimit.LoadFile(filepath.Join(dir, "missing.json"), ratelimit.Limits{}); err == nil {
		t.Error("a missing file was accepted")
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte(`{"tenants": {}}`+strings.Repeat(" ", 5<<20)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ratelimit.LoadFile(big, ratelimit.Limits{}); err == nil || !strings.Contains(err.Error(), "over") {
		t.Errorf("a 5 MB file: err = %v", err)
	}
}
