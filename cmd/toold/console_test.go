package main

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func TestConsoleFlags(t *testing.T) {
	cfg, err := parseConfig(nil, func(string) string { return "" })
	if err != nil || cfg.Console.Listen != "" {
		t.Fatalf("default: %+v, %v; want no console", cfg.Console, err)
	}
	cfg, err = parseConfig(nil, func(k string) string {
		if k == "TOOLD_CONSOLE_LISTEN" {
			return "127.0.0.1:7080"
		}
		return ""
	})
	if err != nil || cfg.Console.Listen != "127.0.0.1:7080" {
		t.Fatalf("TOOLD_CONSOLE_LISTEN: %+v, %v", cfg.Console, err)
	}
	if _, err := parseConfig([]string{"--console-listen", "nonsense"}, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "--console-listen") {
		t.Fatalf("a bad address: %v", err)
	}
	// Without authentication the console stays on loopback, as --listen.
	cfg, err = parseConfig([]string{"--console-listen", "0.0.0.0:7080"}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	_, err = serveConsole(cfg, nil, nil, nil, nil, nil, slog.New(slog.DiscardHandler))
	var ce configError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "--console-listen") {
		t.Fatalf("a console on every interface without authentication: %v, want a configuration error", err)
	}
}
