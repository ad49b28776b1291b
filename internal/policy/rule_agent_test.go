package policy

import (
	"strings"
	"testing"
)

// Agent(type) rules match the subagent_type, an omitted one as
// general-purpose; a deny gives Claude Code's refusal text (recorded with
// 2.1.332: "Agent type 'Explore' has been denied by permission rule
// 'Agent(Explore)' from flagSettings.", here with toold's source name).
func TestAgentTypeRules(t *testing.T) {
	explore := map[string]any{"description": "d", "prompt": "p", "subagent_type": "Explore"}
	plain := map[string]any{"description": "d", "prompt": "p"}
	checkCases(t, []decideCase{
		{name: "deny-type", tool: "Agent", args: explore, rules: denyRules("Agent(Explore)"), want: Deny},
		{name: "deny-other-type", tool: "Agent", args: plain, rules: SessionRules{CLIArg: Settings{Deny: []string{"Agent(Explore)"}, Allow: []string{"Agent"}}}, want: Allow},
		{name: "deny-default-type", tool: "Agent", args: plain, rules: denyRules("Agent(general-purpose)"), want: Deny},
		{name: "deny-glob", tool: "Agent", args: explore, rules: denyRules("Agent(Exp*)"), want: Deny},
		{name: "allow-type", tool: "Agent", args: explore, rules: allowRules("Agent(Explore)"), want: Allow},
		{name: "allow-type-not-other", tool: "Agent", args: plain, rules: allowRules("Agent(Explore)"), want: Ask},
		{name: "ask-type", tool: "Agent", args: explore, rules: SessionRules{CLIArg: Settings{Ask: []string{"Agent(Explore)"}, Allow: []string{"Agent"}}}, want: Ask},
	})
	e, ws := newTestEngine(t)
	d := runDecide(t, e, ws, decideCase{name: "msg", tool: "Agent", args: explore, rules: denyRules("Agent(Explore)")})
	if want := "Agent type 'Explore' has been denied by permission rule 'Agent(Explore)' from cliArg."; d.Message != want {
		t.Errorf("message %q, want %q", d.Message, want)
	}
	d = runDecide(t, e, ws, decideCase{name: "msg-param", tool: "Agent", args: map[string]any{"model": "opus"}, rules: denyRules("Agent(model:opus)")})
	if d.Behavior != Deny || d.Message != "" {
		t.Errorf("a parameter rule's denial: %+v", d)
	}
}

func TestAgentTypeRuleErrors(t *testing.T) {
	for _, text := range []string{"Agent(modle:opus)", "Agent(Explore x)", "Agent( model:opus)"} {
		if _, err := ParseRule(text, Deny, SourceCLIArg, "/proj"); err == nil || !strings.Contains(err.Error(), "takes no specifier") {
			t.Errorf("%s: %v", text, err)
		}
	}
}
