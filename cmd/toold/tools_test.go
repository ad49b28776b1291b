package main

import (
	"strings"
	"testing"

	"github.com/toold/toold/internal/store/memstore"
)

// TestToolSet: the built-in tools are Claude Code's that toold runs;
// WebSearch (a server tool of the Messages API) and the cron and wake-up
// tools (the orchestrator's schedule) are not offered. By default the
// tools Claude Code 2.1.332 defers are deferred, and the ones it loads up
// front are not.
func TestToolSet(t *testing.T) {
	cfg, err := parseConfig(nil, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	reg, err := builtinTools(&toolRuntime{files: cfg.Runtime.Files, sessions: memstore.New(), skills: cfg.Skills.catalog()})
	if err != nil {
		t.Fatal(err)
	}
	reg, _, err = withToolSearch(reg, cfg.ToolSearch)
	if err != nil {
		t.Fatal(err)
	}
	names := "," + strings.Join(reg.Names(), ",") + ","
	for _, n := range []string{"Skill", "EnterWorktree", "ExitWorktree", "ToolSearch", "Bash", "Read"} {
		if !strings.Contains(names, ","+n+",") {
			t.Errorf("%s missing from %s", n, names)
		}
	}
	for _, n := range []string{"WebSearch", "CronCreate", "CronList", "CronDelete", "ScheduleWakeup", "RemoteTrigger"} {
		if _, ok := reg.Lookup(n); ok {
			t.Errorf("%s is offered, but toold cannot run it", n)
		}
	}
	for _, n := range []string{"EnterWorktree", "ExitWorktree", "NotebookEdit", "TodoWrite", "WebFetch", "TaskOutput", "KillShell"} {
		if d, _ := reg.Definition(n); !d.Deferred {
			t.Errorf("%s not deferred by default", n)
		}
	}
	for _, n := range []string{"Bash", "Read", "Write", "Edit", "Glob", "Grep", "Skill", "ToolSearch"} {
		if d, _ := reg.Definition(n); d.Deferred {
			t.Errorf("%s deferred by default", n)
		}
	}
}

func TestSkillFlags(t *testing.T) {
	dir := t.TempDir()
	cfg, err := parseConfig([]string{"--skill-dirs", dir + ", " + dir, "--workspace-skills"}, func(string) string { return "" })
	if err != nil || len(cfg.Skills.Dirs) != 2 || !cfg.Skills.Workspace {
		t.Fatalf("%+v %v", cfg.Skills, err)
	}
	for _, bad := range []string{"relative/dir", dir + "/missing"} {
		if _, err := parseConfig([]string{"--skill-dirs", bad}, func(string) string { return "" }); err == nil {
			t.Errorf("--skill-dirs %s accepted", bad)
		}
	}
}
