package skill

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

const greet = "---\nname: greet\ndescription: Greets someone by name\nargument-hint: [name]\n---\n\nSay hello to $ARGUMENTS warmly.\nFirst: $0 then $1 and $ARGUMENTS[1].\n"

// TestExpand holds the texts Claude Code 2.1.332 sent the model for these
// skills and arguments (cases_skills.json, the text block after the
// tool_result).
func TestExpand(t *testing.T) {
	s, err := parse("greet", "/d", []byte(greet))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ args, want string }{
		{"Ada Lovelace", "Say hello to Ada Lovelace warmly.\nFirst: Ada then Lovelace and Lovelace.\n"},
		{`a "b c" d`, "Say hello to a \"b c\" d warmly.\nFirst: a then b c and b c.\n"},
		{"", "Say hello to  warmly.\nFirst: $0 then $1 and $ARGUMENTS[1].\n"},
	} {
		if got := expand(s.Body, tc.args, "/d", "sid"); got != tc.want {
			t.Errorf("args %q:\n got %q\nwant %q", tc.args, got, tc.want)
		}
	}
	plain, _ := parse("plain", "/d", []byte("Do the plain thing.\n"))
	if got := expand(plain.Body, "x y", "/d", "sid"); got != "Do the plain thing.\n\n\nARGUMENTS: x y" {
		t.Errorf("plain: %q", got)
	}
	ren, _ := parse("renamed", "/skills/renamed", []byte("---\nname: other-name\n---\nDir ${CLAUDE_SKILL_DIR} session ${CLAUDE_SESSION_ID}.\n"))
	if got := expand(ren.Body, "", ren.Dir, "sid"); got != "Dir /skills/renamed session sid.\n" || ren.Alias != "other-name" {
		t.Errorf("renamed: %q alias %q", got, ren.Alias)
	}
}

func TestParseSafety(t *testing.T) {
	for _, tc := range []struct {
		text           string
		safe, disabled bool
	}{
		{greet, true, false},
		{"no frontmatter\n", true, false},
		{"---\ndescription: x\nallowed-tools: Bash(echo *)\n---\nbody\n", false, false},
		{"---\ndescription: x\nhooks:\n  PreToolUse: []\n---\nbody\n", false, false},
		{"---\nmodel: haiku\nwhen_to_use: always\n---\nbody\n", true, false},
		{"---\ndisable-model-invocation: true\n---\nbody\n", true, true},
	} {
		s, err := parse("x", "/d", []byte(tc.text))
		if err != nil {
			t.Fatal(err)
		}
		if s.Safe != tc.safe || s.ModelDisabled != tc.disabled {
			t.Errorf("%q: safe %v disabled %v", tc.text, s.Safe, s.ModelDisabled)
		}
	}
	if _, err := parse("x", "/d", []byte("---\n: [\n---\nbody\n")); err == nil {
		t.Error("frontmatter that is not YAML was accepted")
	}
}

func TestSplitArgs(t *testing.T) {
	got := strings.Join(splitArgs(`a "b c" 'd e' f\ g  "" h`), "|")
	if got != "a|b c|d e|f g||h" {
		t.Errorf("splitArgs = %q", got)
	}
}

func TestCatalog(t *testing.T) {
	op, ws, outside := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(op, "deploy", "SKILL.md"), "---\ndescription: operator deploy\n---\nOperator steps.\n")
	write(t, filepath.Join(ws, ".claude", "skills", "deploy", "SKILL.md"), "Workspace steps.\n")
	write(t, filepath.Join(ws, ".claude", "skills", "local", "SKILL.md"), "---\nallowed-tools: Bash\n---\nLocal.\n")
	write(t, filepath.Join(outside, "secret", "SKILL.md"), "Secret.\n")
	// Links that lead out of the workspace are not followed.
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(ws, ".claude", "skills", "linked"))

	c := NewCatalog([]string{op}, true)
	if s, err := c.Find(ws, "deploy"); err != nil || s.Body != "Operator steps.\n" {
		t.Fatalf("operator's deploy: %+v %v", s, err)
	}
	if s, err := c.Find(ws, "local"); err != nil || s.Safe || s.Dir != filepath.Join(ws, ".claude", "skills", "local") {
		t.Fatalf("workspace's local: %+v %v", s, err)
	}
	if !c.Asks(ws, "local") || !c.Asks(ws, "/local") || c.Asks(ws, "deploy") || c.Asks(ws, "nope") {
		t.Error("Asks")
	}
	for _, bad := range []string{"linked", "../secret", "..", ".claude", "a/b", ""} {
		if _, err := c.Find(ws, bad); err == nil {
			t.Errorf("Find(%q) found something", bad)
		}
	}
	// The .claude/skills directory itself a link out: nothing found.
	ws2 := t.TempDir()
	os.MkdirAll(filepath.Join(ws2, ".claude"), 0o755)
	os.Symlink(outside, filepath.Join(ws2, ".claude", "skills"))
	if _, err := c.Find(ws2, "secret"); err == nil {
		t.Error("a skill was read through a linked .claude/skills")
	}
	if all, _ := c.List(ws2); len(all) != 1 || all[0].Name != "deploy" {
		t.Errorf("List through a link: %v", all)
	}
	// Without --workspace-skills only the operator's are offered.
	if _, err := NewCatalog([]string{op}, false).Find(ws, "local"); !errors.Is(err, ErrUnknown) {
		t.Errorf("workspace skill without the flag: %v", err)
	}
	// A SKILL.md past the size limit is refused.
	write(t, filepath.Join(ws, ".claude", "skills", "huge", "SKILL.md"), strings.Repeat("x", maxSkillBytes+1))
	if _, err := c.Find(ws, "huge"); err == nil || errors.Is(err, ErrUnknown) {
		t.Errorf("huge: %v", err)
	}
}

func TestTool(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	write(t, filepath.Join(env.Cwd, ".claude", "skills", "greet", "SKILL.md"), greet)
	write(t, filepath.Join(env.Cwd, ".claude", "skills", "hidden", "SKILL.md"), "---\ndisable-model-invocation: true\n---\nx\n")
	tl := New(NewCatalog(nil, true))
	res, err := tooltest.Run(t, tl, env, map[string]any{"skill": "/greet", "args": "Ada Lovelace"})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(env.Cwd, ".claude", "skills", "greet")
	if tooltest.Text(res) != "Launching skill: greet" || len(res.ModelContext) != 1 ||
		res.ModelContext[0] != "Base directory for this skill: "+dir+"\n\nSay hello to Ada Lovelace warmly.\nFirst: Ada then Lovelace and Lovelace.\n" {
		t.Fatalf("result %q %q", tooltest.Text(res), res.ModelContext)
	}
	for _, tc := range []struct{ skill, want string }{
		{"nope", "Unknown skill: nope"},
		{"gret", "Unknown skill: gret. Did you mean greet?"},
		{"", "Invalid skill format: "},
		{"hidden", "Skill hidden cannot be used with Skill tool due to disable-model-invocation."},
	} {
		_, err := tooltest.Run(t, tl, env, map[string]any{"skill": tc.skill})
		var te *tool.Error
		if !errors.As(err, &te) || !strings.HasPrefix(te.Msg, tc.want) || te.Bare {
			t.Errorf("%q: %v, want %q", tc.skill, err, tc.want)
		}
	}
}
