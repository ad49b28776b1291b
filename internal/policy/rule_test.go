package policy

import (
	"strings"
	"testing"
)

func TestToolLevelMatch(t *testing.T) {
	tests := []struct {
		rule string
		b    Behavior
		tool string
		want bool
	}{
		// https://code.claude.com/docs/en/permissions "MCP" (mcp__server: every tool of the server)
		{rule: "mcp__puppeteer", b: Allow, tool: "mcp__puppeteer__navigate", want: true},
		// https://code.claude.com/docs/en/permissions "MCP"
		{rule: "mcp__puppeteer", b: Allow, tool: "mcp__puppeteer", want: true},
		// https://code.claude.com/docs/en/permissions "MCP" (not another server sharing the prefix)
		{rule: "mcp__git", b: Deny, tool: "mcp__github__get_issue", want: false},
		// https://code.claude.com/docs/en/permissions "MCP"
		{rule: "mcp__git", b: Deny, tool: "mcp__git__", want: false},
		// https://code.claude.com/docs/en/permissions "MCP" (mcp__server__* is the same)
		{rule: "mcp__puppeteer__*", b: Allow, tool: "mcp__puppeteer__navigate", want: true},
		// https://code.claude.com/docs/en/permissions "MCP" (one tool)
		{rule: "mcp__github__get_issue", b: Allow, tool: "mcp__github__get_issue", want: true},
		// https://code.claude.com/docs/en/permissions "MCP"
		{rule: "mcp__github__get_issue", b: Allow, tool: "mcp__github__get_issues", want: false},
		// https://code.claude.com/docs/en/permissions "Tool name wildcards"
		{rule: "mcp__github__get_*", b: Allow, tool: "mcp__github__get_pr", want: true},
		// https://code.claude.com/docs/en/permissions "Tool name wildcards"
		{rule: "mcp__github__get_*", b: Allow, tool: "mcp__github__create_pr", want: false},
		// https://code.claude.com/docs/en/permissions "Tool name wildcards" (deny globs: full-name match)
		{rule: "*", b: Deny, tool: "Bash", want: true},
		// https://code.claude.com/docs/en/permissions "Tool name wildcards"
		{rule: "mcp__*", b: Deny, tool: "mcp__x__y", want: true},
		// https://code.claude.com/docs/en/permissions "Tool name wildcards"
		{rule: "mcp__*", b: Deny, tool: "Bash", want: false},
		// https://code.claude.com/docs/en/permissions "Tool name wildcards" (full name, not substring)
		{rule: "Web*", b: Ask, tool: "WebFetch", want: true},
		// https://code.claude.com/docs/en/permissions "Tool name wildcards"
		{rule: "*Fetch", b: Ask, tool: "WebFetchX", want: false},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (canonical names, exact)
		{rule: "TaskStop", b: Deny, tool: "Stop Task", want: false},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (a bare Write rule still matches at tool level)
		{rule: "Write", b: Deny, tool: "Write", want: true},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{rule: "Write", b: Deny, tool: "Edit", want: false},
		// coversFamily: a bare Edit rule speaks for the whole editing family
		{rule: "Edit", b: Deny, tool: "NotebookEdit", want: true},
		// coversFamily
		{rule: "Edit", b: Allow, tool: "Read", want: true},
		// coversFamily
		{rule: "Edit", b: Deny, tool: "Read", want: false},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (Tool(*) ≡ Tool)
		{rule: "WebSearch(*)", b: Deny, tool: "WebSearch", want: true},
	}
	for _, tc := range tests {
		t.Run(tc.b.String()+" "+tc.rule+" "+tc.tool, func(t *testing.T) {
			r := mustRule(t, tc.rule, tc.b)
			if got := r.matches(&Query{Tool: tc.tool, Path: "/proj/x"}); got != tc.want {
				t.Errorf("match = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestWildMatch(t *testing.T) {
	for _, tc := range []struct {
		pat, s string
		want   bool
	}{
		{"a*b*c", "abc", true},
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "acb", false},
		{"*", "", true},
		{"a*a", "a", false}, // prefix and suffix may not overlap
		{"ab*ba", "aba", false},
		{"x", "x", true},
		{"x", "xx", false},
		{"**", "anything", true},
	} {
		if got := wildMatch(strings.Split(tc.pat, "*"), tc.s); got != tc.want {
			t.Errorf("wildMatch(%q, %q) = %v, want %v", tc.pat, tc.s, got, tc.want)
		}
	}
}

func TestRuleErrorMessage(t *testing.T) {
	e := &RuleError{Rule: "Write(docs/**)", Behavior: Deny, Source: SourceProject, Origin: "/p/.claude/settings.json", Index: 3, Reason: "why"}
	want := `permission deny rule "Write(docs/**)" (projectSettings, /p/.claude/settings.json, permissions.deny[3]): why`
	if e.Error() != want {
		t.Errorf("got %q\nwant %q", e.Error(), want)
	}
}
