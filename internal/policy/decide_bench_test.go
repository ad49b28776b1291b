package policy

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkDecideBash50Rules is one whole decision for a Bash call against
// 50 rules of mixed kinds: analysis, deny/ask/allow matching per part,
// critical-path and redirect checks. The rules are compiled once (the cache
// hit is part of what is measured).
func BenchmarkDecideBash50Rules(b *testing.B) {
	ws, _ := filepath.EvalSymlinks(b.TempDir())
	var rules SessionRules
	for i := range 20 {
		rules.CLIArg.Allow = append(rules.CLIArg.Allow, fmt.Sprintf("Bash(tool%d run *)", i))
	}
	rules.CLIArg.Allow = append(rules.CLIArg.Allow, "Bash(git status)", "Bash(go test *)", "Bash(tail *)")
	for i := range 10 {
		rules.CLIArg.Deny = append(rules.CLIArg.Deny, fmt.Sprintf("Bash(danger%d *)", i))
	}
	for i := range 5 {
		rules.CLIArg.Deny = append(rules.CLIArg.Deny, fmt.Sprintf("Read(./secret%d/**)", i))
		rules.CLIArg.Allow = append(rules.CLIArg.Allow, fmt.Sprintf("Edit(./src%d/**)", i))
	}
	for i := range 4 {
		rules.CLIArg.Allow = append(rules.CLIArg.Allow, fmt.Sprintf("WebFetch(domain:docs%d.example.com)", i))
	}
	rules.CLIArg.Ask = []string{"mcp__db__drop", "mcp__db__truncate", "Bash(git push *)"}
	e, err := NewEngine(Options{Home: "/home/agent"})
	if err != nil {
		b.Fatal(err)
	}
	req := Request{
		SessionID: "bench", Tool: "Bash", Mode: "default", Cwd: ws, Workspace: ws, Dirs: []string{ws}, Rules: rules,
		Args: map[string]any{"command": "git status && go test ./... 2>&1 | tail -20"},
	}
	ctx := context.Background()
	if d, _ := e.Decide(ctx, req); d.Behavior != Allow {
		b.Fatalf("decision %+v", d)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		e.Decide(ctx, req)
	}
}
