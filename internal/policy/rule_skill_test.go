package policy

import (
	"context"
	"fmt"
	"testing"
)

// askingSkills asks for the skills it names.
type askingSkills map[string]bool

func (a askingSkills) Asks(_, name string) bool { return a[name] }

func TestSkillRuleParse(t *testing.T) {
	for _, tc := range []struct {
		text string
		ok   bool
	}{
		{"Skill(greet)", true},
		{"Skill(/greet)", true},
		{"Skill(gr:*)", true},
		{"Skill(greet *)", true},
		{"Skill(plugin:review)", true},
		{"Skill(*)", true},
		{"Skill(a b)", false},
		{"Skill(gr*)", false},
		{"Skill( *)", false},
		{"Skill(args:--force)", true},
	} {
		_, err := ParseRule(tc.text, Deny, SourceCLIArg, "/ws")
		if (err == nil) != tc.ok {
			t.Errorf("ParseRule(%q) = %v, want ok %v", tc.text, err, tc.ok)
		}
	}
}

func TestSkillDecisions(t *testing.T) {
	e, err := NewEngine(Options{Home: "/home/agent", Skills: askingSkills{"tooly": true, "plain": false}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, skill, mode string
		rules             SessionRules
		want              Behavior
		message           string
	}{
		{"safe skill runs", "plain", "default", SessionRules{}, Allow, ""},
		{"unknown skill is left to the tool", "nope", "default", SessionRules{}, Allow, ""},
		{"granting skill asks", "tooly", "default", SessionRules{}, Ask,
			"Execute skill: tooly. The user can add the allow rule Skill(tooly) to .claude/settings.local.json to let it run without asking."},
		{"granting skill in dontAsk", "tooly", "dontAsk", SessionRules{}, Deny, fmt.Sprintf(msgDontAsk, "Skill") +
			" Execute skill: tooly. The user can add the allow rule Skill(tooly) to .claude/settings.local.json to let it run without asking."},
		{"granting skill in bypass", "tooly", "bypassPermissions", SessionRules{}, Allow, ""},
		{"allow rule", "tooly", "default", allowRules("Skill(tooly)"), Allow, ""},
		{"allow rule with slash", "/tooly", "default", allowRules("Skill(tooly)"), Allow, ""},
		{"deny rule", "plain", "default", denyRules("Skill(plain)"), Deny, skillDenied},
		{"deny rule, slash in call", "/plain", "default", denyRules("Skill(plain)"), Deny, skillDenied},
		{"deny rule, slash in rule", "plain", "default", denyRules("Skill(/plain)"), Deny, skillDenied},
		{"deny prefix", "plainer", "default", denyRules("Skill(pla:*)"), Deny, skillDenied},
		{"deny prefix misses", "other", "default", denyRules("Skill(pla:*)"), Allow, ""},
		{"deny with args form", "plain", "default", denyRules("Skill(plain *)"), Deny, skillDenied},
		{"deny beats allow", "plain", "default", SessionRules{CLIArg: Settings{Allow: []string{"Skill(plain)"}, Deny: []string{"Skill(plain)"}}}, Deny, skillDenied},
		{"deny in bypass", "plain", "bypassPermissions", denyRules("Skill(plain)"), Deny, skillDenied},
		{"other skill's deny", "plain", "default", denyRules("Skill(tooly)"), Allow, ""},
		{"named ask rule is not consulted", "plain", "default", SessionRules{CLIArg: Settings{Ask: []string{"Skill(plain)"}}}, Allow, ""},
		{"tool-wide ask rule asks", "plain", "default", SessionRules{CLIArg: Settings{Ask: []string{"Skill"}}}, Ask, ""},
		{"bare deny removes the tool", "plain", "default", denyRules("Skill"), Deny, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := e.Decide(context.Background(), Request{
				SessionID: "s-" + tc.name, Tool: "Skill", Args: map[string]any{"skill": tc.skill}, Mode: tc.mode,
				Cwd: "/ws", Workspace: "/ws", Dirs: []string{"/ws"}, Rules: tc.rules,
			})
			if err != nil {
				t.Fatal(err)
			}
			if d.Behavior != tc.want {
				t.Fatalf("decision %v (%s), want %v", d.Behavior, d.Reason, tc.want)
			}
			if tc.message != "" && d.Message != tc.message {
				t.Errorf("message %q, want %q", d.Message, tc.message)
			}
		})
	}
}

func TestSkillRulesNeedACatalogToAllow(t *testing.T) {
	e, err := NewEngine(Options{Home: "/home/agent"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := e.Decide(context.Background(), Request{SessionID: "s", Tool: "Skill", Args: map[string]any{"skill": "x"},
		Mode: "default", Cwd: "/ws", Workspace: "/ws", Dirs: []string{"/ws"}})
	if err != nil || d.Behavior != Ask {
		t.Fatalf("without a catalog: %v %v, want ask", d.Behavior, err)
	}
}

func TestWorktreeIsolatesWrites(t *testing.T) {
	e, err := NewEngine(Options{Home: "/home/agent"})
	if err != nil {
		t.Fatal(err)
	}
	wt := "/ws/.claude/worktrees/feat"
	for _, tc := range []struct {
		tool, path string
		want       Behavior
		isolated   bool
	}{
		{"Write", "/ws/main.txt", Deny, true},
		{"Edit", "/ws/src/a.go", Deny, true},
		{"Write", wt + "/b.txt", Allow, false},
		{"Read", "/ws/main.txt", Ask, false},
		{"Write", "/elsewhere/x", Ask, false},
	} {
		d, err := e.Decide(context.Background(), Request{SessionID: "wt", Tool: tc.tool, Args: map[string]any{"file_path": tc.path},
			Mode: "acceptEdits", Cwd: wt, Workspace: wt, Dirs: []string{wt}, Isolated: "/ws"})
		if err != nil {
			t.Fatal(err)
		}
		if d.Behavior != tc.want || (d.Source == "worktree") != tc.isolated {
			t.Errorf("%s %s: %v from %s (%s), want %v", tc.tool, tc.path, d.Behavior, d.Source, d.Reason, tc.want)
		}
	}
}
