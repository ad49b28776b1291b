package main

import (
	"strings"
	"testing"

	"github.com/toold/toold/internal/strictjson"
)

func TestLimitsConfig(t *testing.T) {
	cfg, err := parseConfig(nil, func(string) string { return "" })
	if err != nil || cfg.Limits.MaxRequestBytes != 16<<20 || cfg.Limits.Input != (strictjson.Limits{MaxDepth: 512, MaxValues: 100_000}) {
		t.Fatalf("defaults: %+v, %v", cfg.Limits, err)
	}
	env := map[string]string{"TOOLD_MAX_REQUEST_BYTES": "4MiB", "TOOLD_MAX_INPUT_DEPTH": "64", "TOOLD_MAX_INPUT_VALUES": "1000"}
	cfg, err = parseConfig(nil, func(k string) string { return env[k] })
	if err != nil || cfg.Limits.MaxRequestBytes != 4<<20 || cfg.Limits.Input != (strictjson.Limits{MaxDepth: 64, MaxValues: 1000}) {
		t.Fatalf("env: %+v, %v", cfg.Limits, err)
	}
	for _, args := range [][]string{{"--max-request-bytes", "1KiB"}, {"--max-request-bytes", "2GiB"}, {"--max-input-depth", "0"}, {"--max-input-depth", "100000"}, {"--max-input-values", "10"}} {
		if _, err := parseConfig(args, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("%v: err = %v", args, err)
		}
	}
}
