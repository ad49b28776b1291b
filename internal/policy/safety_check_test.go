package policy

import (
	"context"
	"fmt"
	"testing"
)

// TestSafetyCheck: a call that declares a safety check asks whatever the
// allow rules say; bypassPermissions allows it, dontAsk denies it, and a
// deny rule still denies it first.
func TestSafetyCheck(t *testing.T) {
	e, ws := newTestEngine(t)
	for i, tc := range []struct {
		mode  string
		rules SessionRules
		want  Behavior
	}{
		{"default", SessionRules{}, Ask},
		{"default", allowRules("EnterWorktree"), Ask},
		{"acceptEdits", allowRules("EnterWorktree"), Ask},
		{"plan", SessionRules{}, Ask},
		{"dontAsk", allowRules("EnterWorktree"), Deny},
		{"bypassPermissions", SessionRules{}, Allow},
		{"bypassPermissions", denyRules("EnterWorktree"), Deny},
	} {
		// A session of its own per case: compiled rules are cached per
		// session and revision.
		d, err := e.Decide(context.Background(), Request{
			SessionID: fmt.Sprintf("s-%d", i), Tool: "EnterWorktree", Args: map[string]any{"path": ws + "/w2"}, Mode: tc.mode,
			Cwd: ws, Workspace: ws, Dirs: []string{ws}, Rules: tc.rules, SafetyCheck: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		if d.Behavior != tc.want {
			t.Errorf("%s %+v: %v (%s), want %v", tc.mode, tc.rules, d.Behavior, d.Reason, tc.want)
		}
	}
}
