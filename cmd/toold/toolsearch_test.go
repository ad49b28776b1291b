package main

import (
	"strings"
	"testing"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/glob"
	"github.com/toold/toold/internal/tools/todowrite"
)

func TestToolSearchFlags(t *testing.T) {
	cfg, err := parseConfig(nil, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ToolSearch.Threshold != 80 || cfg.ToolSearch.Deferred != nil {
		t.Fatalf("defaults = %+v (want the release's deferred tools: nil)", cfg.ToolSearch)
	}
	for _, none := range []string{"none", ""} {
		cfg, err := parseConfig([]string{"--deferred-tools=" + none}, func(string) string { return "" })
		if err != nil || cfg.ToolSearch.Deferred == nil || len(cfg.ToolSearch.Deferred) != 0 {
			t.Fatalf("--deferred-tools=%q: %+v %v", none, cfg.ToolSearch, err)
		}
	}
	env := map[string]string{"TOOLD_DEFERRED_TOOLS": "TodoWrite, Glob", "TOOLD_TOOL_SEARCH_THRESHOLD": "-1"}
	cfg, err = parseConfig(nil, func(k string) string { return env[k] })
	if err != nil || strings.Join(cfg.ToolSearch.Deferred, ",") != "TodoWrite,Glob" || cfg.ToolSearch.Threshold != -1 {
		t.Fatalf("%+v %v", cfg.ToolSearch, err)
	}
	for _, bad := range [][]string{{"--tool-search-threshold", "0"}, {"--tool-search-threshold", "-5"}, {"--deferred-tools", "ToolSearch"}} {
		if _, err := parseConfig(bad, func(string) string { return "" }); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestWithToolSearch(t *testing.T) {
	builtins, err := tool.NewRegistry(glob.New(), todowrite.New())
	if err != nil {
		t.Fatal(err)
	}
	reg, _, err := withToolSearch(builtins, toolSearchConfig{Deferred: []string{"TodoWrite"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(reg.Names(), ","); got != "Glob,TodoWrite,ToolSearch" {
		t.Fatalf("names = %s", got)
	}
	if d, _ := reg.Definition("TodoWrite"); !d.Deferred || len(d.InputSchema) == 0 {
		t.Errorf("TodoWrite = %+v: want deferred, with its schema kept for validation", d)
	}
	if d, _ := reg.Definition("Glob"); d.Deferred {
		t.Error("Glob deferred")
	}
	// The release's choice: TodoWrite is deferred, Glob is not.
	reg, _, err = withToolSearch(builtins, toolSearchConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := reg.Definition("TodoWrite"); !d.Deferred {
		t.Error("TodoWrite not deferred by default")
	}
	if d, _ := reg.Definition("Glob"); d.Deferred {
		t.Error("Glob deferred by default")
	}
	reg, _, err = withToolSearch(builtins, toolSearchConfig{Deferred: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := reg.Definition("TodoWrite"); d.Deferred {
		t.Error("TodoWrite deferred with --deferred-tools=none")
	}
	if _, _, err := withToolSearch(builtins, toolSearchConfig{Deferred: []string{"Nope"}}); err == nil {
		t.Error("an unknown deferred tool was accepted")
	}
}
