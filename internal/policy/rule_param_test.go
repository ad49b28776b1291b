package policy

import (
	"encoding/json"
	"testing"
)

func TestParamMatch(t *testing.T) {
	tests := []struct {
		rule  string
		tool  string
		input string
		want  bool
	}{
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (exact without '*')
		{rule: "Agent(model:opus)", tool: "Agent", input: `{"model":"opus"}`, want: true},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{rule: "Agent(model:opus)", tool: "Agent", input: `{"model":"opus-4"}`, want: false},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" ('*' wildcard)
		{rule: "Agent(model:opus*)", tool: "Agent", input: `{"model":"opus-4"}`, want: true},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (omitted never matches)
		{rule: "Agent(model:*)", tool: "Agent", input: `{}`, want: false},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{rule: "Agent(model:*)", tool: "Agent", input: `{"model":""}`, want: true},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (whitespace around ':' ignored)
		{rule: "Agent(model  :  opus)", tool: "Agent", input: `{"model":"opus"}`, want: true},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (bool by its JSON text)
		{rule: "Bash(run_in_background:true)", tool: "Bash", input: `{"run_in_background":true}`, want: true},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (the string "true" is also "true")
		{rule: "Bash(run_in_background:true)", tool: "Bash", input: `{"run_in_background":"true"}`, want: true},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (number by its JSON text)
		{rule: "Bash(timeout:600000)", tool: "Bash", input: `{"timeout":600000}`, want: true},
		// rule_param.go: a float64 (input decoded without UseNumber) compares by its encoding/json text
		{rule: "Bash(timeout:600000)", tool: "Bash", input: `{"timeout":6e5}`, want: true},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{rule: "Bash(timeout:6*)", tool: "Bash", input: `{"timeout":60000.5}`, want: true},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (top-level scalars only)
		{rule: "mcp__x__y(opts:*)", tool: "mcp__x__y", input: `{"opts":{"a":1}}`, want: false},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{rule: "mcp__x__y(opts:*)", tool: "mcp__x__y", input: `{"opts":null}`, want: false},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{rule: "mcp__x__y(tags:*)", tool: "mcp__x__y", input: `{"tags":["a"]}`, want: false},
		// rule_param.go: "\*" is a literal star
		{rule: `mcp__x__y(q:a\*b)`, tool: "mcp__x__y", input: `{"q":"a*b"}`, want: true},
		// rule_param.go
		{rule: `mcp__x__y(q:a\*b)`, tool: "mcp__x__y", input: `{"q":"axxb"}`, want: false},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (the rule's tool only)
		{rule: "Agent(model:opus)", tool: "Task", input: `{"model":"opus"}`, want: false},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (Grep's dash fields)
		{rule: "Grep(-i:true)", tool: "Grep", input: `{"-i":true}`, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.rule+" "+tc.input, func(t *testing.T) {
			r, err := ParseRule(tc.rule, Deny, SourceCLIArg, "/proj")
			if err != nil {
				t.Fatal(err)
			}
			var in map[string]any
			if err := json.Unmarshal([]byte(tc.input), &in); err != nil {
				t.Fatal(err)
			}
			if got := r.matches(&Query{Tool: tc.tool, Input: in}); got != tc.want {
				t.Errorf("match = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestParamJSONNumber: inputs decoded with UseNumber compare by their text.
func TestParamJSONNumber(t *testing.T) {
	// https://code.claude.com/docs/en/permissions "Permission rule syntax"
	r := mustRule(t, "Bash(timeout:6e5)", Deny)
	if !r.matches(&Query{Tool: "Bash", Input: map[string]any{"timeout": json.Number("6e5")}}) {
		t.Error("json.Number not compared by its text")
	}
}
