package policy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func settingsFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// defaultMode "auto" (https://code.claude.com/docs/en/settings) needs a
// classifier, and disableAutoMode turns the mode off.
func TestAutoModeAvailability(t *testing.T) {
	home := t.TempDir()
	auto := settingsFile(t, `{"permissions": {"defaultMode": "auto"}}`)
	if _, err := NewEngine(Options{PolicyFile: auto, Home: home}); err == nil || !strings.Contains(err.Error(), "needs a classifier") {
		t.Fatalf("defaultMode auto without a classifier: %v", err)
	}
	e, err := NewEngine(Options{PolicyFile: auto, Home: home, AutoMode: true})
	if err != nil || e.DefaultMode() != "auto" || e.CheckAuto() != nil {
		t.Fatalf("with a classifier: %v, %q", err, e.DefaultMode())
	}
	disabled := settingsFile(t, `{"permissions": {"disableAutoMode": "disable"}}`)
	e, err = NewEngine(Options{PolicyFile: disabled, Home: home, AutoMode: true})
	if err != nil || e.CheckAuto() == nil || !strings.Contains(e.CheckAuto().Error(), "disableAutoMode") {
		t.Fatalf("disableAutoMode: %v, %v", err, e.CheckAuto())
	}
	both := settingsFile(t, `{"permissions": {"defaultMode": "auto", "disableAutoMode": "disable"}}`)
	if _, err := NewEngine(Options{PolicyFile: both, Home: home, AutoMode: true}); err == nil {
		t.Fatal("defaultMode auto with disableAutoMode was accepted")
	}
}

// The rules decide an auto mode session as a default one: what would ask
// still asks (the engine then puts it to the classifier), deny and ask
// rules keep their answers.
func TestAutoModeDecidesLikeDefault(t *testing.T) {
	e, err := NewEngine(Options{Home: t.TempDir(), AutoMode: true})
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	rules := SessionRules{CLIArg: Settings{Deny: []string{"Bash(curl *)"}, Ask: []string{"Bash(git push *)"}}}
	for cmd, want := range map[string]Behavior{"ls": Allow, "touch x": Ask, "curl x": Deny, "git push": Ask} {
		for _, mode := range []string{"default", "auto"} {
			d, err := e.Decide(context.Background(), Request{SessionID: "s-" + mode, Tool: "Bash", Args: map[string]any{"command": cmd},
				Mode: mode, Cwd: ws, Workspace: ws, Dirs: []string{ws}, Rules: rules})
			if err != nil || d.Behavior != want {
				t.Errorf("%s in %s mode: %v %+v", cmd, mode, err, d)
			}
		}
	}
}

func TestBroadAllowsDroppedInAuto(t *testing.T) {
	for text, want := range map[string]bool{
		"Bash": true, "Bash(*)": true,
		"Bash(python*)": true, "Bash(python3 *)": true, "Bash(py*)": true, "Bash(node:*)": true, "Bash(bash *)": true,
		"Bash(npm run *)": true, "Bash(npm run:*)": true, "Bash(npx *)": true, "Bash(yarn run *)": true, "Bash(uv run *)": true,
		"Agent": true, "Monitor": true,
		"Bash(npm test)": false, "Bash(npm run test)": false, "Bash(npm run test *)": false, "Bash(git status *)": false,
		"Bash(python3 manage.py test)": false, "Bash(make test)": false, "Read": false, "Edit(./src/**)": false, "WebFetch": false,
	} {
		r, err := ParseRule(text, Allow, SourceCLIArg, "/")
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if got := broadInAuto(r); got != want {
			t.Errorf("%s: dropped %v, want %v", text, got, want)
		}
	}
}

// In auto mode Bash(*) no longer lets everything through: the call asks,
// and the classifier decides. A specific rule still allows. Leaving auto
// mode brings the broad rule back.
func TestAutoModeIgnoresBroadAllows(t *testing.T) {
	e, err := NewEngine(Options{Home: t.TempDir(), AutoMode: true})
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	rules := SessionRules{CLIArg: Settings{Allow: []string{"Bash(*)", "Bash(npm test)"}}}
	decide := func(mode, cmd string) Behavior {
		d, err := e.Decide(context.Background(), Request{SessionID: "s1", Tool: "Bash", Args: map[string]any{"command": cmd},
			Mode: mode, Cwd: ws, Workspace: ws, Dirs: []string{ws}, Rules: rules, Revision: 1})
		if err != nil {
			t.Fatal(err)
		}
		return d.Behavior
	}
	if got := decide("auto", "touch x"); got != Ask {
		t.Errorf("auto, touch: %v", got)
	}
	if got := decide("auto", "npm test"); got != Allow {
		t.Errorf("auto, npm test: %v", got)
	}
	if got := decide("default", "touch x"); got != Allow {
		t.Errorf("default, touch (same revision): %v", got)
	}
}
