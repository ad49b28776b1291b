package main

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

func TestPprofListenIsOffByDefaultAndLoopbackOnly(t *testing.T) {
	noEnv := func(string) string { return "" }
	cfg, err := parseConfig(nil, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.PprofListen != "" {
		t.Errorf("profiling endpoints on by default: %q", cfg.PprofListen)
	}
	for _, bad := range []string{"0.0.0.0:6060", ":6060", "[::]:6060", "10.0.0.1:6060", "example.com:6060", "nonsense"} {
		if _, err := parseConfig([]string{"--pprof-listen", bad}, noEnv); err == nil || !strings.Contains(err.Error(), "--pprof-listen") {
			t.Errorf("--pprof-listen %s: %v, want it refused", bad, err)
		}
	}
	for _, good := range []string{"127.0.0.1:6060", "[::1]:6060", "localhost:6060", "127.0.0.2:0"} {
		if cfg, err := parseConfig([]string{"--pprof-listen", good}, noEnv); err != nil || cfg.PprofListen != good {
			t.Errorf("--pprof-listen %s: %v", good, err)
		}
	}
}

func TestPprofServes(t *testing.T) {
	addr, stop, err := servePprof("127.0.0.1:0", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	resp, err := http.Get("http://" + addr + "/debug/pprof/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "toold") {
		t.Errorf("cmdline: %s %q", resp.Status, body)
	}
	if addr, _, _ := servePprof("", nil); addr != "" {
		t.Errorf("an empty --pprof-listen served on %q", addr)
	}
}
