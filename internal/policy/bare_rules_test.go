package policy

import "testing"

// A bare Read or Edit deny (or Read(*), Edit(*)) removes the tool it names
// and nothing else, as Claude Code 2.1.332 does (test/conformance
// cases_baredeny.json); Read(**) covers every file below the cwd but not
// the cwd itself, so Grep and Glob run there and leave the files out.
func TestBareFileRulesNameTheirTool(t *testing.T) {
	grep := map[string]any{"pattern": "k"}
	glob := map[string]any{"pattern": "**/*"}
	write := map[string]any{"file_path": "$WS/src/new.txt", "content": "x"}
	checkCases(t, []decideCase{
		{name: "bare-read-read", tool: "Read", args: map[string]any{"file_path": "$WS/src/a"}, rules: denyRules("Read"), want: Deny},
		{name: "bare-read-grep", tool: "Grep", args: grep, rules: denyRules("Read"), want: Allow},
		{name: "bare-read-glob", tool: "Glob", args: glob, rules: denyRules("Read"), want: Allow},
		{name: "star-read-grep", tool: "Grep", args: grep, rules: denyRules("Read(*)"), want: Allow},
		{name: "bare-read-ask-grep", tool: "Grep", args: grep, rules: SessionRules{CLIArg: Settings{Ask: []string{"Read"}}}, want: Allow},
		{name: "bare-edit-write", tool: "Write", args: write, mode: "acceptEdits", rules: denyRules("Edit"), want: Allow},
		{name: "bare-edit-edit", tool: "Edit", args: map[string]any{"file_path": "$WS/src/a", "old_string": "a", "new_string": "b"}, mode: "acceptEdits", rules: denyRules("Edit"), want: Deny},
		{name: "globstar-grep-cwd", tool: "Grep", args: grep, rules: denyRules("Read(**)"), want: Allow},
		{name: "globstar-grep-sub", tool: "Grep", args: map[string]any{"pattern": "k", "path": "$WS/src"}, rules: denyRules("Read(**)"), want: Deny},
		{name: "globstar-read-file", tool: "Read", args: map[string]any{"file_path": "$WS/src/a"}, rules: denyRules("Read(**)"), want: Deny},
		{name: "globstar-slash-grep-cwd", tool: "Grep", args: grep, rules: denyRules("Read(**/)"), want: Allow},
		{name: "dir-grep-dir", tool: "Grep", args: map[string]any{"pattern": "k", "path": "$WS/secrets"}, rules: denyRules("Read(secrets/**)"), want: Deny},
		{name: "edit-globstar-write", tool: "Write", args: write, mode: "acceptEdits", rules: denyRules("Edit(**)"), want: Deny},
	})
}

func TestBareFileRulesCoverFamilyTools(t *testing.T) {
	_, ws := newTestEngine(t)
	e, err := NewEngine(Options{Home: "/home/agent", BareFileRulesCoverFamily: true})
	if err != nil {
		t.Fatal(err)
	}
	grep := map[string]any{"pattern": "k"}
	for _, tc := range []decideCase{
		{name: "bare-read-grep", tool: "Grep", args: grep, rules: denyRules("Read"), want: Deny},
		{name: "bare-read-glob", tool: "Glob", args: map[string]any{"pattern": "*"}, rules: denyRules("Read"), want: Deny},
		{name: "star-read-grep", tool: "Grep", args: grep, rules: denyRules("Read(*)"), want: Deny},
		{name: "bare-read-write", tool: "Write", args: map[string]any{"file_path": "$WS/src/n", "content": "x"}, mode: "acceptEdits", rules: denyRules("Read"), want: Deny},
		{name: "bare-edit-write", tool: "Write", args: map[string]any{"file_path": "$WS/src/n", "content": "x"}, mode: "acceptEdits", rules: denyRules("Edit"), want: Deny},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := runDecide(t, e, ws, tc); d.Behavior != tc.want {
				t.Fatalf("got %v (%s: %s), want %v", d.Behavior, d.Source, d.Reason, tc.want)
			}
		})
	}
}
