package main

import (
	"log/slog"
	"os"

	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/policy"
)

// warnSettings tells the operator, once at start, what of the --settings
// file toold does not apply: its top-level keys that toold does not read
// (one line listing them) and the hooks it skips. The file has parsed by
// then; a read that fails now says nothing more.
func warnSettings(path string, h *hooks.Config, log *slog.Logger) {
	if path == "" {
		return
	}
	if data, err := os.ReadFile(path); err == nil {
		if keys := policy.UnusedSettingsKeys(data); len(keys) > 0 {
			log.Warn("settings keys toold does not use are ignored", "settings", path, "keys", keys)
		}
	}
	if h == nil {
		return
	}
	for _, w := range h.Warnings {
		log.Warn("hook setting not applied", "settings", path, "detail", w)
	}
}
