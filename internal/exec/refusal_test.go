package exec

import (
	"strings"
	"testing"

	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/tool"
)

func TestDenyText(t *testing.T) {
	deny := func(rule string, parts ...policy.Part) policy.Decision {
		return policy.Decision{Behavior: policy.Deny, Rule: rule, Source: "cliArg", Parts: parts}
	}
	// denyMsg: a deny with the text the policy gives a Bash command.
	denyMsg := func(msg string, parts ...policy.Part) policy.Decision {
		d := deny("Bash(rm:*)", parts...)
		d.Message = msg
		return d
	}
	rmPart := policy.Part{Command: "rm a.txt", Behavior: policy.Deny, Rule: "Bash(rm:*)"}
	cases := []struct {
		name string
		r    refusal
		dec  policy.Decision
		want string
	}{
		{"bash whole line", refusal{tool: "Bash", kind: testKind("Bash"), command: "rm -f a.txt"}, deny("", policy.Part{Command: "rm -f a.txt", Behavior: policy.Deny, Rule: "Bash(rm:*)"}),
			"Permission to use Bash with command rm -f a.txt has been denied."},
		{"bash list names the whole line", refusal{tool: "Bash", kind: testKind("Bash"), command: "echo a && rm a.txt && echo b"}, deny("", rmPart),
			"Permission to use Bash with command echo a && rm a.txt && echo b has been denied."},
		{"bash list names the whole line over the policy's text", refusal{tool: "Bash", kind: testKind("Bash"), command: "echo a && rm a.txt && echo b"}, denyMsg("Permission to use Bash with command rm a.txt has been denied.", rmPart),
			"Permission to use Bash with command echo a && rm a.txt && echo b has been denied."},
		{"bash ; list", refusal{tool: "Bash", kind: testKind("Bash"), command: "echo a; rm a.txt"}, denyMsg("Permission to use Bash with command rm a.txt has been denied.", rmPart),
			"Permission to use Bash with command echo a; rm a.txt has been denied."},
		{"bash single command keeps its redirections", refusal{tool: "Bash", kind: testKind("Bash"), command: "rm a.txt 2>&1 >| log"}, denyMsg("Permission to use Bash with command rm a.txt has been denied.", rmPart),
			"Permission to use Bash with command rm a.txt 2>&1 >| log has been denied."},
		{"bash pipeline names the side over the policy's text", refusal{tool: "Bash", kind: testKind("Bash"), command: "echo a && rm a.txt | cat"}, denyMsg("Permission to use Bash with command rm a.txt has been denied.", rmPart),
			"Permission to use Bash with command echo a && rm a.txt has been denied."},
		{"bash without a denied command keeps the policy's text", refusal{tool: "Bash", kind: testKind("Bash"), command: "echo a | cat secret/k"}, denyMsg("Permission to use Bash with command cat secret/k has been denied."),
			"Permission to use Bash with command cat secret/k has been denied."},
		{"bash pipe names the segment", refusal{tool: "Bash", kind: testKind("Bash"), command: "echo a | rm a.txt"}, deny("", rmPart),
			"Permission to use Bash with command rm a.txt has been denied."},
		{"bash pipe in quotes is no pipe", refusal{tool: "Bash", kind: testKind("Bash"), command: "echo 'a | b' && rm a.txt"}, deny("", rmPart),
			"Permission to use Bash with command echo 'a | b' && rm a.txt has been denied."},
		{"bash or-list is no pipe", refusal{tool: "Bash", kind: testKind("Bash"), command: "true || rm a.txt"}, deny("", rmPart),
			"Permission to use Bash with command true || rm a.txt has been denied."},
		{"bash |& pipe", refusal{tool: "Bash", kind: testKind("Bash"), command: "ls |& rm a.txt"}, deny("", rmPart),
			"Permission to use Bash with command rm a.txt has been denied."},
		{"read", refusal{tool: "Read", kind: testKind("Read"), path: "/w/secret/k"}, deny("Read(./secret/**)"),
			"<tool_use_error>File is in a directory that is denied by your permission settings.</tool_use_error>"},
		{"write by an Edit rule", refusal{tool: "Write", kind: testKind("Write"), path: "/w/locked/a"}, deny("Edit(./locked/**)"),
			"<tool_use_error>File is in a directory that is denied by your permission settings.</tool_use_error>"},
		{"edit", refusal{tool: "Edit", kind: testKind("Edit"), path: "/w/locked/a"}, deny("Edit(./locked/**)"),
			"<tool_use_error>File is in a directory that is denied by your permission settings.</tool_use_error>"},
		{"grep names the path", refusal{tool: "Grep", kind: testKind("Grep"), path: "/w/secret"}, deny("Read(./secret/**)"),
			"Permission to read /w/secret has been denied."},
		{"glob names the path", refusal{tool: "Glob", kind: testKind("Glob"), path: "/w/secret/k.txt"}, deny("Read(./secret/**)"),
			"Permission to read /w/secret/k.txt has been denied."},
		{"webfetch names the rule's domain", refusal{tool: "WebFetch", kind: testKind("WebFetch")}, deny("WebFetch(domain:blocked.example.com)"),
			"WebFetch denied access to domain:blocked.example.com."},
		{"a bare rule disables the tool", refusal{tool: "Glob", kind: testKind("Glob"), path: "/w"}, deny("Glob"),
			"<tool_use_error>Error: No such tool available: Glob. Glob is disabled for this session, in subagents as well as here.</tool_use_error>"},
		{"a bare Bash rule", refusal{tool: "Bash", kind: testKind("Bash"), command: "echo hi"}, deny("Bash"),
			"<tool_use_error>Error: No such tool available: Bash. Bash is disabled for this session, in subagents as well as here.</tool_use_error>"},
		{"an MCP server rule", refusal{tool: "mcp__srv__do", kind: testKind("mcp__srv__do")}, deny("mcp__srv"),
			"<tool_use_error>Error: No such tool available: mcp__srv__do. mcp__srv__do is disabled for this session, in subagents as well as here.</tool_use_error>"},
		{"another tool's bare rule is not this tool's", refusal{tool: "mcp__srvx__do", kind: testKind("mcp__srvx__do")}, deny("mcp__srv"),
			"Permission to use mcp__srvx__do has been denied."},
		{"other tools", refusal{tool: "TodoWrite", kind: testKind("TodoWrite")}, deny("TodoWrite(x)"),
			"Permission to use TodoWrite has been denied."},
		{"the policy's own text wins", refusal{tool: "Bash", kind: testKind("Bash"), command: "x"}, policy.Decision{Behavior: policy.Deny, Message: "custom"},
			"custom"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.r.denyText(tc.dec); got != tc.want {
				t.Errorf("denyText = %q\nwant        %q", got, tc.want)
			}
		})
	}
}

func TestAskText(t *testing.T) {
	plain := policy.Decision{Behavior: policy.Ask, Source: "workingDirectory"}
	byRule := policy.Decision{Behavior: policy.Ask, Source: "cliArg", Rule: "Bash(git push:*)"}
	bashMsg := policy.Decision{Behavior: policy.Ask, Source: "rules", Message: "This command requires approval"}
	hook := policy.Decision{Behavior: policy.Ask, Source: "hook", Message: "check this"}
	autoMode := func(tool string) string {
		return "Auto mode is unavailable: its safety check does not run for this session, so " + tool + " was not run. Other actions that need the check will be denied too, and retrying won't help. Finish what you can without them, then tell the user what is blocked and that they can switch to another permission mode."
	}
	cases := []struct {
		name string
		r    refusal
		dec  policy.Decision
		want string
	}{
		{"write names the path", refusal{tool: "Write", kind: testKind("Write"), mode: "default", path: "/w/d.txt"}, plain,
			"Claude requested permissions to write to /w/d.txt, but you haven't granted it yet."},
		{"notebook edit", refusal{tool: "NotebookEdit", kind: testKind("NotebookEdit"), mode: "acceptEdits", path: "/h/nb.ipynb"}, plain,
			"Claude requested permissions to write to /h/nb.ipynb, but you haven't granted it yet."},
		{"read names the path", refusal{tool: "Read", kind: testKind("Read"), mode: "default", path: "/h/s.txt"}, plain,
			"Claude requested permissions to read from /h/s.txt, but you haven't granted it yet."},
		{"glob names its directory", refusal{tool: "Glob", kind: testKind("Glob"), mode: "default", path: "/h"}, plain,
			"Claude requested permissions to read from /h, but you haven't granted it yet."},
		{"webfetch names the tool", refusal{tool: "WebFetch", kind: testKind("WebFetch"), mode: "default"}, plain,
			"Claude requested permissions to use WebFetch, but you haven't granted it yet."},
		{"bash by an ask rule", refusal{tool: "Bash", kind: testKind("Bash"), mode: "bypassPermissions", command: "git push"}, byRule,
			"Claude requested permissions to use Bash, but you haven't granted it yet."},
		{"bash with the policy's text", refusal{tool: "Bash", kind: testKind("Bash"), mode: "default", command: "curl x"}, bashMsg,
			"This command requires approval"},
		{"plan mode write", refusal{tool: "Edit", kind: testKind("Edit"), mode: "plan", path: "/w/a.txt"}, plain,
			"Cannot write to /w/a.txt while in plan mode."},
		{"plan mode bash", refusal{tool: "Bash", kind: testKind("Bash"), mode: "plan", command: "touch x"}, bashMsg, autoMode("Bash")},
		{"plan mode webfetch", refusal{tool: "WebFetch", kind: testKind("WebFetch"), mode: "plan"}, plain, autoMode("WebFetch")},
		{"plan mode read", refusal{tool: "Read", kind: testKind("Read"), mode: "plan", path: "/h/n"}, plain,
			"Claude requested permissions to read from /h/n, but you haven't granted it yet."},
		{"plan mode ask rule", refusal{tool: "Bash", kind: testKind("Bash"), mode: "plan", command: "ls"}, policy.Decision{Behavior: policy.Ask, Parts: []policy.Part{{Command: "ls", Behavior: policy.Ask, Rule: "Bash(ls:*)"}}},
			"Claude requested permissions to use Bash, but you haven't granted it yet."},
		{"a whole-tool ask rule names the tool", refusal{tool: "Read", kind: testKind("Read"), mode: "default", path: "/w/a"}, policy.Decision{Behavior: policy.Ask, Rule: "Read", Source: "cliArg"},
			"Claude requested permissions to use Read, but you haven't granted it yet."},
		{"a path ask rule names the path", refusal{tool: "Write", kind: testKind("Write"), mode: "acceptEdits", path: "/w/cfg/x"}, policy.Decision{Behavior: policy.Ask, Rule: "Edit(./cfg/**)", Source: "cliArg"},
			"Claude requested permissions to write to /w/cfg/x, but you haven't granted it yet."},
		{"a hook's ask", refusal{tool: "Read", kind: testKind("Read"), mode: "plan", path: "/w/a"}, hook, "check this"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.r.askText(tc.dec, askedByRule(tc.dec)); got != tc.want {
				t.Errorf("askText = %q\nwant      %q", got, tc.want)
			}
		})
	}
}

func TestHostDeniedText(t *testing.T) {
	r := refusal{tool: "Write", kind: testKind("Write"), mode: "default", path: "/w/a"}
	dec := policy.Decision{Behavior: policy.Ask, Source: "workingDirectory"}
	if got := r.hostDeniedText(dec, false, "Denied by the host."); got != "Denied by the host." {
		t.Errorf("with a message: %q", got)
	}
	if got, want := r.hostDeniedText(dec, false, ""), r.notGranted(); got != want {
		t.Errorf("without a message: %q, want %q", got, want)
	}
}

func TestDontAskText(t *testing.T) {
	got := refusal{tool: "Glob", kind: testKind("Glob")}.dontAskText(policy.Decision{})
	if !strings.HasPrefix(got, "Permission to use Glob has been denied because Claude Code is running in don't ask mode. IMPORTANT: ") ||
		!strings.HasSuffix(got, "Let the user decide how to proceed.") {
		t.Errorf("dontAskText = %q", got)
	}
}

func TestPreHookTexts(t *testing.T) {
	cases := []struct {
		name string
		out  hooks.PreOutcome
		want string
	}{
		{"exit 2 quotes stderr as written", hooks.PreOutcome{Reason: "frozen", Blocking: []hooks.Blocking{{Hook: "/a/block.sh", Stderr: "frozen\n"}}},
			"PreToolUse:Bash hook error: [/a/block.sh]: frozen\n"},
		{"exit 2 without stderr", hooks.PreOutcome{Blocking: []hooks.Blocking{{Hook: "/a/b.sh --x", Stderr: " \n"}}},
			"PreToolUse:Bash hook error: [/a/b.sh --x]: No stderr output"},
		{"the first exit 2", hooks.PreOutcome{Blocking: []hooks.Blocking{{Hook: "one", Stderr: "1"}, {Hook: "two", Stderr: "2"}}},
			"PreToolUse:Bash hook error: [one]: 1"},
		{"a JSON deny", hooks.PreOutcome{Reason: "audited"}, "PreToolUse:Bash hook error: audited"},
		{"a JSON deny without reason", hooks.PreOutcome{}, "PreToolUse:Bash hook error: Blocked by hook"},
	}
	for _, tc := range cases {
		tc.out.Decision = hooks.Deny
		if got := preHookDenyText("Bash", tc.out); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := hookAskText("Read", ""); got != "Hook PreToolUse:Read asked for confirmation for this tool" {
		t.Errorf("hook ask without reason: %q", got)
	}
	if got := hookAskText("Read", "look first"); got != "look first" {
		t.Errorf("hook ask: %q", got)
	}
}

// testKind is what the built-in tool of that name declares (see each
// tool's Definition).
func testKind(name string) refusalKind {
	switch name {
	case "Bash":
		return refusalKind{command: true}
	case "Read":
		return refusalKind{paths: tool.PathsRead, pathDenyText: true}
	case "Glob", "Grep":
		return refusalKind{paths: tool.PathsRead}
	case "Write", "Edit", "MultiEdit":
		return refusalKind{paths: tool.PathsWrite, pathDenyText: true}
	case "NotebookEdit":
		return refusalKind{paths: tool.PathsWrite}
	case "WebFetch":
		return refusalKind{fetchesURL: true}
	}
	return refusalKind{}
}
