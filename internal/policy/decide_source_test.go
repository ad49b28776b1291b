package policy

import "testing"

// Every decision names its source, a Bash line of several allowed
// commands included: metrics and the audit log count decisions by it, and
// an empty one says nothing about what allowed the call.
func TestEveryDecisionHasASource(t *testing.T) {
	e, ws := newTestEngine(t)
	cmds := []string{
		"ls", "ls && pwd", "ls | wc -l", "cat src/a; echo hi", "git status && git diff",
		"npm test && ls", "ls && npm test", "mkdir src/x && ls", "rm -rf /", "curl http://x && ls",
		"", "# only a comment", "true", "echo $(whoami)", "FOO=1",
	}
	for _, mode := range []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"} {
		for _, c := range cmds {
			tc := decideCase{name: mode + "/" + c, mode: mode, tool: "Bash", args: bashCmd(c),
				rules: SessionRules{CLIArg: Settings{Allow: []string{"Bash(npm test)"}, Deny: []string{"Bash(curl *)"}}}}
			if d := runDecide(t, e, ws, tc); d.Source == "" {
				t.Errorf("%s %q: %v with no source (%s)", mode, c, d.Behavior, d.Reason)
			}
		}
	}
	for _, tc := range []struct {
		cmd, source, rule string
	}{
		{"ls && pwd", "readOnly", ""},
		{"ls | wc -l", "readOnly", ""},
		{"npm test && ls", "cliArg", "Bash(npm test)"},
		{"ls && npm test", "cliArg", "Bash(npm test)"},
	} {
		d := runDecide(t, e, ws, decideCase{name: tc.cmd, tool: "Bash", args: bashCmd(tc.cmd), rules: allowRules("Bash(npm test)")})
		if d.Behavior != Allow || d.Source != tc.source || d.Rule != tc.rule {
			t.Errorf("%q: %v source %q rule %q, want allow by %q %q", tc.cmd, d.Behavior, d.Source, d.Rule, tc.source, tc.rule)
		}
	}
}
