package main

import (
	"strings"
	"testing"
	"time"
)

func TestClassifierFlags(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		check   func(*config) bool
		wantErr string
	}{
		{"off by default", nil, nil, func(c *config) bool {
			return !c.Classifier.enabled() && c.Classifier.Timeout == 10*time.Second && c.Classifier.DenialLimit == 3
		}, ""},
		{"endpoint", []string{"--classifier-endpoint", "cls:50061", "--classifier-insecure", "--classifier-timeout", "2s", "--classifier-denial-limit", "5"}, nil, func(c *config) bool {
			return c.Classifier.enabled() && c.Classifier.Endpoint == "cls:50061" && c.Classifier.Insecure && c.Classifier.Timeout == 2*time.Second && c.Classifier.DenialLimit == 5
		}, ""},
		{"command from the environment, split on spaces", nil, map[string]string{"TOOLD_CLASSIFIER_COMMAND": "/bin/cls --strict"}, func(c *config) bool {
			return strings.Join(c.Classifier.Command, "|") == "/bin/cls|--strict"
		}, ""},
		{"both", []string{"--classifier-endpoint", "a:1", "--classifier-command", "/bin/cls"}, nil, nil, "give one"},
		{"TLS settings without an endpoint", []string{"--classifier-insecure"}, nil, nil, "need --classifier-endpoint"},
		{"zero timeout", []string{"--classifier-command", "/bin/cls", "--classifier-timeout", "0s"}, nil, nil, "--classifier-timeout"},
		{"zero limit", []string{"--classifier-command", "/bin/cls", "--classifier-denial-limit", "0"}, nil, nil, "--classifier-denial-limit"},
		{"redaction for the classifier alone", []string{"--classifier-command", "/bin/cls", "--audit-redact", "sk-[a-z]+"}, nil, func(c *config) bool {
			return len(c.Audit.Redact) == 1 && c.Audit.Dest == ""
		}, ""},
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
				t.Errorf("config = %+v", c.Classifier)
			}
		})
	}
}
