package main

import (
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestParseConfig(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		check   func(*config) bool
		wantErr string
	}{
		{"defaults", nil, nil, func(c *config) bool {
			return c.Listen == "127.0.0.1:50051" && c.MaxToolConcurrency == 10 && c.LogLevel == slog.LevelInfo && c.LogFormat == "text"
		}, ""},
		{"env fallback", nil, map[string]string{"TOOLD_LISTEN": "0.0.0.0:9000", "TOOLD_MAX_TOOL_CONCURRENCY": "4", "TOOLD_LOG_LEVEL": "debug", "TOOLD_INSECURE_NO_AUTH": "true"}, func(c *config) bool {
			return c.Listen == "0.0.0.0:9000" && c.MaxToolConcurrency == 4 && c.LogLevel == slog.LevelDebug && c.Auth.InsecureNoAuth
		}, ""},
		{"flag beats env", []string{"--listen", "127.0.0.1:1"}, map[string]string{"TOOLD_LISTEN": "0.0.0.0:9000"}, func(c *config) bool {
			return c.Listen == "127.0.0.1:1"
		}, ""},
		{"shutdown timeout", []string{"--shutdown-timeout=5s"}, nil, func(c *config) bool { return c.ShutdownTimeout == 5*time.Second }, ""},
		{"bad listen", []string{"--listen", "nonsense"}, nil, nil, "--listen"},
		{"bad port", []string{"--listen", "127.0.0.1:99999"}, nil, nil, "bad port"},
		{"relative root", []string{"--workspace-root", "ws"}, nil, nil, "absolute"},
		{"bad format", []string{"--log-format", "xml"}, nil, nil, "--log-format"},
		{"bad level", []string{"--log-level", "loud"}, nil, nil, "--log-level"},
		{"zero concurrency", []string{"--max-tool-concurrency", "0"}, nil, nil, "--max-tool-concurrency"},
		{"bad env value", nil, map[string]string{"TOOLD_MAX_TOOL_CONCURRENCY": "many"}, nil, "TOOLD_MAX_TOOL_CONCURRENCY"},
		{"unknown flag", []string{"--frobnicate"}, nil, nil, "frobnicate"},
		{"stray argument", []string{"serve"}, nil, nil, "unexpected arguments"},
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
			if err != nil || !tc.check(cfg) {
				t.Fatalf("cfg = %+v, err = %v", cfg, err)
			}
		})
	}
}
