package policy

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseRuleErrors(t *testing.T) {
	tests := []struct {
		text    string
		b       Behavior
		root    string
		wantErr string
	}{
		// security.md §1 #6 ; §4 R10 (control characters)
		{text: "Bash(ls\rrm)", b: Deny, wantErr: "control character"},
		// security.md §4 R10
		{text: "Bash(ls\x00)", b: Deny, wantErr: "control character"},
		// security.md §4 R10
		{text: "Bash(ls\nrm)", b: Allow, wantErr: "control character"},
		// security.md §4 R10 (bidi override)
		{text: "Bash(ls \u202erm)", b: Allow, wantErr: "bidi"},
		// security.md §4 R10 (zero-width)
		{text: "Bash(g\u200bit)", b: Allow, wantErr: "invisible"},
		// security.md §4 R10 (no-break space)
		{text: "Bash(git\u00a0status)", b: Allow, wantErr: "no-break space"},
		// security.md §10 P12 (invalid UTF-8)
		{text: "Bash(\xff)", b: Deny, wantErr: "UTF-8"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{text: "", b: Deny, wantErr: "empty rule"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{text: "Bash(ls", b: Deny, wantErr: "unbalanced"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{text: "Bash(ls))", b: Deny, wantErr: "unbalanced"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{text: "Bash(echo (x)", b: Deny, wantErr: "unbalanced"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (whitespace only around the ':')
		{text: "Agent( model:opus)", b: Deny, wantErr: "takes no specifier"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{text: "Bash)", b: Deny, wantErr: "unbalanced"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{text: "(ls)", b: Deny, wantErr: "empty tool name"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{text: "Bash()", b: Deny, wantErr: "empty specifier"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{text: " Bash", b: Deny, wantErr: "whitespace"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{text: "Bash (ls)", b: Deny, wantErr: "tool names are"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (canonical names only)
		{text: "bash(rm *)", b: Deny, wantErr: "did you mean Bash"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (canonical names only)
		{text: "webfetch", b: Deny, wantErr: "did you mean WebFetch"},
		// https://code.claude.com/docs/en/permissions "Tool name wildcards"
		{text: "*", b: Allow, wantErr: "literal mcp__<server>__ prefix"},
		// https://code.claude.com/docs/en/permissions "Tool name wildcards"
		{text: "B*", b: Allow, wantErr: "literal mcp__<server>__ prefix"},
		// https://code.claude.com/docs/en/permissions "Tool name wildcards"
		{text: "mcp__*", b: Allow, wantErr: "literal mcp__<server>__ prefix"},
		// https://code.claude.com/docs/en/permissions "Tool name wildcards"
		{text: "mcp__git*__x", b: Allow, wantErr: "literal mcp__<server>__ prefix"},
		// https://code.claude.com/docs/en/permissions "Tool name wildcards"
		{text: "mcp__*(x:y)", b: Deny, wantErr: "glob takes no specifier"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (parameter rules: deny/ask only)
		{text: "Agent(model:opus)", b: Allow, wantErr: "only in deny and ask"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{text: "Bash(run_in_background:true)", b: Allow, wantErr: "only in deny and ask"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (primary fields)
		{text: "Bash(command:rm *)", b: Deny, wantErr: "primary field"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{text: "Read(file_path:/etc/*)", b: Deny, wantErr: "primary field"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{text: "Grep(path:/etc)", b: Deny, wantErr: "primary field"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{text: "NotebookEdit(notebook_path:x)", b: Ask, wantErr: "primary field"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{text: "WebFetch(url:https://x)", b: Deny, wantErr: "primary field"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (unknown field of a known tool)
		{text: "Agent(modle:opus)", b: Deny, wantErr: "takes no specifier"},
		// https://code.claude.com/docs/en/errors (Write(path) is never consulted)
		{text: "Write(docs/**)", b: Deny, wantErr: "Write(docs/**) is not matched by file permission checks — only Edit(path) rules are. Use Edit(docs/**) instead (Edit rules cover all file-editing tools)."},
		// https://code.claude.com/docs/en/permissions "Read and Edit"
		{text: "NotebookEdit(*.ipynb)", b: Allow, wantErr: "only Edit(path) rules are"},
		// https://code.claude.com/docs/en/permissions "Read and Edit"
		{text: "MultiEdit(src/**)", b: Ask, wantErr: "only Edit(path) rules are"},
		// https://code.claude.com/docs/en/permissions "Read and Edit"
		{text: "Glob(secrets/**)", b: Deny, wantErr: "only Read(path) rules are"},
		// https://code.claude.com/docs/en/permissions "Read and Edit" (Grep(path) treated like Glob(path))
		{text: "Grep(secrets/**)", b: Deny, wantErr: "only Read(path) rules are"},
		// https://code.claude.com/docs/en/tools-reference "Configure tools with permission rules and hooks" (bare name only)
		{text: "ExitPlanMode(x)", b: Deny, wantErr: "takes no specifier"},
		// https://code.claude.com/docs/en/permissions "MCP"
		{text: "mcp__github__get_issue(owner)", b: Deny, wantErr: "takes no specifier"},
		// https://code.claude.com/docs/en/permissions "WebFetch"
		{text: "WebFetch(example.com)", b: Allow, wantErr: "domain:host"},
		// security.md §9 ; §1 #15 (userinfo, escapes, controls in hosts)
		{text: "WebFetch(domain:example.com@evil.example)", b: Allow, wantErr: "only letters"},
		// security.md §9
		{text: "WebFetch(domain:example%2ecom)", b: Allow, wantErr: "only letters"},
		// security.md §9
		{text: `WebFetch(domain:example.com\evil)`, b: Allow, wantErr: "only letters"},
		// https://code.claude.com/docs/en/permissions "WebFetch"
		{text: "WebFetch(domain:)", b: Deny, wantErr: "empty domain"},
		// https://code.claude.com/docs/en/permissions "WebFetch"
		{text: "WebFetch(domain:a..b)", b: Deny, wantErr: "empty label"},
		// https://code.claude.com/docs/en/permissions "Read and Edit" (/path needs the source's anchor)
		{text: "Read(/secrets/**)", b: Deny, root: "", wantErr: "no anchor directory"},
		// https://code.claude.com/docs/en/permissions "Read and Edit" (gitignore has no braces)
		{text: "Read(*.{pem,key})", b: Deny, wantErr: "braces"},
		// https://code.claude.com/docs/en/permissions "Read and Edit" (gitignore negation)
		{text: "Read(!x)", b: Deny, wantErr: "negation"},
		// https://code.claude.com/docs/en/permissions "Read and Edit"
		{text: "Read(~alice/x)", b: Deny, wantErr: "~user"},
		// https://code.claude.com/docs/en/permissions "Read and Edit"
		{text: "Edit(src/../../etc)", b: Allow, wantErr: "segment"},
		// https://code.claude.com/docs/en/permissions "Read and Edit"
		{text: "Edit(src//x)", b: Allow, wantErr: "empty segment"},
		// https://code.claude.com/docs/en/permissions "Read and Edit"
		{text: "Read([a)", b: Deny, wantErr: "not a valid glob"},
		// https://code.claude.com/docs/en/permissions "Read and Edit"
		{text: "Read( x)", b: Deny, wantErr: "whitespace"},
		// An allow rule's assignments must be literal and followed by a command.
		{text: "Bash(FOO=* make *)", b: Allow, wantErr: "environment assignment"},
		{text: "Bash(FOO=1)", b: Allow, wantErr: "only environment assignments"},
		// https://code.claude.com/docs/en/permissions#wildcard-patterns
		{text: "Bash(:*)", b: Allow, wantErr: "empty command pattern"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{text: "Bash(" + strings.Repeat("a", maxRuleLen) + ")", b: Deny, wantErr: "longer than"},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			root := tc.root
			if root == "" && !strings.Contains(tc.wantErr, "anchor") {
				root = "/proj"
			}
			_, err := ParseRule(tc.text, tc.b, SourceProject, root)
			if err == nil {
				t.Fatalf("ParseRule(%q) succeeded, want error containing %q", tc.text, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %q does not contain %q", err, tc.wantErr)
			}
			var re *RuleError
			if !errors.As(err, &re) || re.Rule != tc.text || re.Source != SourceProject || re.Behavior != tc.b {
				t.Errorf("error %#v does not name the rule, its list and its source", err)
			}
		})
	}
}

func TestParseRuleKinds(t *testing.T) {
	tests := []struct {
		text string
		b    Behavior
		kind ruleKind
		tool string
		spec string
	}{
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{text: "Bash", b: Allow, kind: kindTool, tool: "Bash"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (Bash(*) ≡ Bash)
		{text: "Bash(*)", b: Deny, kind: kindTool, tool: "Bash", spec: "*"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{text: "Bash(npm run *)", b: Allow, kind: kindBash, tool: "Bash", spec: "npm run *"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (escaped parentheses)
		{text: `Bash(echo \(x\))`, b: Allow, kind: kindBash, tool: "Bash", spec: `echo \(x\)`},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (balanced parentheses)
		{text: "Bash(echo (x))", b: Allow, kind: kindBash, tool: "Bash", spec: "echo (x)"},
		// https://code.claude.com/docs/en/permissions "Read and Edit"
		{text: "Read(./.env)", b: Deny, kind: kindPath, tool: "Read", spec: "./.env"},
		// https://code.claude.com/docs/en/permissions "Read and Edit"
		{text: "Edit(//tmp/scratch.txt)", b: Allow, kind: kindPath, tool: "Edit", spec: "//tmp/scratch.txt"},
		// https://code.claude.com/docs/en/permissions "WebFetch"
		{text: "WebFetch(domain:example.com)", b: Allow, kind: kindDomain, tool: "WebFetch", spec: "domain:example.com"},
		// https://code.claude.com/docs/en/permissions "WebFetch" (domain:* ≡ bare)
		{text: "WebFetch(domain:*)", b: Deny, kind: kindTool, tool: "WebFetch", spec: "domain:*"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax"
		{text: "Agent(model:opus)", b: Deny, kind: kindParam, tool: "Agent", spec: "model:opus"},
		// https://code.claude.com/docs/en/permissions "Permission rule syntax" (Grep's dash fields)
		{text: "Grep(-i:true)", b: Ask, kind: kindParam, tool: "Grep", spec: "-i:true"},
		// https://code.claude.com/docs/en/permissions "MCP" (any field of a tool toold does not know)
		{text: "mcp__github__create_issue(repo:secret-*)", b: Deny, kind: kindParam, tool: "mcp__github__create_issue", spec: "repo:secret-*"},
		// https://code.claude.com/docs/en/permissions "Tool name wildcards"
		{text: "mcp__github__get_*", b: Allow, kind: kindTool, tool: "mcp__github__get_*"},
		// https://code.claude.com/docs/en/permissions "Tool name wildcards"
		{text: "*", b: Deny, kind: kindTool, tool: "*"},
		// https://code.claude.com/docs/en/permissions "MCP"
		{text: "mcp__puppeteer", b: Allow, kind: kindTool, tool: "mcp__puppeteer"},
		// https://code.claude.com/docs/en/permissions "Read and Edit" (a Read rule whose text has a colon but no Read field)
		{text: "Read(notes:2024.txt)", b: Deny, kind: kindPath, tool: "Read", spec: "notes:2024.txt"},
		// https://code.claude.com/docs/en/permissions#wildcard-patterns (colon literal mid-pattern)
		{text: "Bash(git:* push)", b: Deny, kind: kindBash, tool: "Bash", spec: "git:* push"},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			r, err := ParseRule(tc.text, tc.b, SourceUser, "/home/u/.claude")
			if err != nil {
				t.Fatal(err)
			}
			if r.kind != tc.kind || r.Tool != tc.tool || r.Spec != tc.spec || r.Text != tc.text || r.Behavior != tc.b ||
				r.Source != SourceUser || r.Root != "/home/u/.claude" {
				t.Errorf("got kind %d tool %q spec %q (%+v), want kind %d tool %q spec %q", r.kind, r.Tool, r.Spec, r, tc.kind, tc.tool, tc.spec)
			}
		})
	}
}

// FuzzParseRule: ParseRule never panics, and a rule that parses re-parses
// from its Text to an equal rule.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{
		"Bash", "Bash(*)", "Bash(npm run *)", "Bash(ls:*)", "Bash(git:* push)", `Bash(echo \(x\))`,
		"Read(./.env)", "Read(~/.ssh/**)", "Read(/secrets/**)", "Edit(//tmp/x)", "Edit(../shared/**)",
		"WebFetch(domain:*.example.com)", "WebFetch(domain:example.*)", "Agent(model:opus)", "Bash(timeout:*)",
		"mcp__github", "mcp__github__get_*", "*", "mcp__*", "Write(docs/**)", "Read([a-z]*.go)", "Grep(-i : true)",
		"Bash(a\\)", "Read(\\{x\\})", "Bash(* *)",
	} {
		for b := Allow; b <= Ask; b++ {
			f.Add(s, int(b))
		}
	}
	f.Fuzz(func(t *testing.T, text string, bi int) {
		// A hang is reported with its input instead of stalling the
		// fuzzer until its deadline.
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				panic(fmt.Sprintf("ParseRule or a matcher ran over 5s on %q (behavior %d)", text, bi))
			}
		}()
		b := Behavior(((bi % 3) + 3) % 3)
		r, err := ParseRule(text, b, SourceLocal, "/proj")
		if err != nil {
			if r != nil {
				t.Fatalf("ParseRule(%q) returned a rule with error %v", text, err)
			}
			return
		}
		again, err := ParseRule(r.Text, r.Behavior, r.Source, r.Root)
		if err != nil {
			t.Fatalf("re-parse of %q failed: %v", r.Text, err)
		}
		if !reflect.DeepEqual(r, again) {
			t.Fatalf("re-parse of %q differs:\n%+v\n%+v", text, r, again)
		}
		// Exercise every matcher on a few queries: no panic.
		for _, q := range []Query{
			{Tool: r.Tool, Input: map[string]any{"model": "opus", "n": 1.0}},
			{Tool: "Read", Path: "/proj/a/.env", Cwd: "/proj", Home: "/home/u"},
			{Tool: "Edit", Path: "relative"},
			{Tool: "WebFetch", Domain: "a.Example.com."},
			{Tool: "WebFetch", Domain: ""},
		} {
			_ = r.matches(&q)
		}
	})
}
