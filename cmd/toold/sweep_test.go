package main

import (
	"strings"
	"testing"
	"time"
)

func TestSweepIntervalConfig(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cfg, err := parseConfig(nil, env(nil))
	if err != nil || cfg.SweepInterval != 5*time.Minute {
		t.Fatalf("default: %v, %v", cfg, err)
	}
	cfg, err = parseConfig(nil, env(map[string]string{"TOOLD_SWEEP_INTERVAL": "0"}))
	if err != nil || cfg.SweepInterval != 0 {
		t.Fatalf("TOOLD_SWEEP_INTERVAL=0: %v, %v", cfg, err)
	}
	if _, err := parseConfig([]string{"--sweep-interval", "-1s"}, env(nil)); err == nil || !strings.Contains(err.Error(), "--sweep-interval") {
		t.Fatalf("negative interval: %v", err)
	}
}
