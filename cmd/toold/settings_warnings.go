package main

import (
	"log/slog"
	"os"
	"strings"

	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/policy"
)

// warnSettings tells the operator, once at start, what of the --settings
// file toold does not apply: its top-level keys that toold does not read
// (one line listing them) and the hooks it skips. It returns the same,
// one line each, for GetServerInfo. The file has parsed by then; a read
// that fails now says nothing more.
func warnSettings(path string, h *hooks.Config, log *slog.Logger) []string {
	if path == "" {
		return nil
	}
	var out []string
	if data, err := os.ReadFile(path); err == nil {
		if keys := policy.UnusedSettingsKeys(data); len(keys) > 0 {
			log.Warn("settings keys toold does not use are ignored", "settings", path, "keys", keys)
			out = append(out, "ignored keys: "+strings.Join(keys, ", "))
		}
	}
	if h == nil {
		return out
	}
	for _, w := range h.Warnings {
		log.Warn("hook setting not applied", "settings", path, "detail", w)
		out = append(out, w)
	}
	return out
}
