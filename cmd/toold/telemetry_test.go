package main

import (
	"strings"
	"testing"
	"time"
)

func TestTelemetryAuditAndDrainFlags(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		check   func(*config) bool
		wantErr string
	}{
		{"defaults: nothing exported, no audit, no delay", nil, nil, func(c *config) bool {
			return c.Telemetry.MetricsListen == "" && !c.Telemetry.OTLP && c.Audit.Dest == "" && c.DrainDelay == 0 && c.ShutdownTimeout == 30*time.Second
		}, ""},
		{"drain timeout and its alias", []string{"--drain-timeout=7s"}, nil, func(c *config) bool { return c.ShutdownTimeout == 7*time.Second }, ""},
		{"drain delay", []string{"--drain-delay=5s"}, nil, func(c *config) bool { return c.DrainDelay == 5*time.Second }, ""},
		{"negative drain delay", []string{"--drain-delay=-1s"}, nil, nil, "--drain-delay"},
		{"stream keepalive default", nil, nil, func(c *config) bool { return c.StreamKeepalive == 15*time.Second }, ""},
		{"stream keepalive from the environment", nil, map[string]string{"TOOLD_STREAM_KEEPALIVE": "1m"}, func(c *config) bool { return c.StreamKeepalive == time.Minute }, ""},
		{"stream keepalive off", []string{"--stream-keepalive=0"}, nil, func(c *config) bool { return c.StreamKeepalive == 0 }, ""},
		{"stream keepalive too short", []string{"--stream-keepalive=1ms"}, nil, nil, "--stream-keepalive"},
		{"negative stream keepalive", []string{"--stream-keepalive=-1s"}, nil, nil, "--stream-keepalive"},
		{"standard OTLP variable turns export on", nil, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4317"}, func(c *config) bool {
			return c.Telemetry.OTLP && c.Telemetry.OTLPEndpoint == ""
		}, ""},
		{"otlp endpoint flag", []string{"--otlp-endpoint", "http://collector:4317"}, nil, func(c *config) bool { return c.Telemetry.OTLP }, ""},
		{"otlp endpoint without scheme", []string{"--otlp-endpoint", "collector:4317"}, nil, nil, "--otlp-endpoint"},
		{"metrics listen", []string{"--metrics-listen", ":9464"}, nil, func(c *config) bool { return c.Telemetry.MetricsListen == ":9464" }, ""},
		{"bad metrics listen", []string{"--metrics-listen", "9464"}, nil, nil, "--metrics-listen"},
		{"redaction repeatable and comma-separated", []string{"--audit-log", "-", "--audit-redact", "a+,b+", "--audit-redact", `c{1\,2}`}, nil, func(c *config) bool {
			return c.Audit.Dest == "-" && strings.Join(c.Audit.Redact, " ") == "a+ b+ c{1,2}"
		}, ""},
		{"bad redaction pattern", []string{"--audit-log", "-", "--audit-redact", "(x"}, nil, nil, "--audit-redact"},
		{"redaction without an audit log", []string{"--audit-redact", "x"}, nil, nil, "needs --audit-log or a classifier"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseConfig(tc.args, env(tc.env))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(c) {
				t.Errorf("config = %+v", c)
			}
		})
	}
}
