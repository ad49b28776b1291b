package policy

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toold/toold/internal/shell"
)

func TestCompileAllOrNothing(t *testing.T) {
	srcs := []SourceSettings{
		{Source: SourceCLIArg, Root: "/proj", Origin: "CreateSession", Settings: Settings{Allow: []string{"Bash(ls *)"}}},
		{Source: SourceProject, Root: "/proj", Origin: "/proj/.claude/settings.json",
			Settings: Settings{Deny: []string{"Read(.env)", "Write(docs/**)"}}},
	}
	rs, err := Compile(srcs)
	if rs != nil || err == nil {
		t.Fatalf("Compile = %v, %v; want nil and an error", rs, err)
	}
	// https://code.claude.com/docs/en/errors (the message names the rule, its list and its origin)
	for _, want := range []string{`"Write(docs/**)"`, "projectSettings", "/proj/.claude/settings.json", "permissions.deny[1]", "Use Edit(docs/**) instead"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	var re *RuleError
	if !errors.As(err, &re) || re.Index != 1 || re.Origin != "/proj/.claude/settings.json" {
		t.Errorf("error %#v", err)
	}
}

func TestCompileRejectsBadSettings(t *testing.T) {
	// https://code.claude.com/docs/en/settings (permissions.defaultMode values)
	_, err := Compile([]SourceSettings{{Source: SourceUser, Origin: "x", Settings: Settings{DefaultMode: "yolo"}}})
	if err == nil || !strings.Contains(err.Error(), "defaultMode") {
		t.Errorf("err = %v", err)
	}
}

func TestMatchAcrossSources(t *testing.T) {
	rs, err := Compile([]SourceSettings{
		// Given out of order on purpose: Compile sorts by priority.
		{Source: SourceSession, Root: "/proj", Origin: "session", Settings: Settings{Allow: []string{"Bash(aws s3 ls)"}}},
		{Source: SourceUser, Root: "/home/u/.claude", Origin: "user", Settings: Settings{Deny: []string{"Bash(aws *)"}}},
		{Source: SourcePolicy, Root: "/etc/toold", Origin: "/etc/toold/settings.json", Settings: Settings{
			Ask: []string{"Bash(git push *)"}, Allow: []string{"Bash(git *)"}}},
		{Source: SourceProject, Root: "/proj", Origin: "project", Settings: Settings{Allow: []string{"Bash(git push *)"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	q := func(cmd string) Query {
		a := shell.Analyze(cmd)
		return Query{Tool: "Bash", Command: &a.Commands[0], Script: cmd}
	}
	// https://code.claude.com/docs/en/permissions#manage-permissions (a broad deny beats a specific allow)
	if r := rs.Match(Deny, q("aws s3 ls")); r == nil || r.Text != "Bash(aws *)" || r.Source != SourceUser {
		t.Errorf("deny = %v", r)
	}
	// https://code.claude.com/docs/en/permissions "Settings precedence" (a user deny blocks... an allow elsewhere)
	if r := rs.Match(Allow, q("aws s3 ls")); r == nil || r.Source != SourceSession {
		t.Errorf("allow = %v (the engine checks deny first; Match reports per behavior)", r)
	}
	// https://code.claude.com/docs/en/permissions#manage-permissions (ask beats a more specific allow)
	if r := rs.Match(Ask, q("git push origin main")); r == nil || r.Text != "Bash(git push *)" || r.Behavior != Ask {
		t.Errorf("ask = %v", r)
	}
	// Source order: the policy's allow is reported before the project's.
	if r := rs.Match(Allow, q("git push origin main")); r == nil || r.Source != SourcePolicy {
		t.Errorf("allow = %v, want the policy's", r)
	}
	if r := rs.Match(Deny, q("ls")); r != nil {
		t.Errorf("deny for ls = %v", r)
	}
	if r := rs.Match(Behavior(7), q("ls")); r != nil {
		t.Errorf("unknown behavior matched %v", r)
	}
}

func TestToolDenied(t *testing.T) {
	rs, err := Compile([]SourceSettings{{Source: SourceCLIArg, Root: "/proj", Origin: "CreateSession", Settings: Settings{
		Deny: []string{"Bash(rm *)", "WebSearch", "mcp__evil", "mcp__*__delete_*", "Read", "Agent(model:opus)"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool string
		want string
	}{
		// https://code.claude.com/docs/en/permissions#manage-permissions (a scoped deny leaves the tool available)
		{"Bash", ""},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (a bare deny removes the tool)
		{"WebSearch", "WebSearch"},
		// https://code.claude.com/docs/en/permissions "MCP"
		{"mcp__evil__run", "mcp__evil"},
		// https://code.claude.com/docs/en/permissions "Tool name wildcards"
		{"mcp__github__delete_repo", "mcp__*__delete_*"},
		// coversFamily: a bare Read deny covers Grep, Glob and the editing tools
		{"Grep", "Read"},
		// coversFamily
		{"Edit", "Read"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (a parameter deny leaves the tool)
		{"Agent", ""},
	} {
		got := ""
		if r := rs.ToolDenied(tc.tool); r != nil {
			got = r.Text
		}
		if got != tc.want {
			t.Errorf("ToolDenied(%q) = %q, want %q", tc.tool, got, tc.want)
		}
	}
	var nilRS *RuleSet
	if nilRS.ToolDenied("Bash") != nil || nilRS.Match(Deny, Query{Tool: "Bash"}) != nil || nilRS.Rules(Deny) != nil {
		t.Error("a nil RuleSet must match nothing")
	}
}

// benchRules is the benchmark's rule set: 20 Bash allow, 10 Bash deny, 10
// path, 5 WebFetch and 5 MCP rules.
func benchRules() []SourceSettings {
	var allow, deny []string
	for i := 0; i < 18; i++ {
		allow = append(allow, fmt.Sprintf("Bash(tool%d run *)", i))
	}
	allow = append(allow, "Bash(git status)", "Bash(go test *)")
	for i := 0; i < 9; i++ {
		deny = append(deny, fmt.Sprintf("Bash(danger%d *)", i))
	}
	deny = append(deny, "Bash(rm -rf *)")
	for i := 0; i < 5; i++ {
		deny = append(deny, fmt.Sprintf("Read(//secret%d/**)", i))
		allow = append(allow, fmt.Sprintf("Edit(src%d/**)", i))
		allow = append(allow, fmt.Sprintf("WebFetch(domain:*.site%d.example)", i))
		deny = append(deny, fmt.Sprintf("mcp__server%d", i))
	}
	return []SourceSettings{{Source: SourceCLIArg, Root: "/proj", Origin: "bench", Settings: Settings{Allow: allow, Deny: deny}}}
}

// BenchmarkMatch50Rules: one op is the whole rule lookup of a Bash
// decision: deny, ask and allow for each command of
// `git status && go test ./... 2>&1 | tail -20`.
func BenchmarkMatch50Rules(b *testing.B) {
	rs, err := Compile(benchRules())
	if err != nil {
		b.Fatal(err)
	}
	const src = "git status && go test ./... 2>&1 | tail -20"
	a := shell.Analyze(src)
	b.ReportAllocs()
	for b.Loop() {
		for i := range a.Commands {
			q := Query{Tool: "Bash", Command: &a.Commands[i], Script: src, Cwd: "/proj", Home: "/home/u"}
			for _, bh := range [...]Behavior{Deny, Ask, Allow} {
				rs.Match(bh, q)
			}
		}
	}
}

// BenchmarkBashDecisionWithAnalysis adds the analysis of the command line
// to BenchmarkMatch50Rules: the whole cost of a Bash decision's rules.
func BenchmarkBashDecisionWithAnalysis(b *testing.B) {
	rs, err := Compile(benchRules())
	if err != nil {
		b.Fatal(err)
	}
	const src = "git status && go test ./... 2>&1 | tail -20"
	b.ReportAllocs()
	for b.Loop() {
		a := shell.Analyze(src)
		for i := range a.Commands {
			q := Query{Tool: "Bash", Command: &a.Commands[i], Script: src, Cwd: "/proj", Home: "/home/u"}
			for _, bh := range [...]Behavior{Deny, Ask, Allow} {
				rs.Match(bh, q)
			}
		}
	}
}

// BenchmarkMatchPath: the three lookups of a Read decision.
func BenchmarkMatchPath(b *testing.B) {
	rs, err := Compile(benchRules())
	if err != nil {
		b.Fatal(err)
	}
	q := Query{Tool: "Read", Path: "/proj/src3/pkg/deep/file.go", Cwd: "/proj", Home: "/home/u"}
	b.ReportAllocs()
	for b.Loop() {
		for _, bh := range [...]Behavior{Deny, Ask, Allow} {
			rs.Match(bh, q)
		}
	}
}
