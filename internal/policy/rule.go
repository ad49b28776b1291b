package policy

import (
	"fmt"
	"strings"
)

// Rule is one parsed permission rule with its provenance. Rules are built by
// ParseRule (or Compile, which calls it) and never change afterwards, so a
// *Rule may be shared by any number of goroutines.
type Rule struct {
	// Text is the rule as written in its settings list.
	Text string
	// Behavior is the list the rule came from: allow, deny or ask.
	Behavior Behavior
	// Source is the settings source the rule came from.
	Source Source
	// Root anchors "/path" patterns of this rule
	// (https://code.claude.com/docs/en/permissions "Read and Edit"): the
	// project root for project settings, the original cwd for local, CLI and
	// session rules, ~/.claude for user settings and the file's directory
	// for a --settings file. Empty when the source has none, in which case
	// "/path" patterns are refused at parse time.
	Root string
	// Tool is the tool name or tool-name glob before the parenthesis.
	Tool string
	// Spec is the specifier inside the parentheses, "" for a bare rule. It
	// is kept as written; the compiled matchers below use its unescaped form.
	Spec string

	kind   ruleKind
	tool   toolPattern
	family family // kindPath and family-wide kindTool rules
	bash   *bashPattern
	path   *pathPattern
	domain *domainPattern
	param  *paramPattern
	skill  *skillPattern
	// agentType: an Agent(type) rule (rule_agent.go).
	agentType bool
}

// ruleKind says which matcher decides a rule.
type ruleKind uint8

const (
	// kindTool: every call of the tools the name (or name glob) matches.
	kindTool ruleKind = iota
	// kindBash: Bash(command pattern).
	kindBash
	// kindPath: Read(path) or Edit(path).
	kindPath
	// kindDomain: WebFetch(domain:host).
	kindDomain
	// kindParam: Tool(param:value); may also carry a bash pattern when the
	// text is ambiguous (see parseBashSpec).
	kindParam
	// kindSkill: Skill(name) or Skill(prefix:*).
	kindSkill
)

// family groups the file tools whose calls Read(path) and Edit(path) rules
// decide (https://code.claude.com/docs/en/permissions "Read and Edit").
type family uint8

const (
	famNone family = iota
	famRead
	famEdit
)

// toolFamilies is the one table that maps a tool to its path-rule family.
// MultiEdit is legacy but still named by the docs as covered by Edit rules.
var toolFamilies = map[string]family{
	"Read":         famRead,
	"Grep":         famRead,
	"Glob":         famRead,
	"Edit":         famEdit,
	"Write":        famEdit,
	"NotebookEdit": famEdit,
	"MultiEdit":    famEdit,
}

// familyOf returns the path-rule family of a tool, famNone for other tools.
func familyOf(tool string) family { return toolFamilies[tool] }

// familyRoot is the only tool name whose path specifiers each family honours.
var familyRoot = map[family]string{famRead: "Read", famEdit: "Edit"}

// coversFamily reports whether a rule of family rf and behavior b decides
// calls of a tool of family qf.
//
// Read rules decide Read, Grep and Glob; Edit rules decide Edit, Write,
// NotebookEdit and MultiEdit. Across families:
//   - an Edit allow also grants Read on the same paths
//     (https://code.claude.com/docs/en/tools-reference);
//   - a Read deny also blocks editing tools on the same paths
//     (https://code.claude.com/docs/en/permissions, v2.1.208 Edit, v2.1.228
//     Write). The docs exempt NotebookEdit; toold does not, and applies the
//     same to Read ask rules: a file the operator does not want read
//     unprompted must not be rewritten unprompted either, and an editing
//     tool shows the model the file's content. Safer reading, deliberate.
func coversFamily(rf family, b Behavior, qf family) bool {
	switch {
	case qf == famNone:
		return false
	case rf == qf:
		return true
	case rf == famEdit && qf == famRead:
		return b == Allow
	case rf == famRead && qf == famEdit:
		return b == Deny || b == Ask
	}
	return false
}

// toolPattern matches tool names: an exact canonical name, every tool of an
// MCP server ("mcp__server"), or a glob whose only metacharacter is '*',
// matched against the whole name.
type toolPattern struct {
	name      string   // exact name, or the server prefix for mcpServer
	mcpServer bool     // "mcp__server": the server's tools, "mcp__server__*"
	glob      []string // non-nil: the name split on '*'
}

func (p toolPattern) matches(tool string) bool {
	switch {
	case p.glob != nil:
		return wildMatch(p.glob, tool)
	case p.mcpServer:
		return tool == p.name ||
			(len(tool) > len(p.name)+2 && tool[:len(p.name)] == p.name && tool[len(p.name):len(p.name)+2] == "__")
	}
	return tool == p.name
}

// speaksOfPaths reports whether the rule decides files by their paths: a
// path rule, or a bare Read or Edit rule that covers its whole family
// (Options.BareFileRulesCoverFamily).
func (r *Rule) speaksOfPaths() bool {
	return r.kind == kindPath || (r.kind == kindTool && r.family != famNone)
}

// appliesTo reports whether the rule speaks about calls of tool at all; the
// kind's matcher then decides the call.
func (r *Rule) appliesTo(tool string) bool {
	switch r.kind {
	case kindTool:
		if r.family != famNone {
			return coversFamily(r.family, r.Behavior, familyOf(tool))
		}
		return r.tool.matches(tool)
	case kindPath:
		return coversFamily(r.family, r.Behavior, familyOf(tool))
	case kindBash:
		return tool == "Bash"
	case kindDomain:
		return tool == "WebFetch"
	case kindParam:
		return r.tool.matches(tool)
	case kindSkill:
		return tool == skillTool
	}
	return false
}

// matches reports whether the rule matches the call described by q.
func (r *Rule) matches(q *Query) bool {
	ct := cmdText{c: q.Command}
	return r.matchesWith(q, &ct)
}

// matchesWith is matches with the command's texts shared between the rules
// of one lookup.
func (r *Rule) matchesWith(q *Query, ct *cmdText) bool {
	if !r.appliesTo(q.Tool) {
		return false
	}
	switch r.kind {
	case kindTool:
		if q.PathsOnly && r.family == famNone {
			return false
		}
		// A tool-level Bash allow still never covers what the analyser could
		// not see or a command that writes files by redirection: see
		// bashAllowBlocked.
		if r.Behavior == Allow && q.Command != nil && bashAllowBlocked(q.Command) {
			return false
		}
		return true
	case kindBash:
		return q.Command != nil && r.bash.matchCommand(ct, r.Behavior, q.Script)
	case kindPath:
		return r.path.matchQuery(q, r.Behavior)
	case kindDomain:
		return r.domain.match(q.Domain, r.Behavior)
	case kindParam:
		if r.param.match(q.Input) {
			return true
		}
		return r.bash != nil && q.Command != nil && r.bash.matchCommand(ct, r.Behavior, q.Script)
	case kindSkill:
		return r.skill.match(q.Input)
	}
	return false
}

// String returns the rule as written.
func (r *Rule) String() string { return r.Text }

// RuleError is a rule that cannot be loaded. toold refuses the whole rule
// set rather than skip the rule with a warning as Claude Code does: nothing
// runs under a half-loaded rule set.
type RuleError struct {
	Rule     string
	Behavior Behavior
	Source   Source
	// Origin is the file or request the rule came from, when known.
	Origin string
	// Index is the rule's position in its list, -1 when unknown.
	Index  int
	Reason string
}

func (e *RuleError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "permission %s rule %q (%s", e.Behavior, e.Rule, e.Source)
	if e.Origin != "" {
		fmt.Fprintf(&b, ", %s", e.Origin)
	}
	if e.Index >= 0 {
		fmt.Fprintf(&b, ", permissions.%s[%d]", e.Behavior, e.Index)
	}
	b.WriteString("): ")
	b.WriteString(e.Reason)
	return b.String()
}

// wildMatch reports whether s matches the pattern whose literal parts are
// parts, i.e. the pattern split on '*': parts[0] must be a prefix, the last
// part a suffix, and the others must appear in order. It allocates nothing
// and runs in O(len(s)*len(parts)).
func wildMatch(parts []string, s string) bool {
	if len(parts) == 1 {
		return s == parts[0]
	}
	first, last := parts[0], parts[len(parts)-1]
	if len(s) < len(first)+len(last) || !strings.HasPrefix(s, first) || !strings.HasSuffix(s, last) {
		return false
	}
	s = s[len(first) : len(s)-len(last)]
	// Leftmost placement of each middle part is optimal for '*'-only
	// patterns: any later placement leaves less room for the rest.
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return true
}
