package policy

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxRuleLen bounds one rule's text. Claude Code treats commands longer
// than 10,000 characters as unparseable; a rule longer than that can only
// be a mistake or an attack on the matcher.
const maxRuleLen = 10000

// toolParams lists, for the built-in tools whose input toold knows, the
// top-level input fields a parameter rule Tool(param:value) may name, and
// which of them is the tool's primary field
// (https://code.claude.com/docs/en/permissions "Permission rule syntax";
// schemas from https://code.claude.com/docs/en/agent-sdk/typescript).
// A parameter rule naming a field the tool does not have is refused: it
// could never match, and a deny rule that never matches is worse than an
// error. Tools missing from this table (MCP tools, tools added later) take
// any field name.
var toolParams = map[string]struct {
	primary string
	params  []string
}{
	"Bash":            {"command", []string{"command", "timeout", "description", "run_in_background", "dangerouslyDisableSandbox"}},
	"Read":            {"file_path", []string{"file_path", "offset", "limit", "pages"}},
	"Write":           {"file_path", []string{"file_path", "content"}},
	"Edit":            {"file_path", []string{"file_path", "old_string", "new_string", "replace_all"}},
	"MultiEdit":       {"file_path", []string{"file_path", "edits"}},
	"Glob":            {"path", []string{"pattern", "path"}},
	"Grep":            {"path", []string{"pattern", "path", "glob", "type", "output_mode", "-i", "-o", "-n", "-A", "-B", "-C", "context", "head_limit", "offset", "multiline"}},
	"NotebookEdit":    {"notebook_path", []string{"notebook_path", "cell_id", "new_source", "cell_type", "edit_mode"}},
	"WebFetch":        {"url", []string{"url", "prompt"}},
	"WebSearch":       {"", []string{"query", "allowed_domains", "blocked_domains"}},
	"Agent":           {"", []string{"description", "prompt", "subagent_type", "model", "run_in_background", "name", "isolation"}},
	"TodoWrite":       {"", []string{"todos"}},
	"ToolSearch":      {"", []string{"query", "max_results"}},
	"TaskOutput":      {"", []string{"task_id", "block", "timeout"}},
	"TaskStop":        {"", []string{"task_id", "shell_id"}},
	"AskUserQuestion": {"", []string{"questions"}},
	"ExitPlanMode":    {"", []string{"plan"}},
	"Skill":           {"", []string{"args"}},
}

// pathRuleRedirect names, for tools whose own path specifiers Claude Code
// accepts but never consults, the rule family that does decide their paths.
var pathRuleRedirect = map[string]string{
	"Write":        "Edit",
	"NotebookEdit": "Edit",
	"MultiEdit":    "Edit",
	"Glob":         "Read",
	"Grep":         "Read",
}

// ParseRule parses and compiles one permission rule of list b from source
// src. root anchors the rule's "/path" patterns (see Rule.Root).
//
// Parsing is strict where Claude Code warns and skips: a rule toold cannot
// enforce exactly as written is an error, because the operator would
// otherwise believe a deny is in force that is not. Refused:
//   - empty text, leading or trailing whitespace, invalid UTF-8, control,
//     bidi, zero-width and no-break-space characters, text over 10,000 bytes;
//   - unbalanced parentheses (write \( and \) for literal ones), an empty
//     specifier "Tool()", an empty or malformed tool name;
//   - a tool name that differs only in case from a built-in tool: rules
//     match canonical names only, so "bash(rm *)" would never match;
//   - unanchored allow tool-name globs ("*", "B*", "mcp__*"): an allow glob
//     must follow a literal "mcp__<server>__" prefix
//     (https://code.claude.com/docs/en/permissions "Tool name wildcards");
//   - a specifier on a tool-name glob;
//   - parameter rules Tool(param:value) in allow lists, on a primary field
//     (command, file_path, path, notebook_path, url), or naming a field the
//     built-in tool does not have;
//   - Write(path), NotebookEdit(path), MultiEdit(path), Glob(path) and
//     Grep(path): path checks consult only Read(path) and Edit(path);
//   - specifiers on tools that take none (everything but Bash, Read, Edit,
//     WebFetch(domain:...), Skill(name) and parameter rules).
//
// Tool(*) is the bare rule Tool for every tool, including Read and Edit
// (where "*" would otherwise be a path pattern covering only the cwd).
func ParseRule(text string, b Behavior, src Source, root string) (*Rule, error) {
	r := &Rule{Text: text, Behavior: b, Source: src, Root: root}
	fail := func(format string, args ...any) (*Rule, error) {
		return nil, &RuleError{Rule: text, Behavior: b, Source: src, Index: -1, Reason: fmt.Sprintf(format, args...)}
	}
	if b != Allow && b != Deny && b != Ask {
		return fail("unknown behavior %d", int(b))
	}
	if err := checkRuleText(text); err != "" {
		return fail("%s", err)
	}
	if root != "" && !filepath.IsAbs(root) {
		return fail("anchor directory %q is not absolute", root)
	}

	tool, spec, hasSpec, perr := splitRule(text)
	if perr != "" {
		return fail("%s", perr)
	}
	r.Tool, r.Spec = tool, spec
	if msg := checkToolName(tool); msg != "" {
		return fail("%s", msg)
	}
	if hasSpec && spec == "" {
		return fail("empty specifier: write %s for every call of the tool", tool)
	}
	uspec := unescapeParens(spec)
	if uspec == "*" {
		hasSpec = false // Tool(*) ≡ Tool
	}

	if strings.Contains(tool, "*") {
		if hasSpec {
			return fail("a tool-name glob takes no specifier")
		}
		if b == Allow && !anchoredAllowGlob(tool) {
			return fail("an allow rule may glob a tool name only after a literal mcp__<server>__ prefix " +
				"(for example mcp__github__*); an unanchored allow glob would approve every tool it matches, " +
				"so Claude Code skips it and toold refuses it")
		}
		r.kind = kindTool
		r.tool = toolPattern{glob: strings.Split(tool, "*")}
		return r, nil
	}

	if !hasSpec {
		r.kind = kindTool
		r.tool = toolPattern{name: tool}
		if strings.HasPrefix(tool, "mcp__") && !strings.Contains(tool[len("mcp__"):], "__") {
			r.tool.mcpServer = true
		}
		if f := familyOf(tool); f != famNone && familyRoot[f] == tool {
			// A bare Read or Edit rule is a path rule for every path: it
			// speaks for the whole family, across families as coversFamily
			// says, exactly as Read(//**) or Edit(//**) would.
			r.family = f
		}
		return r, nil
	}

	r.tool = toolPattern{name: tool}
	key, value, isParam := splitParam(uspec)
	tp, known := toolParams[tool]
	if isParam && known && !containsString(tp.params, key) {
		isParam = false // not a field of this tool: the text is an ordinary specifier
	}

	switch {
	case tool == "Bash":
		return parseBashRule(r, uspec, key, value, isParam)
	case tool == "WebFetch" && isDomainSpec(uspec):
		d, msg := compileDomain(domainValue(uspec))
		if msg != "" {
			return fail("%s", msg)
		}
		if d == nil { // domain:* ≡ WebFetch
			r.kind = kindTool
			return r, nil
		}
		r.kind, r.domain = kindDomain, d
		return r, nil
	case tool == skillTool && !isParam:
		p, msg := compileSkill(uspec)
		if msg != "" {
			return fail("%s", msg)
		}
		r.kind, r.skill = kindSkill, p
		return r, nil
	case isParam:
		return parseParamRule(r, key, value)
	case tool == "Agent":
		return parseAgentRule(r, uspec)
	case tool == "Read" || tool == "Edit":
		p, msg := compilePath(uspec, b, root)
		if msg != "" {
			return fail("%s", msg)
		}
		r.kind, r.path, r.family = kindPath, p, familyOf(tool)
		return r, nil
	}
	if to, ok := pathRuleRedirect[tool]; ok {
		what := "all file-editing tools"
		if to == "Read" {
			what = "Read, Grep and Glob"
		}
		return fail("%s is not matched by file permission checks — only %s(path) rules are. Use %s(%s) instead (%s rules cover %s).",
			text, to, to, spec, to, what)
	}
	if tool == "WebFetch" {
		return fail("WebFetch takes the specifier domain:host (for example WebFetch(domain:example.com)), or a parameter rule WebFetch(prompt:...) in a deny or ask list")
	}
	if known {
		return fail("%s takes no specifier here: use a bare %s rule, or a parameter rule %s(param:value) with one of its fields %v in a deny or ask list",
			tool, tool, tool, tp.params)
	}
	return fail("%s takes no specifier here: tools other than Bash, Read, Edit and WebFetch accept only a bare name or a parameter rule %s(param:value) in a deny or ask list", tool, tool)
}

// parseParamRule compiles Tool(param:value).
func parseParamRule(r *Rule, key, value string) (*Rule, error) {
	fail := func(format string, args ...any) (*Rule, error) {
		return nil, &RuleError{Rule: r.Text, Behavior: r.Behavior, Source: r.Source, Index: -1, Reason: fmt.Sprintf(format, args...)}
	}
	if r.Behavior == Allow {
		return fail("parameter rules %s(param:value) work only in deny and ask lists "+
			"(https://code.claude.com/docs/en/permissions); allow rules keep the tool's own specifier syntax", r.Tool)
	}
	if isPrimaryField(r.Tool, key) {
		return fail("%s is the primary field of %s and cannot be matched by a parameter rule; use the tool's own specifier syntax instead", key, r.Tool)
	}
	r.kind = kindParam
	r.param = compileParam(key, value)
	return r, nil
}

// isPrimaryField reports whether key is tool's primary field. Tools outside
// the table have none: their fields are matched verbatim.
func isPrimaryField(tool, key string) bool {
	tp, ok := toolParams[tool]
	return ok && tp.primary != "" && tp.primary == key
}

// checkRuleText refuses text that cannot be a rule, or could read
// differently to a person and to the matcher.
func checkRuleText(text string) string {
	switch {
	case text == "":
		return "empty rule"
	case len(text) > maxRuleLen:
		return fmt.Sprintf("rule longer than %d bytes", maxRuleLen)
	case !utf8.ValidString(text):
		return "rule is not valid UTF-8"
	}
	for _, c := range text {
		if msg := badRune(c); msg != "" {
			return msg
		}
	}
	if strings.TrimSpace(text) != text {
		return "rule has leading or trailing whitespace"
	}
	return ""
}

// badRune names characters no rule may contain: C0 and C1 controls
// (including TAB, CR and LF, security.md §1 #6), DEL, bidi overrides and
// isolates, zero-width characters, the BOM and no-break spaces
// (security.md §4 R10).
func badRune(c rune) string {
	switch {
	case c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0):
		return fmt.Sprintf("rule contains control character %U", c)
	case c == 0xa0 || c == 0x2007 || c == 0x202f:
		return fmt.Sprintf("rule contains no-break space %U", c)
	case c >= 0x200b && c <= 0x200f, c >= 0x202a && c <= 0x202e, c >= 0x2060 && c <= 0x2064,
		c >= 0x2066 && c <= 0x2069, c == 0xfeff, c == 0x180e, c == 0x061c:
		return fmt.Sprintf("rule contains invisible or bidi character %U", c)
	case unicode.Is(unicode.Cf, c):
		return fmt.Sprintf("rule contains format character %U", c)
	}
	return ""
}

// splitRule splits "Tool" or "Tool(spec)". The specifier runs from the first
// '(' to the final ')', which must end the text; parentheses inside it must
// balance unless escaped as \( and \).
func splitRule(text string) (tool, spec string, hasSpec bool, msg string) {
	open := strings.IndexByte(text, '(')
	if open < 0 {
		if strings.IndexByte(text, ')') >= 0 {
			return "", "", false, "unbalanced parentheses: ')' without '('"
		}
		return text, "", false, ""
	}
	if text[len(text)-1] != ')' {
		return "", "", false, "unbalanced parentheses: the specifier must end the rule with ')'"
	}
	tool, spec = text[:open], text[open+1:len(text)-1]
	depth := 0
	for i := 0; i < len(spec); i++ {
		switch spec[i] {
		case '\\':
			i++ // the escaped byte (ASCII here: the text is valid UTF-8) is literal
		case '(':
			depth++
		case ')':
			if depth--; depth < 0 {
				return "", "", false, "unbalanced parentheses: ')' closes the specifier early; write \\) for a literal one"
			}
		}
	}
	if depth != 0 {
		return "", "", false, "unbalanced parentheses: '(' is never closed; write \\( for a literal one"
	}
	if strings.HasSuffix(spec, `\`) && !strings.HasSuffix(spec, `\\`) {
		return "", "", false, "the specifier ends with a lone backslash"
	}
	return tool, spec, true, ""
}

// checkToolName accepts canonical tool names: ASCII letters, digits, '_',
// '-' and the '*' of a name glob.
func checkToolName(tool string) string {
	if tool == "" {
		return "empty tool name"
	}
	for i := 0; i < len(tool); i++ {
		c := tool[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '*') {
			return fmt.Sprintf("tool name %q contains %q: tool names are letters, digits, '_', '-' and '*'", tool, c)
		}
	}
	if tool == "mcp__" {
		return "empty MCP server name"
	}
	if !strings.Contains(tool, "*") {
		for name := range knownToolNames {
			if name != tool && strings.EqualFold(name, tool) {
				return fmt.Sprintf("tool names are case-sensitive and match canonical names only: did you mean %s?", name)
			}
		}
	}
	return ""
}

// knownToolNames are the canonical built-in names the case check knows.
var knownToolNames = func() map[string]bool {
	m := map[string]bool{"Monitor": true, "PowerShell": true, "LSP": true, "Skill": true, "EndConversation": true, "Task": true}
	for n := range toolParams {
		m[n] = true
	}
	return m
}()

// anchoredAllowGlob reports whether a tool-name glob starts with a literal
// "mcp__<server>__", the only place allow rules may glob
// (https://code.claude.com/docs/en/permissions "Tool name wildcards").
func anchoredAllowGlob(tool string) bool {
	star := strings.IndexByte(tool, '*')
	if !strings.HasPrefix(tool, "mcp__") {
		return false
	}
	sep := strings.Index(tool[len("mcp__"):], "__")
	if sep <= 0 {
		return false
	}
	return len("mcp__")+sep+len("__") <= star
}

// unescapeParens turns \( and \) into literal parentheses and leaves every
// other backslash for the specifier's own syntax (gitignore escapes in
// paths, \* in Bash patterns). "\\" stays "\\" so that it cannot escape a
// following parenthesis.
func unescapeParens(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '(', ')':
				b.WriteByte(s[i+1])
				i++
				continue
			case '\\':
				b.WriteString(`\\`)
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// splitParam splits "param:value" where param is a field name
// ([A-Za-z0-9_-]+, Grep has "-i"). Whitespace around the ':' is ignored
// (https://code.claude.com/docs/en/permissions "Permission rule syntax").
func splitParam(spec string) (key, value string, ok bool) {
	i := strings.IndexByte(spec, ':')
	if i <= 0 {
		return "", "", false
	}
	key = strings.TrimRight(spec[:i], " ")
	value = strings.TrimLeft(spec[i+1:], " ")
	if key == "" {
		return "", "", false
	}
	for j := 0; j < len(key); j++ {
		c := key[j]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return "", "", false
		}
	}
	return key, value, true
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
