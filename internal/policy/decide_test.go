package policy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type decideCase struct {
	name   string
	mode   string
	tool   string
	args   map[string]any
	rules  SessionRules
	want   Behavior
	source string // expected Source of the decision, when set
}

func newTestEngine(t *testing.T) (*Engine, string) {
	t.Helper()
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	for _, d := range []string{"src", "secrets", ".git"} {
		os.MkdirAll(filepath.Join(ws, d), 0o755)
	}
	os.WriteFile(filepath.Join(ws, "secrets", "key"), []byte("k"), 0o600)
	os.Symlink(filepath.Join(ws, "secrets"), filepath.Join(ws, "innocent"))
	os.Symlink(filepath.Join(ws, ".git"), filepath.Join(ws, "gitlink"))
	e, err := NewEngine(Options{Home: "/home/agent"})
	if err != nil {
		t.Fatal(err)
	}
	return e, ws
}

func allowRules(r ...string) SessionRules { return SessionRules{CLIArg: Settings{Allow: r}} }
func denyRules(r ...string) SessionRules  { return SessionRules{CLIArg: Settings{Deny: r}} }

func bashCmd(c string) map[string]any { return map[string]any{"command": c} }

func runDecide(t *testing.T, e *Engine, ws string, tc decideCase) Decision {
	t.Helper()
	args := map[string]any{}
	for k, v := range tc.args {
		if s, ok := v.(string); ok {
			v = strings.ReplaceAll(s, "$WS", ws)
		}
		args[k] = v
	}
	mode := tc.mode
	if mode == "" {
		mode = "default"
	}
	d, err := e.Decide(context.Background(), Request{
		SessionID: "s-" + tc.name, Tool: tc.tool, Args: args, Mode: mode,
		Cwd: ws, Workspace: ws, Dirs: []string{ws}, Rules: tc.rules,
		ReadOnly: tc.tool == "TodoRead",
	})
	if err != nil {
		t.Fatalf("%s: %v", tc.name, err)
	}
	return d
}

func checkCases(t *testing.T, cases []decideCase) {
	e, ws := newTestEngine(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := runDecide(t, e, ws, tc)
			if d.Behavior != tc.want || (tc.source != "" && d.Source != tc.source) {
				t.Fatalf("got %v (%s: %s), want %v %s", d.Behavior, d.Source, d.Reason, tc.want, tc.source)
			}
		})
	}
}

// https://code.claude.com/docs/en/permission-modes ("Available modes") and
// https://code.claude.com/docs/en/permissions (tool-type table).
func TestModes(t *testing.T) {
	write := func(p string) map[string]any { return map[string]any{"file_path": p, "content": "x"} }
	checkCases(t, []decideCase{
		// default: reads inside the working directories and read-only Bash run; the rest asks.
		{name: "default read inside", tool: "Read", args: map[string]any{"file_path": "$WS/src/a.go"}, want: Allow, source: "workingDirectory"},
		{name: "default write asks", tool: "Write", args: write("$WS/src/a.go"), want: Ask},
		{name: "default read-only bash", tool: "Bash", args: bashCmd("ls -la src && cat src/a.go | wc -l"), want: Allow},
		{name: "default other bash asks", tool: "Bash", args: bashCmd("npm test"), want: Ask},
		// acceptEdits: edits and mkdir/touch/rm/rmdir/mv/cp/sed inside the working directories.
		{name: "acceptEdits write inside", mode: "acceptEdits", tool: "Write", args: write("$WS/src/a.go"), want: Allow, source: "mode"},
		{name: "acceptEdits write outside", mode: "acceptEdits", tool: "Write", args: write("/etc/passwd"), want: Ask},
		{name: "acceptEdits mkdir inside", mode: "acceptEdits", tool: "Bash", args: bashCmd("mkdir -p build/out && touch build/out/x"), want: Allow},
		{name: "acceptEdits mkdir outside", mode: "acceptEdits", tool: "Bash", args: bashCmd("mkdir /tmp/elsewhere"), want: Ask},
		{name: "acceptEdits other command", mode: "acceptEdits", tool: "Bash", args: bashCmd("npm install"), want: Ask},
		// Protected paths: never auto-approved outside bypass, not even by allow rules.
		{name: "acceptEdits protected .git", mode: "acceptEdits", tool: "Edit", args: map[string]any{"file_path": "$WS/.git/config"}, want: Ask, source: "protectedPath"},
		{name: "allow rule does not cover protected", tool: "Write", args: write("$WS/.bashrc"), rules: allowRules("Edit(**)"), want: Ask, source: "protectedPath"},
		{name: "dontAsk protected denied", mode: "dontAsk", tool: "Write", args: write("$WS/.mcp.json"), rules: allowRules("Edit(**)"), want: Deny},
		{name: "protected through a symlink", mode: "acceptEdits", tool: "Write", args: write("$WS/gitlink/hooks/pre-commit"), want: Ask, source: "protectedPath"},
		{name: "bypass protected allowed", mode: "bypassPermissions", tool: "Write", args: write("$WS/.claude/settings.json"), want: Allow},
		// plan: no edits even when an allow rule matches; read-only commands run.
		{name: "plan edit with allow rule", mode: "plan", tool: "Write", args: write("$WS/src/a.go"), rules: allowRules("Edit(./src/**)"), want: Ask, source: "mode"},
		{name: "plan touch with allow rule", mode: "plan", tool: "Bash", args: bashCmd("touch x"), rules: allowRules("Bash(touch *)"), want: Ask},
		{name: "plan read-only", mode: "plan", tool: "Bash", args: bashCmd("grep -rn TODO src"), want: Allow},
		// dontAsk: whatever would ask is denied; allow rules still allow; ask rules deny.
		{name: "dontAsk unknown denied", mode: "dontAsk", tool: "Bash", args: bashCmd("npm test"), want: Deny},
		{name: "dontAsk allowed by rule", mode: "dontAsk", tool: "Bash", args: bashCmd("npm test"), rules: allowRules("Bash(npm test)"), want: Allow},
		{name: "dontAsk ask rule denied", mode: "dontAsk", tool: "Bash", args: bashCmd("git push"), rules: SessionRules{CLIArg: Settings{Ask: []string{"Bash(git push *)"}, Allow: []string{"Bash(git *)"}}}, want: Deny},
		// bypassPermissions: deny rules deny, ask rules ask, critical-path removal asks.
		{name: "bypass runs anything", mode: "bypassPermissions", tool: "Bash", args: bashCmd("npm install && make"), want: Allow},
		{name: "bypass deny rule", mode: "bypassPermissions", tool: "Bash", args: bashCmd("rm -f x"), rules: denyRules("Bash(rm *)"), want: Deny},
		{name: "bypass ask rule", mode: "bypassPermissions", tool: "Bash", args: bashCmd("git push origin main"), rules: SessionRules{CLIArg: Settings{Ask: []string{"Bash(git push *)"}}}, want: Ask},
		{name: "bypass rm root asks", mode: "bypassPermissions", tool: "Bash", args: bashCmd("rm -rf /"), want: Ask, source: "criticalPath"},
		{name: "bypass rm home asks", mode: "bypassPermissions", tool: "Bash", args: bashCmd("rm -rf ~"), want: Ask, source: "criticalPath"},
		{name: "bypass rm workspace asks", mode: "bypassPermissions", tool: "Bash", args: bashCmd("rm -rf $WS"), want: Ask, source: "criticalPath"},
		{name: "bypass rm workspace by dot", mode: "bypassPermissions", tool: "Bash", args: bashCmd("rm -rf ."), want: Ask, source: "criticalPath"},
		{name: "critical rm hidden in substitution", mode: "bypassPermissions", tool: "Bash", args: bashCmd(`echo "$(rm -rf ~)"`), want: Ask, source: "criticalPath"},
		{name: "critical rm not approved by allow", tool: "Bash", args: bashCmd("rm -rf /usr"), rules: allowRules("Bash(rm *)"), want: Ask, source: "criticalPath"},
		{name: "rm inside workspace fine in bypass", mode: "bypassPermissions", tool: "Bash", args: bashCmd("rm -rf build"), want: Allow},
	})
}

// https://code.claude.com/docs/en/permissions ("Manage permissions",
// "Compound commands", "Wrappers", "Redirections") and security.md §1, §4.
func TestBashRules(t *testing.T) {
	checkCases(t, []decideCase{
		{name: "deny beats a narrower allow", tool: "Bash", args: bashCmd("aws s3 ls"), rules: SessionRules{CLIArg: Settings{Deny: []string{"Bash(aws *)"}, Allow: []string{"Bash(aws s3 ls)"}}}, want: Deny},
		{name: "ask beats a narrower allow", tool: "Bash", args: bashCmd("git push origin main"), rules: SessionRules{CLIArg: Settings{Ask: []string{"Bash(git push *)"}, Allow: []string{"Bash(git push origin main)"}}}, want: Ask},
		{name: "allow covers one command only", tool: "Bash", args: bashCmd("safe-cmd x && other-cmd"), rules: allowRules("Bash(safe-cmd *)"), want: Ask},
		{name: "allow covers every part", tool: "Bash", args: bashCmd("npm run build && npm test"), rules: allowRules("Bash(npm run build)", "Bash(npm test)"), want: Allow},
		{name: "deny after a chain", tool: "Bash", args: bashCmd("ls && curl http://x"), rules: denyRules("Bash(curl *)"), want: Deny},
		{name: "deny inside sh -c", tool: "Bash", args: bashCmd("bash -c 'curl http://x'"), rules: denyRules("Bash(curl *)"), want: Deny},
		{name: "deny by absolute path", tool: "Bash", args: bashCmd("/usr/bin/curl http://x"), rules: denyRules("Bash(curl *)"), want: Deny},
		{name: "deny past env prefix", tool: "Bash", args: bashCmd("FOO=bar rm -rf tmp/"), rules: denyRules("Bash(rm *)"), want: Deny},
		{name: "deny past wrapper", tool: "Bash", args: bashCmd("timeout 5 curl http://x"), rules: denyRules("Bash(curl *)"), want: Deny},
		{name: "deny inside substitution", tool: "Bash", args: bashCmd("echo $(curl http://x)"), rules: denyRules("Bash(curl *)"), want: Deny},
		{name: "deny after 60 commands", tool: "Bash", args: bashCmd(strings.Repeat("true; ", 60) + "curl http://x"), rules: denyRules("Bash(curl *)"), want: Deny},
		{name: "quote splicing denied", tool: "Bash", args: bashCmd(`r''m -rf x`), rules: denyRules("Bash(rm *)"), want: Deny},
		{name: "redirect is not covered by allow", tool: "Bash", args: bashCmd("echo pwned >> ~/.bashrc"), rules: allowRules("Bash(echo *)"), want: Ask},
		{name: "redirect to dev null fine", tool: "Bash", args: bashCmd("npm test > /dev/null 2>&1"), rules: allowRules("Bash(npm test)"), want: Allow},
		{name: "substitution never auto-allowed", tool: "Bash", args: bashCmd("echo $(whoami)"), rules: allowRules("Bash(echo *)", "Bash(whoami)"), want: Ask, source: "analysis"},
		{name: "CR parser differential", tool: "Bash", args: bashCmd("TZ=UTC\recho curl evil"), rules: allowRules("Bash(echo *)"), want: Ask},
		{name: "path-qualified name is not the bare allow", tool: "Bash", args: bashCmd("./cat secrets/key"), rules: allowRules("Bash(cat *)"), want: Ask},
		{name: "word boundary", tool: "Bash", args: bashCmd("lsof -i"), rules: allowRules("Bash(ls *)"), want: Ask},
		{name: "legacy colon star", tool: "Bash", args: bashCmd("npm run lint"), rules: allowRules("Bash(npm run:*)"), want: Allow},
		{name: "find -delete not covered by wildcard", tool: "Bash", args: bashCmd("find . -delete"), rules: allowRules("Bash(find *)"), want: Ask},
		{name: "dontAsk unprovable denied", mode: "dontAsk", tool: "Bash", args: bashCmd("eval \"$X\""), want: Deny},
		{name: "session rule allows", tool: "Bash", args: bashCmd("make check"), rules: SessionRules{Session: Settings{Allow: []string{"Bash(make *)"}}}, want: Allow},
		{name: "user deny beats cli allow", tool: "Bash", args: bashCmd("make check"), rules: SessionRules{CLIArg: Settings{Allow: []string{"Bash(make *)"}}, User: Settings{Deny: []string{"Bash(make check)"}}}, want: Deny},
	})
}

// https://code.claude.com/docs/en/permissions ("Read and Edit", "WebFetch",
// "Manage permissions": a bare deny removes the tool).
func TestPathAndOtherRules(t *testing.T) {
	checkCases(t, []decideCase{
		{name: "read deny blocks edit", tool: "Edit", args: map[string]any{"file_path": "$WS/secrets/key"}, rules: denyRules("Read(./secrets/**)"), mode: "acceptEdits", want: Deny},
		{name: "read deny blocks grep", tool: "Grep", args: map[string]any{"pattern": "x", "path": "$WS/secrets"}, rules: denyRules("Read(./secrets/**)"), want: Deny},
		{name: "deny follows a symlink", tool: "Read", args: map[string]any{"file_path": "$WS/innocent/key"}, rules: denyRules("Read(./secrets/**)"), want: Deny},
		{name: "bare filename at any depth", tool: "Read", args: map[string]any{"file_path": "$WS/src/.env"}, rules: denyRules("Read(.env)"), want: Deny},
		{name: "edit allow rule", tool: "Write", args: map[string]any{"file_path": "$WS/src/a.go", "content": ""}, rules: allowRules("Edit(./src/**)"), want: Allow},
		{name: "edit allow elsewhere asks", tool: "Write", args: map[string]any{"file_path": "$WS/docs/a.md", "content": ""}, rules: allowRules("Edit(./src/**)"), want: Ask},
		{name: "home redirect obeys edit deny", mode: "bypassPermissions", tool: "Bash", args: bashCmd("echo x >> ~/.ssh/authorized_keys"), rules: denyRules("Edit(~/.ssh/**)"), want: Deny},
		{name: "computed redirect asks when write denies exist", mode: "bypassPermissions", tool: "Bash", args: bashCmd("echo x > \"$F\""), rules: denyRules("Edit(~/.ssh/**)"), want: Ask, source: "redirection"},
		{name: "bypass unprovable with bash deny asks", mode: "bypassPermissions", tool: "Bash", args: bashCmd("eval \"$CMD\""), rules: denyRules("Bash(curl *)"), want: Ask, source: "analysis"},
		{name: "bypass unprovable without deny runs", mode: "bypassPermissions", tool: "Bash", args: bashCmd("eval \"$CMD\""), want: Allow},
		{name: "redirect target obeys edit deny", mode: "bypassPermissions", tool: "Bash", args: bashCmd("echo x > secrets/key"), rules: denyRules("Edit(./secrets/**)"), want: Deny},
		{name: "webfetch domain allow", tool: "WebFetch", args: map[string]any{"url": "https://docs.example.com/a", "prompt": "p"}, rules: allowRules("WebFetch(domain:*.example.com)"), want: Allow},
		{name: "webfetch lookalike", tool: "WebFetch", args: map[string]any{"url": "https://docs.example.com.evil.io/a", "prompt": "p"}, rules: allowRules("WebFetch(domain:*.example.com)"), want: Ask},
		{name: "webfetch bare deny removes tool", mode: "bypassPermissions", tool: "WebFetch", args: map[string]any{"url": "https://example.com", "prompt": "p"}, rules: denyRules("WebFetch"), want: Deny},
		{name: "mcp server deny", mode: "bypassPermissions", tool: "mcp__db__query", args: map[string]any{"sql": "x"}, rules: denyRules("mcp__db"), want: Deny},
		{name: "mcp tool allow", tool: "mcp__db__query", args: map[string]any{"sql": "x"}, rules: allowRules("mcp__db__query"), want: Allow},
		{name: "generic unknown asks", tool: "mcp__db__drop", args: map[string]any{}, rules: allowRules("mcp__db__query"), want: Ask},
	})
}

func TestDecisionExplainsParts(t *testing.T) {
	e, ws := newTestEngine(t)
	d := runDecide(t, e, ws, decideCase{name: "parts", tool: "Bash", args: bashCmd("ls && npm test && rm -rf /"), rules: allowRules("Bash(npm test)")})
	if d.Behavior != Ask || d.Source != "criticalPath" || len(d.Parts) != 3 {
		t.Fatalf("decision %+v", d)
	}
	want := []Behavior{Allow, Allow, Ask}
	for i, p := range d.Parts {
		if p.Behavior != want[i] {
			t.Errorf("part %d %q = %v (%s)", i, p.Command, p.Behavior, p.Reason)
		}
	}
	if d.Parts[1].Rule != "Bash(npm test)" || d.Parts[1].Source != "cliArg" {
		t.Errorf("part 1 provenance %+v", d.Parts[1])
	}
	if len(d.Warnings) == 0 {
		t.Error("no destructive warning for rm -rf /")
	}
}

// With StrictRules a rule that does not parse refuses the whole set; by
// default (Claude Code's behaviour) it is skipped with a warning, and the
// other rules stay in force.
func TestBadRules(t *testing.T) {
	strict, err := NewEngine(Options{Home: "/home/agent", StrictRules: true})
	if err != nil {
		t.Fatal(err)
	}
	e, ws := newTestEngine(t)
	bad := []SessionRules{
		allowRules("Bash(npm test", "Read"),
		allowRules("*"),
		denyRules("Write(docs/**)"),
		allowRules("Agent(modle:x)", "Task(Explore)", "mcp__*"),
	}
	for _, rules := range bad {
		if err := strict.Check(ws, rules); err == nil {
			t.Errorf("strict: rules %+v accepted", rules)
		}
		if err := e.Check(ws, rules); err != nil {
			t.Errorf("lenient: rules %+v refused: %v", rules, err)
		}
		if w := e.Warnings(ws, rules); len(w) == 0 || !strings.Contains(w[0], "ignored") {
			t.Errorf("lenient: rules %+v: warnings %q", rules, w)
		}
	}
	for _, eng := range []*Engine{e, strict} {
		good := allowRules("Bash(npm test)", "Read(./src/**)", "mcp__server__tool", "Bash(GOFLAGS=-count=1 go test:*)")
		if err := eng.Check(ws, good); err != nil {
			t.Errorf("good rules refused: %v", err)
		}
		if w := eng.Warnings(ws, good); len(w) != 0 {
			t.Errorf("good rules warned: %q", w)
		}
	}
	// The good rule next to a bad one still decides.
	d := runDecide(t, e, ws, decideCase{name: "bad-next-to-good", tool: "Bash", args: bashCmd("npm test"),
		rules: SessionRules{CLIArg: Settings{Allow: []string{"Bash(npm test)"}, Deny: []string{"Bash(npm test"}}}})
	if d.Behavior != Allow {
		t.Errorf("npm test next to a skipped rule: %v (%s)", d.Behavior, d.Reason)
	}
}

// https://code.claude.com/docs/en/permissions ("Wrappers"): exec wrappers
// are approved only by an exact rule for the whole command.
func TestExactRuleApprovesWrappedCommand(t *testing.T) {
	checkCases(t, []decideCase{
		{name: "prefix rule does not cover setsid", tool: "Bash", args: bashCmd("setsid make serve"), rules: allowRules("Bash(setsid *)"), want: Ask},
		{name: "exact rule covers it", tool: "Bash", args: bashCmd("setsid make serve"), rules: allowRules("Bash(setsid make serve)"), want: Allow},
	})
}

// A bad rule in the operator's settings file does not stop the server by
// default: it is skipped and named in StartWarnings.
func TestBadRuleInPolicyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte(`{"permissions": {"allow": ["Write(docs/**)", "Bash(npm test)"], "deny": ["Bash(rm"]}}`), 0o644)
	e, err := NewEngine(Options{PolicyFile: path, Home: "/home/agent"})
	if err != nil {
		t.Fatalf("lenient engine refused the file: %v", err)
	}
	if w := e.StartWarnings(); len(w) != 2 {
		t.Errorf("start warnings %q, want two", w)
	}
	if _, err := NewEngine(Options{PolicyFile: path, Home: "/home/agent", StrictRules: true}); err == nil {
		t.Error("strict engine accepted the file")
	}
}

// Claude Code 2.1.332 runs these without asking in default mode, and asks
// for the variants that write, run something else or read outside.
func TestReadOnlyBashDecisions(t *testing.T) {
	var cases []decideCase
	for _, c := range []string{
		"[ -f missing ]", "[[ -f missing ]]", "test -f x", "echo x | test -f missing",
		"cmp a b", "od -c f | head -3", "sleep 1", "timeout 1 sleep 3", "timeout -s KILL 5 cat x",
		"echo a.txt | xargs grep zzz", "echo a.txt | xargs wc -l", "echo a | xargs",
		"echo /etc/hostname | xargs grep x",
	} {
		cases = append(cases, decideCase{name: c, tool: "Bash", args: bashCmd(c), want: Allow, source: "readOnly"})
	}
	for _, c := range []string{
		"xargs rm", "ls | xargs rm -f", "xargs -I{} sh -c 'rm {}'", "echo a.txt | xargs cat",
		"echo a | xargs sort", "xargs -n1 grep x", "timeout 5 rm x", "[[ -v x[$(touch y)] ]]",
		"[[ $(rm x) ]]", "test -f x && rm y", "[ -f x ] > out", "cmp /etc/passwd a",
		"od -c /etc/shadow", "xargs grep x /etc/passwd",
	} {
		cases = append(cases, decideCase{name: c, tool: "Bash", args: bashCmd(c), want: Ask})
	}
	checkCases(t, cases)
}
