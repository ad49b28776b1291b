package main

import (
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/server"
)

func TestConnectionFlags(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cfg, err := parseConfig(nil, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if want := (server.Connections{MaxAge: server.DefaultMaxConnectionAge, MaxAgeGrace: server.DefaultMaxConnectionAgeGrace}); cfg.Connections != want {
		t.Errorf("defaults %+v, want %+v", cfg.Connections, want)
	}
	cfg, err = parseConfig([]string{"--max-connection-age-grace=2m"}, env(map[string]string{"TOOLD_MAX_CONNECTION_AGE": "5m"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Connections.MaxAge != 5*time.Minute || cfg.Connections.MaxAgeGrace != 2*time.Minute {
		t.Errorf("env and flag: %+v", cfg.Connections)
	}
	if cfg, err := parseConfig([]string{"--max-connection-age=0"}, env(nil)); err != nil || cfg.Connections.MaxAge != 0 {
		t.Errorf("0 (never): %+v, %v", cfg, err)
	}
	for _, args := range [][]string{{"--max-connection-age=-1s"}, {"--max-connection-age-grace=0"}} {
		if _, err := parseConfig(args, env(nil)); err == nil || !strings.Contains(err.Error(), "--max-connection-age") {
			t.Errorf("%v: err %v", args, err)
		}
	}
}
