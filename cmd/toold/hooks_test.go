package main

import (
	"strings"
	"testing"
	"time"
)

func TestHooksFlags(t *testing.T) {
	get := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cfg, err := parseConfig(nil, get(nil))
	if err != nil {
		t.Fatal(err)
	}
	if h := cfg.Hooks; h.WorkspaceSettings || h.FailOpen || h.Timeout != 10*time.Minute || h.MaxOutput != 1<<20 {
		t.Fatalf("defaults = %+v", h)
	}
	cfg, err = parseConfig([]string{"--hooks-workspace-settings", "--hooks-timeout=30s", "--hooks-max-output=4096"},
		get(map[string]string{"TOOLD_HOOKS_FAIL_OPEN": "true"}))
	if err != nil {
		t.Fatal(err)
	}
	if h := cfg.Hooks; !h.WorkspaceSettings || !h.FailOpen || h.Timeout != 30*time.Second || h.MaxOutput != 4096 {
		t.Fatalf("set = %+v", h)
	}
	for _, args := range [][]string{{"--hooks-timeout=0s"}, {"--hooks-max-output=10"}} {
		if _, err := parseConfig(args, get(nil)); err == nil || !strings.Contains(err.Error(), strings.SplitN(args[0], "=", 2)[0]) {
			t.Errorf("%v: err = %v", args, err)
		}
	}
}
