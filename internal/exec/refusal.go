package exec

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toold/toold/internal/hooks"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/tool"
)

// The texts the model reads when a call ends unrun: a deny, an ask nobody
// granted, a hook's block. They are worded as Claude Code 2.1.332 words
// them for the same case (see docs/refusals.md); the decision events the
// client sees keep toold's own reasons.

// refusal is what the texts are made from.
type refusal struct {
	tool string
	// kind is what the tool declared of itself that the texts depend on
	// (tool.Definition's traits).
	kind refusalKind
	mode string
	// path is the absolute path a file tool names (file_path,
	// notebook_path, or Glob and Grep's path, defaulting to cwd).
	path string
	// command is Bash's command line.
	command string
}

// refusalKind is the part of a tool's declared traits the texts use.
type refusalKind struct {
	command      bool
	paths        tool.PathUse
	pathDenyText bool
	fetchesURL   bool
}

func kindOf(d tool.Definition) refusalKind {
	return refusalKind{command: d.Command, paths: d.Paths, pathDenyText: d.PathDenyText, fetchesURL: d.FetchesURL}
}

func (k refusalKind) reads() bool  { return k.paths == tool.PathsRead }
func (k refusalKind) writes() bool { return k.paths == tool.PathsWrite }

func refusalOf(c *Call, cwd string) refusal {
	r := refusal{tool: c.ToolName(), kind: kindOf(c.Def), mode: c.Session.Mode}
	if s, ok := c.Args["command"].(string); ok && r.kind.command {
		r.command = s
	}
	if r.kind.paths != tool.PathsNone {
		r.path = cwd
		for _, k := range []string{"file_path", "notebook_path", "path"} {
			if s, ok := c.Args[k].(string); ok && s != "" {
				r.path = s
				if !filepath.IsAbs(s) && cwd != "" {
					r.path = filepath.Join(cwd, s)
				}
				break
			}
		}
	}
	return r
}

const dontAskAdvice = " IMPORTANT: You *may* attempt to accomplish this action using other tools that might naturally be used to accomplish this goal, e.g. using head instead of cat. But you *should not* attempt to work around this denial in malicious ways, e.g. do not use your ability to run tests to execute non-test actions. You should only try to work around this restriction in reasonable ways that do not attempt to bypass the intent behind this denial. If you believe this capability is essential to complete the user's request, STOP and explain to the user what you were trying to do and why you need this permission. Let the user decide how to proceed."

// dontAskText is the refusal of a call that would have asked, in dontAsk
// mode: the policy's own text when it extends it (a Skill's question
// follows it).
func (r refusal) dontAskText(dec policy.Decision) string {
	text := "Permission to use " + r.tool + " has been denied because Claude Code is running in don't ask mode." + dontAskAdvice
	if strings.HasPrefix(dec.Message, text) {
		return dec.Message
	}
	return text
}

// denyText is the refusal of a call a deny rule matched.
func (r refusal) denyText(dec policy.Decision) string {
	if dec.Message != "" && !(r.kind.command && dec.Source != "hook" && strings.HasPrefix(dec.Message, r.commandDeniedPrefix())) {
		return dec.Message
	}
	if toolWide(dec.Rule, r.tool) {
		// Claude Code leaves a tool that a bare deny rule names out of
		// the model's tool list; a call of it is an unknown tool.
		return toolUseError(fmt.Sprintf("Error: No such tool available: %s. %s is disabled for this session, in subagents as well as here.", r.tool, r.tool))
	}
	switch {
	case r.kind.command:
		if dec.Message != "" && !slices.ContainsFunc(dec.Parts, func(p policy.Part) bool { return p.Behavior == policy.Deny && p.Command != "" }) {
			// No denied command to place in the line: the policy's text.
			return dec.Message
		}
		// The line as written, redirections included, or the side of
		// the pipe that holds the denied command.
		return r.commandDeniedPrefix() + deniedCommand(r.command, dec) + " has been denied."
	case r.kind.pathDenyText:
		return toolUseError("File is in a directory that is denied by your permission settings.")
	case r.kind.reads():
		return "Permission to read " + r.path + " has been denied."
	case r.kind.writes():
		return "Permission to edit " + r.path + " has been denied."
	case r.kind.fetchesURL:
		if content := ruleContent(dec.Rule); content != "" {
			return "WebFetch denied access to " + content + "."
		}
	}
	return "Permission to use " + r.tool + " has been denied."
}

// askText is the refusal of an ask nobody granted: what a plain
// `claude -p` run, which has nobody to ask, answers.
func (r refusal) askText(dec policy.Decision, byRule bool) string {
	if dec.Source == "hook" && dec.Message != "" {
		return dec.Message
	}
	if r.mode == "plan" && !byRule {
		switch {
		case r.kind.writes():
			return "Cannot write to " + r.path + " while in plan mode."
		case !r.kind.reads():
			return "Auto mode is unavailable: its safety check does not run for this session, so " + r.tool + " was not run. Other actions that need the check will be denied too, and retrying won't help. Finish what you can without them, then tell the user what is blocked and that they can switch to another permission mode."
		}
	}
	if dec.Message != "" {
		return dec.Message
	}
	if toolWide(dec.Rule, r.tool) {
		// An ask rule for the whole tool: the text names the tool, not
		// the path.
		return refusal{tool: r.tool}.notGranted()
	}
	return r.notGranted()
}

// notGranted is Claude Code's text for an ask without an explanation of
// its own: file tools name the path, other tools themselves.
func (r refusal) notGranted() string {
	what := "use " + r.tool
	switch {
	case r.kind.reads() && r.path != "":
		what = "read from " + r.path
	case r.kind.writes() && r.path != "":
		what = "write to " + r.path
	}
	return "Claude requested permissions to " + what + ", but you haven't granted it yet."
}

// hostDeniedText is the refusal when the person (or host) asked denied
// the call: their message alone, or without one what nobody granting
// would have said.
func (r refusal) hostDeniedText(dec policy.Decision, byRule bool, message string) string {
	if message != "" {
		return message
	}
	return r.askText(dec, byRule)
}

// askedByRule reports whether an ask rule made the call ask, rather than
// the mode or a check: Claude Code then gives its plain "not granted"
// text, even in plan mode.
func askedByRule(dec policy.Decision) bool {
	if dec.Source == "hook" {
		return false
	}
	if dec.Rule != "" {
		return true
	}
	for _, p := range dec.Parts {
		if p.Behavior == policy.Ask && p.Rule != "" {
			return true
		}
	}
	return false
}

// toolWide reports whether rule names the whole tool (no specifier): the
// tool itself, or for an MCP tool its server (mcp__srv, mcp__srv__*).
func toolWide(rule, toolName string) bool {
	if rule == "" || strings.Contains(rule, "(") {
		return false
	}
	if rule == toolName {
		return true
	}
	server := strings.TrimSuffix(rule, "__*")
	return strings.HasPrefix(server, "mcp__") && strings.HasPrefix(toolName, server+"__")
}

// ruleContent is the specifier of a rule: "domain:x" of
// "WebFetch(domain:x)".
func ruleContent(rule string) string {
	i := strings.IndexByte(rule, '(')
	if i < 0 || !strings.HasSuffix(rule, ")") {
		return ""
	}
	return rule[i+1 : len(rule)-1]
}

// commandDeniedPrefix opens the refusal of a command tool's line.
func (r refusal) commandDeniedPrefix() string {
	return "Permission to use " + r.tool + " with command "
}

// deniedCommand is the command a Bash deny names: the pipeline segment
// that holds the denied command when the line is a pipeline, else the
// whole line (as Claude Code checks each side of a pipe on its own).
func deniedCommand(line string, dec policy.Decision) string {
	segs := pipeSegments(line)
	if len(segs) < 2 {
		return line
	}
	for _, p := range dec.Parts {
		if p.Behavior != policy.Deny || p.Command == "" {
			continue
		}
		for _, s := range segs {
			if strings.Contains(s, p.Command) {
				return s
			}
		}
	}
	return line
}

// pipeSegments splits a command line at its pipes (| but not ||, outside
// quotes), trimming each side; a line without a pipe is one segment.
func pipeSegments(line string) []string {
	var segs []string
	start, quote, esc := 0, byte(0), false
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case esc:
			esc = false
		case ch == '\\' && quote != '\'':
			esc = true
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '|':
			if i+1 < len(line) && line[i+1] == '|' {
				i++
				continue
			}
			if i > 0 && line[i-1] == '>' {
				continue // >| redirection
			}
			segs = append(segs, strings.TrimSpace(line[start:i]))
			start = i + 1
			if i+1 < len(line) && line[i+1] == '&' { // |& pipes stderr too
				i++
				start = i + 1
			}
		}
	}
	return append(segs, strings.TrimSpace(line[start:]))
}

// toolUseError wraps a text as Claude Code wraps errors it raises before
// a tool runs.
func toolUseError(s string) string {
	return "<tool_use_error>" + s + "</tool_use_error>"
}

// preHookDenyText is the refusal of a call a PreToolUse hook blocked: the
// stderr of the first hook that exited 2, named by its command, or else
// the deny reason of the JSON answers.
func preHookDenyText(toolName string, out hooks.PreOutcome) string {
	prefix := "PreToolUse:" + toolName + " hook error: "
	if len(out.Blocking) > 0 {
		b := out.Blocking[0]
		stderr := b.Stderr
		if strings.TrimSpace(stderr) == "" {
			stderr = "No stderr output"
		}
		return prefix + "[" + b.Hook + "]: " + stderr
	}
	if out.Reason == "" {
		return prefix + "Blocked by hook"
	}
	return prefix + out.Reason
}

// hookAskText is the refusal of a call a PreToolUse hook asked about,
// when nobody granted it: the hook's reason.
func hookAskText(toolName, reason string) string {
	if reason != "" {
		return reason
	}
	return "Hook PreToolUse:" + toolName + " asked for confirmation for this tool"
}
